package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// runBinaryTimed runs the real restls binary and returns stdout, stderr, the
// exit code and the wall time.
func runBinaryTimed(t *testing.T, args ...string) (string, string, int, time.Duration) {
	t.Helper()
	cmd := restlsCommand(t, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode(), took
}

// oneJSONObject fails unless stdout is exactly one JSON object, and
// returns its error.
func oneJSONObject(t *testing.T, out string) (errObj struct{ Name, Code, Message string }, result json.RawMessage, logs []struct{ Message string }) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	var got struct {
		Result json.RawMessage
		Error  *struct{ Name, Code, Message string }
		Logs   []struct{ Message string }
	}
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("stdout is not a JSON object (%v): %.300q", err, out)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value on stdout: %.300q", out)
	}
	if got.Error != nil {
		errObj = *got.Error
	}
	return errObj, got.Result, got.Logs
}

// Issue #13, finding 1: python3 -c "n=300000;print('return '+'('*n+'1'+')'*n)"
// ended restls run with a fatal stack overflow.
func TestRunDeepScriptIsRefused(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(repoRoot(t), "testdata/config")
	dir := t.TempDir()
	n := 300000
	for name, src := range map[string]string{
		"parens.js":  "return " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + "\n",
		"objects.js": "return " + strings.Repeat("{a:", 150000) + "1" + strings.Repeat("}", 150000) + "\n",
		"arrays.js":  "return " + strings.Repeat("[", 200000) + "\n",
	} {
		p := writeFile(t, dir, name, src)
		out, errs, rc, took := runBinaryTimed(t, "run", "--json", "--config-root", cfg, p)
		t.Logf("%s: restls run --json took %v", name, took)
		if rc != 1 {
			t.Fatalf("%s: exit %d, stderr %.300q", name, rc, errs)
		}
		if e, _, _ := oneJSONObject(t, out); e.Code != "script-too-deep" || e.Name != "RangeError" {
			t.Fatalf("%s: error %+v", name, e)
		}
		out, _, rc, _ = runBinaryTimed(t, "run", "--config-root", cfg, p)
		if rc != 1 || !strings.Contains(out, "script-too-deep") {
			t.Fatalf("%s: preview exit %d:\n%.500s", name, rc, out)
		}
	}
}

// Issue #13, finding 4: converting a deep result went past --timeout and
// printed nothing.
func TestRunDeepResultEndsWithinTheTimeout(t *testing.T) {
	// Not in parallel: its scripts must end within --timeout 5s, which tests beside it would stretch.
	cfg := filepath.Join(repoRoot(t), "testdata/config")
	dir := t.TempDir()
	build := "var a=[];for(var i=0;i<200000;i++)a=[a];"
	ret := writeFile(t, dir, "return.js", build+"return a;")
	out, errs, rc, took := runBinaryTimed(t, "run", "--json", "--timeout", "5s", "--config-root", cfg, ret)
	t.Logf("deep result: restls run --json --timeout 5s took %v", took)
	if rc != 1 {
		t.Fatalf("exit %d, stderr %.300q", rc, errs)
	}
	if e, res, _ := oneJSONObject(t, out); e.Code != "result-too-deep" || string(res) != "null" {
		t.Fatalf("error %+v, result %s", e, res)
	}

	logged := writeFile(t, dir, "log.js", build+"console.log('deep', a);return 1;")
	out, errs, rc, took = runBinaryTimed(t, "run", "--json", "--timeout", "5s", "--config-root", cfg, logged)
	t.Logf("deep console.log: restls run --json --timeout 5s took %v", took)
	if rc != 0 {
		t.Fatalf("exit %d, stderr %.300q", rc, errs)
	}
	if _, res, logs := oneJSONObject(t, out); string(res) != "1" || len(logs) != 1 || logs[0].Message != "deep [Array nested more than 1000 levels deep]" {
		t.Fatalf("result %s, logs %+v", res, logs)
	}

	payload := writeFile(t, dir, "payload.js", build+"api.rest.v1.post('crm-customers', {}, {}, a);")
	out, _, rc, _ = runBinaryTimed(t, "run", "--json", "--timeout", "5s", "--config-root", cfg, payload)
	if e, _, _ := oneJSONObject(t, out); rc != 1 || e.Name != "TypeError" || !strings.Contains(e.Message, "1000 levels") {
		t.Fatalf("exit %d, error %+v", rc, e)
	}
}

