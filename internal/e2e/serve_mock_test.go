package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/mccutchen/go-httpbin/v2/httpbin"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// TestServeRunScriptMocks drives restls.runScript's mock and record
// arguments through the real binary and its child runs: record "auto"
// writes the file beside the script from go-httpbin, and mock "auto"
// (the file present) and mock with a relative path replay it with the
// service gone; mock "auto" without the file runs live.
func TestServeRunScriptMocks(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	bin := httpbin.New().Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		bin.ServeHTTP(w, r)
	}))
	defer srv.Close()
	dir := t.TempDir()
	svcXML := writeFile(t, dir, "services.xml", fmt.Sprintf(`<scriptservice><api serviceId="bin" url=%q/></scriptservice>`, srv.URL+"/anything"))
	script := writeFile(t, dir, "orders.js", `var r = api.rest.v1.get("bin", {pathParams: ["orders"], queryParams: {id: "7"}}, {});
return {url: r.body.url, method: r.body.method, args: r.body.args};
`)
	beside := filepath.Join(dir, "orders.mock.yaml")

	p := startServe(t, nil, "--service-xml", svcXML)
	if err := p.call(t, protocol.MethodInitialize, &protocol.InitializeParams{}, nil); err != nil {
		t.Fatal(err)
	}
	_ = p.conn.Notify(context.Background(), protocol.MethodInitialized, &protocol.InitializedParams{})
	text, _ := os.ReadFile(script)
	u := uri.File(script)
	_ = p.conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "javascript", Version: 1, Text: string(text)},
	})
	type result struct {
		Result json.RawMessage `json:"result"`
		Error  any             `json:"error"`
		Calls  []any           `json:"calls"`
		Mode   string          `json:"mode"`
	}
	runScript := func(arg map[string]any) result {
		t.Helper()
		arg["uri"] = string(u)
		raw, _ := json.Marshal(arg)
		var res result
		if err := p.call(t, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: "restls.runScript", Arguments: []protocol.LSPAny{raw}}, &res); err != nil {
			t.Fatalf("runScript %v: %v\n%s", arg, err, p.stderr.String())
		}
		if res.Error != nil || len(res.Calls) != 1 {
			t.Fatalf("runScript %v: %+v", arg, res)
		}
		return res
	}

	live := runScript(map[string]any{"mock": "auto"})
	if live.Mode != "live" || hits.Load() != 1 {
		t.Fatalf("mock auto without %s: mode %q, %d calls to the service; want live, 1", beside, live.Mode, hits.Load())
	}
	rec := runScript(map[string]any{"record": "auto"})
	if rec.Mode != "record" || hits.Load() != 2 {
		t.Fatalf("record auto: mode %q, %d calls to the service; want record, 2", rec.Mode, hits.Load())
	}
	if _, err := os.Stat(beside); err != nil {
		t.Fatalf("record auto wrote no file beside the script: %v", err)
	}
	srv.Close() // the replays must not need it
	for _, arg := range []map[string]any{{"mock": "auto"}, {"mock": "orders.mock.yaml"}, {"mock": beside}} {
		got := runScript(arg)
		if got.Mode != "mock" || string(got.Result) != string(rec.Result) {
			t.Errorf("%v: mode %q result %s; want mock and the recorded %s", arg, got.Mode, got.Result, rec.Result)
		}
	}
	if hits.Load() != 2 {
		t.Errorf("the replays reached the service: %d calls", hits.Load())
	}
}
