// Package diff compares two dry runs of a script (runtime/dryrun.Result):
// which calls were added or are missing, and for the calls both runs made,
// what changed in the URL, the status, the response headers and the body
// (by JSON path); then the script's result or error. It answers a typed
// Diff, which restls.compareWithPrevious and restls.compareWithFixtures
// return as it is, and renders it as text for `restls run --diff-with`.
//
// diff may import input (text made safe for a terminal), runtime/dryrun
// and runtime/restclient (the call trace); it must not import runtime,
// the LSP packages, web or cmd.
package diff
