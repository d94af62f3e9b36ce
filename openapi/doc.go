// Package openapi reads OpenAPI descriptions (3.0, 3.1 and Swagger 2.0,
// JSON or YAML) into a compact Index of what the editor hints use: the
// operations with their path templates, query parameters, request body and
// answer shapes, and where each is written. The full document is dropped
// once indexed.
//
// It also loads descriptions from files and http(s) URLs (size limit,
// timeout, ETag, the last good copy kept on failure) and attaches them to
// the services of a configuration snapshot (Attach): the matching of a
// call to an operation (Match, Next) is pure and is what package hints
// uses.
//
// It keeps the request schemas (bodies and parameters) and hands them to
// santhosh-tekuri/jsonschema in the description's dialect, compiled once
// (validate.go): the hints check literal values with them. Built with
// BuildAnswers (or a Loader with Answers), it keeps the documented
// answers' schemas and examples too: CheckAnswer holds an answer to them
// (answer.go: restls run, test, check and the editor's dry runs; a fast
// path that can only prove an answer valid runs first, answer_fast.go), and
// AnswerExample builds the answer a fixture gives (example.go).
//
// openapi may import config only: never hints, lsp or the runtime.
package openapi
