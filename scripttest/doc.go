// Package scripttest runs script tests for CI (restls test): NAME.test.yaml
// files that name a script, its kind, context.input and the fixtures that
// answer its calls (the --mock format), and what to expect: the result,
// a subset of it, or the thrown error, the calls made and the console
// output. It compares, writes readable diffs by JSON path, rewrites the
// expectations with the actual outcome (Update), and reports as text,
// JSON or JUnit XML.
//
// It imports config, runtime and runtime/restclient only: never hints,
// lsp or anything above.
package scripttest
