// Package engine is the one dry-run engine: every surface that runs a
// script (the editor's restls.runScript, the designer's POST /v1/run,
// restls run, restls test, the MCP server's run tool) is an adapter of a
// few lines over Engine.Run, as k6's front ends are over its HTTP engine.
//
// The API, stable for the surfaces built on it:
//
//	eng := engine.New(engine.Options{Isolation: engine.Child, MaxRuns: n,
//		Limits: engine.Limits{Timeout: t, MaxMemory: m}, History: store, Logger: log})
//	res, err := eng.Run(ctx, snap, engine.Request{Path: abs, Text: text,
//		Fixtures: engine.Fixtures{File: f}, Observer: obs})
//
// snap is the workspace.Snapshot the request sees (configuration, kind
// map, API descriptions, environment). Run decides, once per request and
// nowhere else:
//   - the kind: Request.Kind when the user named one, else the kind rule
//     on the snapshot's kind map (the script's "// restls-kind:" line
//     first, then the map, then scriptService);
//   - the registry of that kind, from the snapshot (its environment);
//   - the fixtures: an inline document, a file, the file beside the
//     script, none at all; a record file; live calls for what no fixture
//     answers. Fixtures are parsed before anything runs: a document that
//     does not parse is a *FixturesError naming it as shown and its line;
//   - role limits (Request.AllowServices);
//   - isolation (Options.Isolation): a child process that reads one typed
//     request (isolate.ChildRequest) and writes one typed result
//     (isolate.ChildResult) in every mode, or this process;
//   - admission: at most Options.MaxRuns runs at once, the one limit of
//     the process (Admit takes a slot before a request is read);
//   - answer checks: each call's answer held to its operation in the
//     snapshot's API descriptions, as notes on the call;
//   - history: the run kept when Request.Keep says where;
//   - the engine profile: a script that uses what the snapshot's
//     EngineLevel (restls.yaml's engine) does not accept is not run; its
//     result's error (code engine-syntax or engine-builtin) is the
//     editor's diagnostic, word for word (package jslevel).
//
// Request.Observer (dryrun.Observer) watches a run as it happens: calls
// made and answered, console lines, statements reached (only when
// Request.Statements asks: the program is then instrumented) and the
// result. A child streams these events to its parent before its result;
// with no observer a run costs what it did before.
//
// It imports config, openapi, jslevel, workspace, runtime, runtime/isolate,
// runtime/restclient, runtime/dryrun and runtime/dryrun/history; lsp,
// web, scripttest and cmd/restls import it, never the other way.
package engine
