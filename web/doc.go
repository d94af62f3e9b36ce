// Package web is restls's HTTP face, `restls serve --http`: the hints
// backend a designer editor talks to, and the designer page itself.
//
// It owns the HTTP endpoints (GET /v1/services, /v1/calls, /v1/status,
// /v1/schema/mock.json, /v1/schema/restls.json, /healthz, /readyz,
// /metrics, POST /v1/run, /mcp: package mcp's server behind the key or
// a role, its runs through the gate), the operators' port and its metrics (ops.go), reloads an operator asks for (ReloadBySignal: cmd/restls owns the signal), their security
// (bearer token, CORS allow-list, loopback-only default, and the rule
// that a non-loopback address needs a token: CheckListen), who a request
// comes from (access.go: the key, an OpenID Connect token verified with
// go-oidc, or an authenticating proxy's headers) and their role, the gate
// every dry run passes (gate.go: --allow-run, roles, a runner's
// environments and serviceIds) and the audit trail of runs and reloads
// (audit.go), the WebSocket
// transport that carries the language server to browser editors (/lsp: one
// LSP session per socket, one JSON-RPC message per text frame, writes
// queued so a slow client never blocks anyone else), what a designer
// session may do (run and reload only with the key; its settings never
// choose configuration sources, lspws.go), and the designer page embedded
// with go:embed (GET /).
//
// web may import config, engine (the run request: POST /v1/run and the
// gate read and build engine.Request, and POST /v1/run admits with the
// engine's slot), mcp (the server /mcp serves), hints, lsp, runtime/dryrun (the type of a run's
// result, which POST /v1/run answers as it is), runtime/restclient (only
// for the fixture format: ParseMock checks a run's inline mock, MockSchema
// is served) and workspace (the project: Options.Session, which every
// endpoint but /lsp asks for status, services, environments and
// reload; restls.yaml and its schema, path display,
// ErrRunnerBusy). Only lspws.go imports lsp, for the
// language server it serves on /lsp (internal/layering's table holds web
// to it). It must not
// import runtime (dry runs reach it through the injected Options.Runner)
// or anything in cmd; it never
// reads a credential: the hints map and the status carry none.
package web
