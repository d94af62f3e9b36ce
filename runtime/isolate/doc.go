// Package isolate runs dry runs in child processes of the restls binary
// (`restls run --json`), so that a script that exhausts memory, or a crash
// of the runtime, ends that child and never the server or the command that
// started it.
//
// It owns the child's command line (configuration sources as flags, the
// script on stdin, context.input on an inherited pipe: nothing secret on a
// command line or on disk), the limits applied from outside the child (its
// resident memory, the wall clock, cancellation), the limit on concurrent
// runs, and turning a child that ended without a result into a result with
// a clear error code. It must not import the LSP packages, web or cmd.
package isolate
