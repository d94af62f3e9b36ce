package web

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/lsp"
)

func TestLSPCompletionOverWebSocket(t *testing.T) {
	t.Parallel()
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, nil)
	ctx := testCtx(t)
	c, err := dialLSP(t, ctx, wsURL(hs), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	const uri = "file:///designer/a.js"
	// A statement end between the two lines: "api.rest.v1.\napi" would be
	// one member chain.
	text := "api.rest.v1.;\napi.rest.v1.get(\"\n"
	if err := c.open(ctx, uri, text); err != nil {
		t.Fatal(err)
	}
	calls, err := c.complete(ctx, uri, 0, len("api.rest.v1."))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"get", "delete", "post", "put", "patch"} {
		if !slices.Contains(calls, want) {
			t.Errorf("completion after api.rest.v1. = %q, want %q among them", calls, want)
		}
	}
	ids, err := c.complete(ctx, uri, 1, len(`api.rest.v1.get("`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"crm", "geo", "crm-customers"} {
		if !slices.Contains(ids, want) {
			t.Errorf("completion in the serviceId argument = %q, want %q among them", ids, want)
		}
	}
}

// TestLSPSourcesRefused: a designer session whose settings name other
// configuration sources is refused them (restls/status says why, with
// CodeSourcesRefused in its diagnostics) and nothing they name is loaded,
// whatever the key.
func TestLSPSourcesRefused(t *testing.T) {
	t.Parallel()
	var loaded sync.Map
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, nil)
	s.opts.LSP = lsp.NewServer(lsp.Options{Sources: config.Sources{ConfigRoot: exampleRoot}, PollInterval: -1,
		Load: func(src config.Sources) *config.Snapshot {
			loaded.Store(src.ConfigRoot, true)
			return config.Load(src)
		}})
	ctx := testCtx(t)
	c, err := dialLSP(t, ctx, wsURL(hs)+"?access_token="+s.key, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	other := t.TempDir()
	var res json.RawMessage
	if err := c.call(ctx, "initialize", map[string]any{"capabilities": map[string]any{},
		"initializationOptions": map[string]any{"configRoot": other, "registryUrl": "http://127.0.0.1:1"}}, &res); err != nil {
		t.Fatal(err)
	}
	if err := c.conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	n, err := c.waitNote(ctx, func(n note) bool { return n.method == "restls/status" })
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(n.params), "not honoured by restls serve --http") {
		t.Errorf("restls/status = %s", n.params)
	}
	if _, ok := loaded.Load(other); ok {
		t.Error("the server loaded the configRoot a designer client named")
	}
}

// TestStdioSession: the editor on stdio beside the HTTP backend may run
// and reload, and is held to the operator's sources like a designer
// session (the mechanism is lsp's, TestSessionSourcesRefused).
func TestStdioSession(t *testing.T) {
	t.Parallel()
	o := StdioSession()
	if !o.MayRun || !o.MayReload || o.SourcesRefused == nil || o.SourcesRefused.Code != codeSourcesRefused ||
		!strings.Contains(o.SourcesRefused.Message, "not honoured by restls serve --http") {
		t.Errorf("StdioSession() = %+v", o)
	}
}
