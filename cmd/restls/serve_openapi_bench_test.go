package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/internal/lsptest"
	"github.com/restls/restls/internal/openapitest"
)

// BenchmarkServeInitializeToFirstCompletionOpenAPI is
// BenchmarkServeInitializeToFirstCompletion with GitHub's description
// attached (--openapi, matched by its servers): the description loads in
// the background and must not delay the first serviceId completion
// (issue 17: under 100 ms).
//
//	go test -run '^$' -bench ServeInitializeToFirstCompletion ./cmd/restls/
func BenchmarkServeInitializeToFirstCompletionOpenAPI(b *testing.B) {
	desc := openapitest.GitHub(b)
	initializeToFirstCompletion(b, "--config-root", benchConfig(b, 10000), "--openapi", desc, "--openapi", "service-00001="+desc)
}

// BenchmarkServeStdioOpenAPI is BenchmarkServeStdio for the completions an
// API description gives, through the real process: the next path segment
// after `["repos", o, r, ` and the fields of `r.body.` with GitHub's
// description attached to one of 10,000 services, each against a trivial
// hover (issue 17: end-to-end p99 within 2x of a trivial request).
//
//	go test -run '^$' -bench ServeStdioOpenAPI -benchtime 3000x ./cmd/restls/
func BenchmarkServeStdioOpenAPI(b *testing.B) {
	desc := openapitest.GitHub(b)
	root := benchConfig(b, 10000)
	p := startServe(b, nil, "--config-root", root, "--log-level", "warn", "--openapi", "service-00001="+desc)
	initialize(b, p)
	path := "var o = 'a', r = 'b';\nvar x = api.rest.v1.get(\"service-00001\", {pathParams: [\"repos\", o, r, "
	body := "var o = 'a', r = 'b';\nvar res = api.rest.v1.get(\"service-00001\", {pathParams: [\"repos\", o, r]}, {});\nres.body."
	pathURI, bodyURI, small := uri.File("/ws/path.js"), uri.File("/ws/body.js"), uri.File("/ws/small.js")
	open(p, pathURI, path)
	open(p, bodyURI, body)
	open(p, small, "var x = 1; // nothing to hover\n")
	end := func(text string) protocol.Position {
		return protocol.Position{Line: uint32(strings.Count(text, "\n")), Character: uint32(len(text) - strings.LastIndex(text, "\n") - 1)}
	}
	// The description loads in the background: wait until it answers.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var l protocol.CompletionList
		if err := p.call(b, protocol.MethodTextDocumentCompletion, completionParams(pathURI, end(path)), &l); err != nil {
			b.Fatal(err)
		}
		if slices.ContainsFunc(l.Items, func(it protocol.CompletionItem) bool { return it.Label == "issues" }) {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the description gave no path segments within 30 s: %d items", len(l.Items))
		}
		time.Sleep(50 * time.Millisecond) // polling the server's own background load
	}
	measure := func(b *testing.B, method string, params any) {
		var ds []time.Duration
		for b.Loop() {
			start := time.Now()
			var raw jsonrpc2.RawMessage
			if err := p.call(b, method, params, &raw); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(start))
			b.ReportMetric(float64(len(raw)), "bytes")
		}
		lsptest.ReportPercentiles(b, "", ds)
	}
	b.Run("pathParams", func(b *testing.B) {
		measure(b, protocol.MethodTextDocumentCompletion, completionParams(pathURI, end(path)))
	})
	b.Run("body", func(b *testing.B) {
		measure(b, protocol.MethodTextDocumentCompletion, completionParams(bodyURI, end(body)))
	})
	b.Run("trivial", func(b *testing.B) {
		measure(b, protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: small}, Position: protocol.Position{Line: 0, Character: 20}}})
	})
}
