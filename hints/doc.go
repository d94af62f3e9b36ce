// Package hints is the editor intelligence of restls for api.rest.v1
// scripts: completion, signature help, hover and diagnostics with quick
// fixes, each a pure function of a Document (script text), a byte offset
// and a config.Registry snapshot.
//
// Completion, signature help and hover work from a tolerant scanner over
// the text before the cursor (strings, template literals, comments, regular
// expression literals, bracket nesting), reading a near window first and a
// wider one only when needed, so they work on broken, half-typed code and
// cost the same on long scripts. Diagnostics use the goja parser's AST,
// parsed once per Document.
//
// All offsets are byte offsets into the UTF-8 text. A nil registry means the
// registry failed to load: serviceId hints are then missing, everything else
// works. No function here panics on any input, and no result ever holds a
// credential.
//
// A script nested beyond jsdepth.Max is never parsed: it gets one
// script-too-deep diagnostic, because goja's parser recurses once per level
// and a goroutine stack overflow cannot be recovered.
//
// With API descriptions (Display.APIs, package openapi's index, attached
// by the caller) it also completes path segments, query parameters,
// payload keys and response fields, hovers and opens the matched
// operation, and checks literal arguments against it (openapi_complete.go,
// openapi_hover.go, definition.go, diagnose_openapi.go, around what
// openapi.go shares): literal values against the operation's schemas
// with santhosh-tekuri/jsonschema, the validators coming compiled from
// the index (diagnose_schema.go); it reads no description itself.
//
// WorstCaseOf (worstcase.go) adds up a script's static worst-case time
// from the timeouts in force (config.TimeoutPair.Effective, the rule the
// runtime waits by), for the editor's first line and the worst-case-time
// diagnostic above Display.TimeLimit.
//
// CallSites (callsites.go) lists a script's api.rest.v1 calls with their
// ranges, from the same parse, for the project index behind navigation
// (package workspace/index).
//
// hints imports config, openapi, jsdepth, the goja parser and the JSON
// Schema validator only: never
// LSP types, never the runtime. The lsp package adapts these results to the protocol.
package hints
