package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

// TestServeEndsDescriptionLoads: a description still being fetched when
// the editor says shutdown and exit is cancelled, and serve returns only
// after its load ended: the load's log line is written before the
// process exits. Before, serve returned with the load running (in a
// test's in-process serve, or a test's language server, it logged after
// the test).
func TestServeEndsDescriptionLoads(t *testing.T) {
	t.Parallel()
	asked := make(chan struct{}, 4)
	release := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-release:
		}
		http.Error(w, "held", http.StatusServiceUnavailable)
	}))
	t.Cleanup(func() {
		close(release)
		hs.Close()
	})
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config", "application.yml"),
		[]byte("scriptservice:\n  api:\n    - serviceId: shop\n      url: https://shop.example.test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(dir, "restls.log")
	p := startServe(t, nil, "--config-root", filepath.Join(dir, "config"), "--openapi", "shop="+hs.URL+"/api.json", "--log-file", logFile)
	if err := p.call(t, protocol.MethodInitialize, &protocol.InitializeParams{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.conn.Notify(context.Background(), protocol.MethodInitialized, &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-asked:
	case <-time.After(30 * time.Second):
		t.Fatalf("the description was never asked for; stderr:\n%s", p.stderr.String())
	}
	if err := p.call(t, protocol.MethodShutdown, nil, nil); err != nil {
		t.Fatal(err)
	}
	_ = p.conn.Notify(context.Background(), protocol.MethodExit, nil)
	if code := p.wait(t); code != 0 {
		t.Errorf("exit status %d, want 0; stderr:\n%s", code, p.stderr.String())
	}
	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "OpenAPI description not loaded") || !strings.Contains(string(data), "context canceled") {
		t.Errorf("no log line of the cancelled load before serve returned:\n%s", data)
	}
}
