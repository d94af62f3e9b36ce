package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
	"github.com/restls/restls/internal/lsptest"
	"github.com/restls/restls/workspace"
)

// BenchmarkFixtureAction measures textDocument/codeAction on a call with
// "Add a fixture for this call" beside a fixture file of 500 fixtures:
// as the cursor moves (cached) and when the file or the descriptions
// changed (built again: the file parsed, the fixture built and added).
//
//	go test -run '^$' -bench FixtureAction -benchtime 200x ./lsp/
func BenchmarkFixtureAction(b *testing.B) {
	dir := b.TempDir()
	var fx strings.Builder
	for i := range 500 {
		fmt.Fprintf(&fx, "- serviceId: shop\n  method: GET\n  path: orders/%d\n  body: {id: %d, state: open}\n", i, i)
	}
	writeFiles(b, dir, map[string]string{
		"config/application.yml": "scriptservice:\n  api:\n    - serviceId: shop\n      url: https://shop.example.test/api\n",
		"shop.json":              actionDescription,
		"orders.mock.yaml":       fx.String(),
	})
	src := []workspace.APISource{{ServiceID: "shop", Location: filepath.Join(dir, "shop.json")}}
	srv := newTestServer(b, Options{PollInterval: -1, Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}, OpenAPI: src})
	srv.ws.AnswerDescriptions().SetDelay(0)
	srv.ws.Descriptions().SetDelay(0)
	c := connect(b, srv, clientOptions{root: dir})
	text := "var id = context.input.id;\nvar o = api.rest.v1.get(\"shop\", {pathParams: [\"orders\", id]}, {});\n"
	u := uri.File(filepath.Join(dir, "orders.js"))
	c.open(u, text)
	for _, store := range []*workspace.Descriptions{srv.ws.AnswerDescriptions(), srv.ws.Descriptions()} {
		if err := store.Wait(context.Background(), src); err != nil {
			b.Fatal(err)
		}
	}
	pos := newMapper(text).position(strings.Index(text, "pathParams"))
	for _, cached := range []bool{true, false} {
		b.Run(fmt.Sprintf("cached=%v", cached), func(b *testing.B) {
			var ds []time.Duration
			for b.Loop() {
				if !cached {
					for _, ses := range srv.sessionList() {
						ses.fixtureMu.Lock()
						ses.fixtureActs = nil
						ses.fixtureMu.Unlock()
					}
				}
				start := time.Now()
				if got := fixtureActionsAt(b, c, u, pos); len(got) != 1 {
					b.Fatalf("actions %v", got)
				}
				ds = append(ds, time.Since(start))
			}
			lsptest.ReportPercentiles(b, "", ds)
		})
	}
}

// BenchmarkFixtureDiagnostics measures a keystroke's diagnostics (change
// to publishDiagnostics) of a script with a description, without a
// fixture file beside it and with one of 500 fixtures: what
// publishFixtures adds once the file has been checked (a stat).
//
//	go test -run '^$' -bench FixtureDiagnostics -benchtime 200x ./lsp/
func BenchmarkFixtureDiagnostics(b *testing.B) {
	for _, withFile := range []bool{false, true} {
		b.Run(fmt.Sprintf("fixtureFile=%v", withFile), func(b *testing.B) {
			dir := b.TempDir()
			files := map[string]string{
				"config/application.yml": "scriptservice:\n  api:\n    - serviceId: shop\n      url: https://shop.example.test/api\n",
				"shop.json":              actionDescription,
			}
			if withFile {
				var fx strings.Builder
				for i := range 500 {
					fmt.Fprintf(&fx, "- serviceId: shop\n  method: GET\n  path: orders/%d\n  body: {id: %d, state: lost}\n", i, i)
				}
				files["orders.mock.yaml"] = fx.String()
			}
			writeFiles(b, dir, files)
			src := []workspace.APISource{{ServiceID: "shop", Location: filepath.Join(dir, "shop.json")}}
			srv := newTestServer(b, Options{PollInterval: -1, DiagnosticsDelay: time.Microsecond, Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}, OpenAPI: src})
			srv.ws.AnswerDescriptions().SetDelay(0)
			srv.ws.Descriptions().SetDelay(0)
			c := connect(b, srv, clientOptions{root: dir})
			u := uri.File(filepath.Join(dir, "orders.js"))
			text := "var o = api.rest.v1.get(\"shop\", {pathParams: [\"orders\", \"1\"]}, {});\n"
			c.open(u, text)
			for _, store := range []*workspace.Descriptions{srv.ws.AnswerDescriptions(), srv.ws.Descriptions()} {
				if err := store.Wait(context.Background(), src); err != nil {
					b.Fatal(err)
				}
			}
			c.diagnostics(u, 0, 0)
			if withFile {
				fx := uri.File(filepath.Join(dir, "orders.mock.yaml"))
				c.waitFor("fixture diagnostics", func() bool { p, ok := c.diags[fx]; return ok && len(p.params.Diagnostics) > 0 })
			}
			var ds []time.Duration
			for b.Loop() {
				since := c.now()
				start := time.Now()
				v := c.change(u, &protocol.TextDocumentContentChangeWholeDocument{Text: text})
				c.diagnostics(u, v, since)
				ds = append(ds, time.Since(start))
			}
			lsptest.ReportPercentiles(b, "", ds)
		})
	}
}
