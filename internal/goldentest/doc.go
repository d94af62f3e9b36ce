// Package golden compares text users read (the run preview, hover Markdown,
// the services table) with golden files kept beside the tests, and rewrites
// those files when the tests run with -update, as gopls does.
//
// Run `go test ./... -update` (or set RESTLS_UPDATE_GOLDEN=1) to accept new
// output, then read the diff of testdata/golden before committing it.
//
// Every test package of the module imports golden (a blank import where it
// has no golden test), so that the -update flag is defined in every test
// binary and `go test ./... -update` does not fail with "flag provided but
// not defined"; TestEveryTestPackageDefinesUpdate keeps it so.
//
// golden is a test helper: only _test.go files import it. It imports
// nothing of restls, so every package may use it.
package goldentest
