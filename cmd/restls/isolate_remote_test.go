package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// TestServeHTTPRunRemoteRegistry: a backend whose services come from
// --registry-url dry-runs scripts against that registry (issue 25: it
// answered 422 "dry runs need the service configuration files" before):
// a fixture answers a serviceId the upstream backend serves, and a
// serviceId it does not serve is unknown.
func TestServeHTTPRunRemoteRegistry(t *testing.T) {
	t.Parallel()
	upstream := startHTTP(t, nil, "--config-root", "../../testdata/config")
	p := startHTTP(t, nil, "--registry-url", upstream.base, "--allow-run", "--token", "isolate-test")
	post := func(script string) (int, string, runResult) {
		body, _ := json.Marshal(map[string]any{"text": script,
			"mock": "- serviceId: crm-customers\n  method: GET\n  status: 200\n  body: {id: 42}\n"})
		req, _ := http.NewRequest(http.MethodPost, p.base+"/v1/run", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer isolate-test")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var raw bytes.Buffer
		_, _ = raw.ReadFrom(res.Body)
		var out runResult
		_ = json.Unmarshal(raw.Bytes(), &out)
		return res.StatusCode, raw.String(), out
	}
	code, raw, out := post(`return api.rest.v1.get("crm-customers", {}, {}).body.id;`)
	if code != 200 || out.Error != nil || string(out.Result) != "42" || !strings.Contains(raw, `"mode":"mock"`) {
		t.Fatalf("run against the remote registry = %d %s\n%s", code, raw, p.stderr.String())
	}
	code, raw, out = post(`return api.rest.v1.get("not-upstream", {}, {});`)
	if code != 200 || out.Error == nil || out.Error.Code != "unknown-service" {
		t.Fatalf("unknown serviceId = %d %s", code, raw)
	}
}

// TestServeRunScriptRemoteRegistry: an editor whose settings name a
// registryUrl dry-runs the open script against the registry it sees, its
// fixture file beside it answering (issue 25).
func TestServeRunScriptRemoteRegistry(t *testing.T) {
	t.Parallel()
	upstream := startHTTP(t, nil, "--config-root", "../../testdata/config")
	dir := t.TempDir()
	script := filepath.Join(dir, "orders.js")
	text := `return api.rest.v1.get("crm-customers", {}, {}).body.id;`
	for file, data := range map[string]string{script: text,
		filepath.Join(dir, "orders.mock.yaml"): "- serviceId: crm-customers\n  method: GET\n  status: 200\n  body: {id: 7}\n"} {
		if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := startServe(t, nil)
	opts, _ := json.Marshal(map[string]any{"registryUrl": upstream.base})
	if err := p.call(t, protocol.MethodInitialize, &protocol.InitializeParams{InitializationOptions: opts}, nil); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	_ = p.conn.Notify(context.Background(), protocol.MethodInitialized, &protocol.InitializedParams{})
	u := uri.File(script)
	_ = p.conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "javascript", Version: 1, Text: text}})
	arg, _ := json.Marshal(map[string]any{"uri": string(u), "mock": "auto"})
	var out struct {
		runResult
		Mode string `json:"mode"`
	}
	if err := p.call(t, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: "restls.runScript", Arguments: []protocol.LSPAny{arg}}, &out); err != nil {
		t.Fatalf("runScript: %v\n%s", err, p.stderr.String())
	}
	if out.Error != nil || string(out.Result) != "7" || out.Mode != "mock" {
		t.Fatalf("run against the editor's registryUrl: result %s error %+v mode %q", out.Result, out.Error, out.Mode)
	}
}
