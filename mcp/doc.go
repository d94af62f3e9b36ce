// Package mcp is restls for coding agents: a Model Context Protocol
// server (the official Go SDK, github.com/modelcontextprotocol/go-sdk)
// that answers from the same project the editor, restls check and the
// designer read. `restls mcp` serves it on stdio; `restls serve --http`
// on /mcp (Streamable HTTP, stateless), behind the HTTP server's
// authentication, Host and Origin rules and roles.
//
// It owns the tools (services, contract, check, complete, references,
// impact, curl, fixtures, and the dry runs when a runner is given), the
// resources (the api.rest.v1 contract, the project file, the services
// map, the JSON Schemas of fixtures, test files and the project file),
// the prompts, the instructions sent at initialize, and the rules every
// answer passes: no credential of the configuration in any output
// (redact.go, the last step before a result leaves), path arguments
// confined to the project root with their links followed (paths.go),
// every argument and answer bounded (limits.go).
//
// It is an adapter, as lsp is: the project is the process's
// workspace.Session (the language server's on serve --http), each call
// a snapshot of the environment it asks for by the session's rule; the hints
// from package hints, the checks from check, the navigation from
// the session's project index (the language server's), curl conversion from runtime/curlin; it never reads a
// configuration file, picks an environment or finds fixtures itself.
//
// mcp may import config, openapi, hints, check, workspace,
// workspace/index, runtime/curlin, runtime/dryrun, runtime/restclient
// (the Redactor and the fixture format), scripttest (the test file's
// schema), textpos and docs. It must not import lsp, web, runtime or
// cmd; web imports it to serve /mcp, cmd/restls wires `restls mcp`.
package mcp
