package lsp

import (
	"path/filepath"
	"slices"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

// While a line is half-typed the script does not parse: completion of an
// answer's fields that reached a variable through the flow (here an
// element of r.body.items) uses the answer types of the version before
// the keystroke.
func TestFlowCompletionWhileTyping(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config/application.yml": "scriptservice:\n  api:\n    - serviceId: shop\n      url: https://shop.example.test/api\n",
		"shop.yaml": "openapi: 3.0.3\ninfo: {title: Shop, version: '1'}\npaths:\n  /orders:\n    get:\n      responses:\n" +
			"        '200':\n          description: ok\n          content:\n            application/json:\n              schema:\n" +
			"                type: object\n                properties:\n                  items:\n                    type: array\n" +
			"                    items:\n                      type: object\n                      properties:\n" +
			"                        sku: {type: string}\n                        price: {type: number}\n",
	})
	srv := newTestServer(t, Options{PollInterval: -1, Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")},
		OpenAPI: []workspace.APISource{{ServiceID: "shop", Location: filepath.Join(dir, "shop.yaml")}}})
	c := connect(t, srv, clientOptions{root: dir})
	waitAPIs(c)
	text := "var r = api.rest.v1.get(\"shop\", {pathParams: [\"orders\"]}, {});\nvar items = r.body.items;\nitems.forEach(function (it) {\n\n});\n"
	u := uri.File(filepath.Join(dir, "a.js"))
	c.open(u, text)
	c.diagnostics(u, 1, 0)
	// Type "it." on the empty line of the callback: the text no longer parses.
	at := protocol.Position{Line: 3, Character: 0}
	c.change(u, &protocol.TextDocumentContentChangePartial{Range: protocol.Range{Start: at, End: at}, Text: "  it."})
	got := labels(c.completion(u, protocol.Position{Line: 3, Character: 5}))
	if !slices.Contains(got, "sku") || !slices.Contains(got, "price") {
		t.Fatalf("completion after \"it.\" = %q, want sku and price", got)
	}
}
