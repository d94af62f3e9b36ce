package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/internal/lsptest"
)

// BenchmarkServeRunScriptFixtures measures a dry run from the editor with
// fixtures, request to result: restls.runScript over the real process's
// stdio, with 1,000 configured services and a script whose three calls
// are answered by the fixture file beside it (mock "auto"). The child's
// start, its configuration load and the result's way back are inside the
// window. Allocations are the test client's (it decodes the result).
func BenchmarkServeRunScriptFixtures(b *testing.B) {
	root := benchConfig(b, 1000)
	dir := b.TempDir()
	script := filepath.Join(dir, "orders.js")
	text := `var a = api.rest.v1.get("service-00000", {}, {});
var c = api.rest.v1.get("service-00002", {}, {});
var e = api.rest.v1.get("service-00004", {}, {});
console.log("three calls", a.status, c.status, e.status);
return [a.body, c.body, e.body];
`
	var fixtures strings.Builder
	for i, id := range []string{"service-00000", "service-00002", "service-00004"} {
		fixtures.WriteString("- serviceId: " + id + "\n  method: GET\n  status: 200\n  headers: {Content-Type: application/json}\n")
		fixtures.WriteString("  body: {id: " + string(rune('1'+i)) + ", items: [a, b, c], name: fixture}\n")
	}
	for file, data := range map[string]string{script: text, filepath.Join(dir, "orders.mock.yaml"): fixtures.String()} {
		if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	p := startServe(b, nil, "--config-root", root, "--log-level", "warn")
	initialize(b, p)
	u := uri.File(script)
	open(p, u, text)
	arg, _ := json.Marshal(map[string]any{"uri": string(u), "mock": "auto"})
	params := &protocol.ExecuteCommandParams{Command: "restls.runScript", Arguments: []protocol.LSPAny{arg}}
	run := func() {
		var res struct {
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
			Calls []json.RawMessage `json:"calls"`
			Mode  string            `json:"mode"`
		}
		if err := p.call(b, protocol.MethodWorkspaceExecuteCommand, params, &res); err != nil {
			b.Fatal(err)
		}
		if res.Error != nil || len(res.Calls) != 3 || res.Mode != "mock" {
			b.Fatalf("run: %+v mode %q, %d calls\n%s", res.Error, res.Mode, len(res.Calls), p.stderr.String())
		}
	}
	run() // warm up: the registry loads on first use
	var ds []time.Duration
	for b.Loop() {
		start := time.Now()
		run()
		ds = append(ds, time.Since(start))
	}
	lsptest.ReportPercentiles(b, "", ds)
}
