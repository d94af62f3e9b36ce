// Package dryrun is the typed contract of a dry run's outcome: the Result
// that the runtime produces, that `restls run --json` prints, that a
// dry-run child process writes to its parent (runtime/isolate), and that
// the language server (restls.runScript) and the designer backend
// (POST /v1/run) hand to their clients as it is.
//
// It holds types only, so that lsp and web can carry a run's result as a
// Go value without importing the JavaScript runtime. It may import
// runtime/restclient (a call's trace) and leaves; it must not import
// runtime, runtime/isolate, the LSP packages, web or cmd.
package dryrun
