package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

// TestFixtureDiagnostics (issue 27): the fixture file beside an open
// script gets openapi-fixture-* diagnostics at the value at fault, once
// the descriptions with their answers' schemas load; the fixture file
// opened and mended in the editor is checked as edited.
func TestFixtureDiagnostics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config/application.yml": "scriptservice:\n  api:\n    - serviceId: shop\n      url: https://shop.example.test/api\n",
		"shop.json": `{"openapi":"3.0.3","info":{"title":"Shop","version":"1"},"paths":{"/orders/{id}":{"get":{
			"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","properties":{"id":{"type":"integer"}}}}}}}}}}}`,
		"orders.mock.yaml": "- serviceId: shop\n  method: GET\n  path: orders/1\n  body: {id: one}\n- serviceId: shop\n  method: GET\n  path: orders/2\n  status: 404\n",
	})
	srv := newTestServer(t, Options{PollInterval: -1, Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")},
		OpenAPI: []workspace.APISource{{ServiceID: "shop", Location: filepath.Join(dir, "shop.json")}}})
	srv.ws.AnswerDescriptions().SetDelay(0)
	srv.ws.Descriptions().SetDelay(0)
	c := connect(t, srv, clientOptions{root: dir})
	c.open(uri.File(filepath.Join(dir, "orders.js")), `api.rest.v1.get("shop", {pathParams: ["orders", "1"]}, {});`)
	fixtures := uri.File(filepath.Join(dir, "orders.mock.yaml"))
	t.Cleanup(func() { // nothing loads after the test
		for _, store := range []*workspace.Descriptions{srv.ws.AnswerDescriptions(), srv.ws.Descriptions()} {
			_ = store.Wait(context.Background(), []workspace.APISource{{ServiceID: "shop", Location: filepath.Join(dir, "shop.json")}})
		}
	})
	var got []string
	c.waitFor("fixture diagnostics", func() bool {
		p, ok := c.diags[fixtures]
		if !ok || len(p.params.Diagnostics) == 0 {
			return false
		}
		got = nil
		for _, d := range p.params.Diagnostics {
			got = append(got, fmt.Sprintf("%v %d:%d %s", d.Code, d.Range.Start.Line, d.Range.Start.Character, d.Message))
		}
		return true
	})
	want := []string{"openapi-fixture-body 3:13 fixture 1 (serviceId shop): GET /orders/{id}, status 200: /id: got string, want integer",
		"openapi-fixture-status 7:10 fixture 2 (serviceId shop): GET /orders/{id}: status 404 is not documented (it documents 200)"}
	if len(got) != 2 || got[0] != want[0] || !strings.HasPrefix(got[1], want[1]) {
		t.Fatalf("diagnostics on the fixture file:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Mended in the editor, not saved: checked as edited.
	c.open(fixtures, "- serviceId: shop\n  method: GET\n  path: orders/1\n  body: {id: 1}\n")
	c.waitFor("no fixture diagnostics", func() bool {
		p, ok := c.diags[fixtures]
		return ok && len(p.params.Diagnostics) == 0
	})
}
