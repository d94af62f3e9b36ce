// Package coverage is restls test --coverage (issue 35): which lines and
// branches of each script the tests ran, and at each api.rest.v1 call
// site which outcomes they exercised (2XX, each error status, each
// RestClientError code). It is an observer of the one run engine
// (dryrun.CoverageObserver over the statement instrumentation the
// debugger uses), never a runner of its own: a Collector hands out one
// observer per run and merges what each saw. It writes LCOV, Cobertura
// XML, a JSON form and a text summary per script.
//
// It imports runtime (the coverage map of a script), runtime/dryrun and
// runtime/restclient, and the leaf input; scripttest and cmd/restls
// import it.
package coverage
