//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/lsp"
	"github.com/restls/restls/openapi"
)

// writeRefChain writes a description whose answer is the head of a chain
// of n local $refs (#/c/1 -> #/c/2 -> ... -> #/c/n) and returns its size.
func writeRefChain(t *testing.T, path string, n int) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"chain","version":"1"},"servers":[{"url":"https://chain.example.test"}],` +
		`"paths":{"/a":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/c/1"}}}}}}}},"c":{`)
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "\"%d\":{\"$ref\":\"#/c/%d\"},\n", i, i+1)
		if b.Len() > 1<<20 {
			if _, err := f.WriteString(b.String()); err != nil {
				t.Fatal(err)
			}
			b.Reset()
		}
	}
	fmt.Fprintf(&b, `"%d":{"type":"object"}}}`, n)
	if _, err := f.WriteString(b.String()); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// TestServeOpenAPIRefChain (issue 23, finding 1): a description of 24 MB,
// under the size limit, whose answer is a chain of 1.1 million $refs
// killed `restls serve` with "fatal error: stack overflow". The server
// stays up, answers, loads the description with a warning on the file
// that names the $ref where the walk stopped, and ends on exit within a
// memory bound.
func TestServeOpenAPIRefChain(t *testing.T) {
	// Independent of every other test (its own files and processes):
	// it runs beside the other slow ones (make test's time, issue 33).
	t.Parallel()
	if testing.Short() {
		t.Skip("writes and loads a 24 MB description")
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "config"), 0o755)
	os.WriteFile(filepath.Join(dir, "config", "application.yml"),
		[]byte("scriptservice:\n  api:\n    - serviceId: chain\n      url: https://chain.example.test\n"), 0o644)
	desc := filepath.Join(dir, "chain.json")
	if size := writeRefChain(t, desc, 1_100_000); size < 24<<20 || size > openapi.MaxSize {
		t.Fatalf("the description has %d bytes, want 24 MB to the size limit", size)
	}
	loaded := make(chan struct{})
	warned := make(chan string, 1)
	var once, warnOnce sync.Once
	handler := func(_ context.Context, req *jsonrpc2.Request) (any, error) {
		switch req.Method() {
		case lsp.MethodStatus:
			var st lsp.Status
			if json.Unmarshal(req.Params(), &st) == nil && len(st.OpenAPI) == 1 && st.OpenAPI[0].State == "loaded" {
				once.Do(func() { close(loaded) })
			}
		case protocol.MethodTextDocumentPublishDiagnostics:
			var d struct {
				URI         string `json:"uri"`
				Diagnostics []struct {
					Message string `json:"message"`
				} `json:"diagnostics"`
			}
			if json.Unmarshal(req.Params(), &d) == nil && strings.HasSuffix(d.URI, "/chain.json") {
				for _, x := range d.Diagnostics {
					warnOnce.Do(func() { warned <- x.Message })
				}
			}
		}
		return nil, nil
	}
	p := startServe(t, handler, "--config-root", filepath.Join(dir, "config"), "--log-level", "warn", "--openapi", "chain="+desc)
	var res protocol.InitializeResult
	if err := p.call(t, protocol.MethodInitialize, &protocol.InitializeParams{}, &res); err != nil {
		t.Fatal(err)
	}
	if err := p.conn.Notify(context.Background(), protocol.MethodInitialized, &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	u := uri.File(filepath.Join(dir, "a.js"))
	text := "var r = api.rest.v1.get(\"chain\", {pathParams: [\"a\"]}, {});\nr.body."
	if err := p.conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "javascript", Version: 1, Text: text}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-loaded:
	case <-time.After(3 * time.Minute): // a hang guard: about 15 s alone, more beside other tests
		t.Fatalf("no restls/status with the description loaded; stderr:\n%s", p.stderr.String())
	}
	select {
	case msg := <-warned:
		if !strings.Contains(msg, `$ref "#/c/`) || !strings.Contains(msg, "nested deeper than") {
			t.Errorf("the warning on chain.json does not name the $ref: %q", msg)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("no warning on chain.json")
	}
	var l protocol.CompletionList
	if err := p.call(t, protocol.MethodTextDocumentCompletion, &protocol.CompletionParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u},
			Position: protocol.Position{Line: 1, Character: uint32(len("r.body."))}}}, &l); err != nil {
		t.Fatalf("completion after loading: %v; stderr:\n%s", err, p.stderr.String())
	}
	if err := p.call(t, protocol.MethodShutdown, nil, nil); err != nil {
		t.Fatalf("shutdown: %v; stderr:\n%s", err, p.stderr.String())
	}
	_ = p.conn.Notify(context.Background(), protocol.MethodExit, nil)
	if code := p.wait(t); code != 0 {
		t.Errorf("exit status %d; stderr:\n%s", code, p.stderr.String())
	}
	// The tree of 2.2 million values is most of it (about 500 MB when
	// built); the walk adds little.
	if rss, ok := peakRSS(p.cmd.ProcessState); ok {
		t.Logf("peak RSS %d MB", rss>>20)
		if rss > 768<<20 {
			t.Errorf("peak RSS %d MB, want at most 768", rss>>20)
		}
	}
}
