// Package isolate runs dry runs in child processes of the restls binary,
// so that a script that exhausts memory, or a crash of the runtime, ends
// that child and never the server or the command that started it.
//
// It owns both ends of the child: the parent (Runner) and the child's
// entry point (ChildMain, which cmd/restls calls for the one argument
// ChildArg before any command-line parsing). The parent writes one
// ChildRequest as JSON on the child's stdin (configuration sources, kind,
// script, context.input, fixtures, limits, log level, whether to stream
// events: nothing secret on a command line or on disk) and reads one
// ChildResult line from its stdout, after the run's events (Event) when
// an observer asked for them; a run the child cannot start is a result
// with a code, never text on stderr to be parsed. Every mode (serve,
// restls run) uses this one request and result; InProcess runs the same
// request in this process (restls test). The package also owns the limits applied
// from outside the child (its resident memory, the wall clock,
// cancellation, the size of its result), the limit on concurrent runs,
// and turning a child that ended without a result into a result with a
// clear error code. The run engine (package engine) is its one user; it
// must not import the engine, the LSP packages, web or cmd.
package isolate
