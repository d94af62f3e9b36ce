package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/lsp"
)

// restls serve --openapi ID=FILE: the flag reaches the language server,
// the description loads in the background (restls/status says when) and
// pathParams completion offers its segments.
func TestServeOpenAPIFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "config"), 0o755)
	os.WriteFile(filepath.Join(dir, "config", "application.yml"),
		[]byte("scriptservice:\n  api:\n    - serviceId: shop\n      url: https://shop.example.test/api\n"), 0o644)
	shop, err := filepath.Abs("../../openapi/testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	loaded := make(chan struct{})
	var once sync.Once
	handler := func(_ context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() == lsp.MethodStatus {
			var st lsp.Status
			if json.Unmarshal(req.Params(), &st) == nil && len(st.OpenAPI) == 1 && st.OpenAPI[0].State == "loaded" {
				once.Do(func() { close(loaded) })
			}
		}
		return nil, nil
	}
	p := startServe(t, handler, "--config-root", filepath.Join(dir, "config"), "--log-level", "warn", "--openapi", "shop="+shop)
	var res protocol.InitializeResult
	if err := p.call(t, protocol.MethodInitialize, &protocol.InitializeParams{}, &res); err != nil {
		t.Fatal(err)
	}
	if err := p.conn.Notify(context.Background(), protocol.MethodInitialized, &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	u := uri.File(filepath.Join(dir, "a.js"))
	text := `api.rest.v1.get("shop", {pathParams: []}, {});`
	if err := p.conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "javascript", Version: 1, Text: text}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-loaded:
	case <-time.After(30 * time.Second):
		t.Fatalf("no restls/status with the description loaded; stderr:\n%s", p.stderr.String())
	}
	var l protocol.CompletionList
	pos := protocol.Position{Line: 0, Character: uint32(len(`api.rest.v1.get("shop", {pathParams: [`))}
	if err := p.call(t, protocol.MethodTextDocumentCompletion, &protocol.CompletionParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos}}, &l); err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, it := range l.Items {
		labels = append(labels, it.Label)
	}
	if !slices.Contains(labels, "orders") || !slices.Contains(labels, "customers") {
		t.Errorf("completion = %q", labels)
	}
}
