// Package scripttest runs script tests for CI (restls test): NAME.test.yaml
// files that name a script, its kind, context.input and the fixtures that
// answer its calls (the --mock format), and what to expect: the result,
// a subset of it, or the thrown error, the calls made and the console
// output. It compares, writes readable diffs by JSON path, rewrites the
// expectations with the actual outcome (Update), and reports as text,
// JSON or JUnit XML.
//
// Each case runs through the run engine (engine.Run), in this process, as
// every other door of a dry run runs a script: its outcome carries the
// run as they answer it.
//
// With Options.Coverage every case's run is watched by a coverage
// observer (package coverage), and the report carries what they covered.
//
// It imports config, coverage, engine, workspace, runtime and
// runtime/restclient only: never hints, lsp or anything above.
package scripttest
