// Package restclient is the HTTP engine behind api.rest.v1: it builds the
// final URL from a service's configured address and a call's PATH, checks
// and completes headers, encodes JSON and multipart bodies, applies basic
// and OAuth2 authorization (with its own token cache), enforces the
// connection and read timeouts and the response size limit, and records a
// trace of every call with credentials masked. In mock mode a Mock answers
// calls from fixtures (mock.go; the format's JSON Schema is MockSchema); a
// Recorder writes a live run's answers as such fixtures (record.go).
//
// It is plain Go on net/http. It must not import the JavaScript engine, the
// LSP packages or any restls package other than config; the runtime package
// adapts it to scripts.
//
// Failures other than an HTTP status are *Error values with a stable Code
// (see the Code* constants and docs/runtime.md); invalid call arguments are
// *ArgError values naming the parameter.
package restclient
