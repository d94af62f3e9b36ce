package main

import (
	"testing"
	"time"

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
	root := benchConfig(b, 10000)
	text, pos := lsptest.BigScript(10000)
	u := uri.File("/ws/big.js")
	var ds []time.Duration
	for b.Loop() {
		b.StopTimer()
		p := startServe(b, nil, "--config-root", root, "--log-level", "warn", "--openapi", desc, "--openapi", "service-00001="+desc)
		if err := p.call(b, protocol.MethodShutdown, nil, nil); err == nil {
			b.Fatal("shutdown before initialize was accepted")
		}
		b.StartTimer()
		start := time.Now()
		initialize(b, p)
		open(p, u, text)
		var l protocol.CompletionList
		if err := p.call(b, protocol.MethodTextDocumentCompletion, completionParams(u, pos), &l); err != nil || len(l.Items) == 0 {
			b.Fatalf("completion: %v, %d items", err, len(l.Items))
		}
		ds = append(ds, time.Since(start))
		b.StopTimer()
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
		b.StartTimer()
	}
	lsptest.ReportPercentiles(b, "", ds)
}