// The stdio language server gives the deep script one diagnostic and
// stays up.
func TestServeDeepScriptOneDiagnostic(t *testing.T) {
	t.Parallel()
	type published struct {
		URI         uri.URI `json:"uri"`
		Diagnostics []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"diagnostics"`
	}
	diags := make(chan *published, 16)
	handler := func(_ context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() == protocol.MethodTextDocumentPublishDiagnostics {
			var p published
			if err := json.Unmarshal(req.Params(), &p); err == nil {
				diags <- &p
			}
		}
		return nil, nil
	}
	p := startServe(t, handler, "--config-root", filepath.Join(repoRoot(t), "testdata/config"))
	var init protocol.InitializeResult
	if err := p.call(t, protocol.MethodInitialize, &protocol.InitializeParams{}, &init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	_ = p.conn.Notify(context.Background(), protocol.MethodInitialized, &protocol.InitializedParams{})
	u := uri.File("/ws/deep.js")
	n := 300000
	text := "return " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + "\n"
	start := time.Now()
	_ = p.conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "javascript", Version: 1, Text: text},
	})
	timeout := time.After(30 * time.Second)
	for {
		var d *published
		select {
		case d = <-diags:
		case <-timeout:
			t.Fatalf("no diagnostics for the deep script; stderr:\n%.300s", p.stderr.String())
		}
		if d.URI != u {
			continue
		}
		t.Logf("didOpen to diagnostics: %v", time.Since(start))
		if len(d.Diagnostics) != 1 || d.Diagnostics[0].Code != "script-too-deep" {
			t.Fatalf("diagnostics %+v", d.Diagnostics)
		}
		break
	}
	// Still up: it answers completion and hover in the deep script.
	var list protocol.CompletionList
	pos := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: 0, Character: 150000}}
	if err := p.call(t, protocol.MethodTextDocumentCompletion, &protocol.CompletionParams{TextDocumentPositionParams: pos}, &list); err != nil {
		t.Fatalf("completion after the deep script: %v", err)
	}
	var h json.RawMessage
	if err := p.call(t, protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: pos}, &h); err != nil {
		t.Fatalf("hover after the deep script: %v", err)
	}
	if err := p.call(t, protocol.MethodShutdown, nil, nil); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}

// The designer backend: one WebSocket didOpen of the deep script ended the
// whole serve --http process. Now it gets one diagnostic and the session
// (and the server) go on.
func TestServeHTTPDeepScriptOneDiagnostic(t *testing.T) {
	t.Parallel()
	p := startHTTP(t, nil, "--config-root", filepath.Join(repoRoot(t), "testdata/config"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(p.base, "http")+"/lsp", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(-1)
	n := 300000
	open, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
		"textDocument": map[string]any{"uri": "file:///d/deep.js", "languageId": "javascript", "version": 1,
			"text": "return " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + "\n"}}})
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`,
		`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
		string(open),
		`{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///d/deep.js"},"position":{"line":0,"character":10}}}`,
	} {
		if err := c.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	var diags, answered bool
	for !diags || !answered {
		_, msg, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("session ended: %v; stderr:\n%.300s", err, p.stderr.String())
		}
		var m struct {
			ID     *int   `json:"id"`
			Method string `json:"method"`
			Params struct {
				URI         string `json:"uri"`
				Diagnostics []struct {
					Code string `json:"code"`
				} `json:"diagnostics"`
			} `json:"params"`
		}
		_ = json.Unmarshal(msg, &m)
		switch {
		case m.Method == "textDocument/publishDiagnostics" && m.Params.URI == "file:///d/deep.js":
			if len(m.Params.Diagnostics) != 1 || m.Params.Diagnostics[0].Code != "script-too-deep" {
				t.Fatalf("diagnostics %s", msg)
			}
			diags = true
		case m.ID != nil && *m.ID == 2:
			answered = true
		}
	}
	if code, _ := httpGet(t, p.base+"/v1/services?kind=scriptService"); code != 200 {
		t.Fatalf("the server stopped answering: %d", code)
	}
}
