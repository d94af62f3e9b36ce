// Package lsp is the language server for api.rest.v1 scripts: a thin adapter
// between the Language Server Protocol (go.lsp.dev/protocol over
// go.lsp.dev/jsonrpc2) and the pure hint engine in package hints.
//
// It owns the protocol surface (one file per LSP method), the open documents
// of each session with incremental text sync, the conversion between LSP
// positions (UTF-16) and byte offsets (mapper.go, the only place that knows
// about UTF-16), when to reload the registry (file watching and the
// editor's notifications), the restls/status notification, and the
// restls/documentInfo request that tells editors what the server decided
// about a script (its kind and why, its fixture files, its display path)
// so that they never decide it again.
//
// A Server holds protocol state only: its sessions (documents as the
// protocol sends them, settings, diagnostics scheduling); the project
// indexes they navigate are the Session's. ServeStream runs one session (one editor
// connection) on a jsonrpc2.Stream; the stdio command and the
// HTTP/WebSocket backend both call it.
//
// The project itself is the workspace.Session the Server is given
// (Options.Session, one per process): the registries per environment and
// the one rule that picks an environment, reloads, the API descriptions
// and answer-schema stores with their attachments, the answer check of a
// run, and the open documents' texts (its overlay: a trusted session's
// open files, which every session reads in place of the disk through
// files.go). The Server subscribes to what changes there (descriptions
// loaded, registry reloaded) and diagnoses again. Each request takes a
// workspace.Snapshot built from the session's settings and asks it for
// the kind, the registry and the descriptions, as restls check does; a
// session's own registry (sources its settings name) stays a session's.
//
// lsp may import config, engine (the run request restls.runScript
// builds: the engine decides the run; its Run is injected as
// Options.Runner), openapi, hints, workspace, runtime/dryrun (the
// type of a run's result, which restls.runScript answers as it is),
// runtime/dryrun/history and runtime/dryrun/diff (the run history and the
// compare commands, command_history.go) and runtime/curlin
// (restls.pasteCurl, command_curl.go). It must not
// import runtime or scripttest (the script runner is injected through
// Options.Runner, the test files' reader and runner through Options.Tests),
// remote (registryUrl sources
// are read by the Options.Load that cmd/restls injects, remote.Pool.Load)
// or anything in cmd. What a session may do (run, reload, choose sources)
// is its SessionOptions, set by whoever serves it (web for designers).
package lsp
