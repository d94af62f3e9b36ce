// Package dap is restls dap: a Debug Adapter Protocol server (issue 35)
// over the run engine, a surface beside lsp and mcp. A client launches a
// script (its fixtures, input, kind and environment as a dry run takes
// them); the server runs it through engine.Run with Request.Statements,
// so that the runtime calls the session's observer before each statement
// on the run's goroutine. The observer stops there, on a breakpoint, a
// step or a pause, by blocking until the client resumes: the run waits in
// this process (engine.InProcess, docs/decisions.md, "Debugging").
//
// Every api.rest.v1 call and console line is an output event as it
// happens; calls come from the observer already masked by the run's
// Redactor, so the debug console shows what the preview shows.
//
// It imports engine, workspace, config, runtime (the lines that can
// stop), runtime/dryrun and runtime/restclient; cmd/restls wires it.
package dap
