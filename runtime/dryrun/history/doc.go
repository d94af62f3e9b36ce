// Package history keeps the dry runs of each script: the last Keep runs
// per script, each entry bounded (MaxEntry), so that a run can be compared
// with the one before it (runtime/dryrun/diff).
//
// Dir keeps them on disk for editors and `restls run --save`
// (os.UserCacheDir()/restls/history by default: directories 0700, files
// 0600, one directory per script); Memory keeps them for one designer
// session. What is kept is a dryrun.Result as the preview shows it:
// every credential in it was masked by the run's Redactor before it got
// here, and nothing in this package adds any. Entries are read back
// through the bounded reader (input.ReadFile, kind input.History).
//
// history may import input, runtime/dryrun and runtime/restclient (the
// call trace inside a result); it must not import runtime, the LSP
// packages, web or cmd.
package history
