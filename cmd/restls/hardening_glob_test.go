package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// Issue 23, finding 2: over /lsp on loopback, with no key, a scriptKinds
// glob with 8 "**" against a 50-segment document path took 25 s and 43
// CPU-seconds to answer a hover (config.MatchGlob backtracked); with 10
// "**" and 60 segments no answer came. The kind is decided when the
// document opens (diagnostics) and again for the hover.
func TestServeHTTPGlobBacktracking(t *testing.T) {
	// Not in parallel: it bounds the wall time, which tests beside it would stretch.
	p := startHTTP(t, nil, "--config-root", filepath.Join(repoRoot(t), "testdata/config"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(p.base, "http")+"/lsp", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(-1)
	glob := strings.Repeat("**/a/", 10) + "b.js"
	doc := "file:///" + strings.Repeat("a/", 59) + "c.js"
	init, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"capabilities": map[string]any{}, "initializationOptions": map[string]any{"scriptKinds": map[string]string{glob: "scriptTask"}}}})
	open, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
		"textDocument": map[string]any{"uri": doc, "languageId": "javascript", "version": 1, "text": "api.rest.v1.get(\"crm-customers\", {}, {});\n"}}})
	hover, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": map[string]any{
		"textDocument": map[string]any{"uri": doc}, "position": map[string]any{"line": 0, "character": 20}}})
	start := time.Now()
	for _, m := range [][]byte{init, []byte(`{"jsonrpc":"2.0","method":"initialized","params":{}}`), open, hover} {
		if err := c.Write(ctx, websocket.MessageText, m); err != nil {
			t.Fatal(err)
		}
	}
	// Generous: the answer takes milliseconds; the backtracking matcher
	// took 25 s on the smaller input and never ended on this one.
	hctx, hcancel := context.WithTimeout(ctx, 20*time.Second)
	defer hcancel()
	for {
		_, msg, err := c.Read(hctx)
		if err != nil {
			t.Fatalf("no hover answer after %v: %v", time.Since(start), err)
		}
		if strings.Contains(string(msg), `"id":2`) {
			if !strings.Contains(string(msg), `"result"`) {
				t.Fatalf("hover: %.300s", msg)
			}
			break
		}
	}
	t.Logf("hover answered after %v", time.Since(start))
	// The server's CPU time since it started: start-up, configuration
	// load and two glob matches, not seconds of backtracking.
	if cpu, ok := processCPUTime(p.pid); ok {
		t.Logf("server CPU time: %v", cpu)
		if cpu > 5*time.Second {
			t.Errorf("the server used %v of CPU time for a hover", cpu)
		}
	}
}

// runKilledAfter runs restls and kills it after limit (the backtracking
// matcher did not end in hours); it reports whether it ended by itself.
func runKilledAfter(t *testing.T, limit time.Duration, args ...string) (stdout string, rc int, took time.Duration, ended bool) {
	t.Helper()
	cmd := restlsCommand(t, args...)
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	killed := make(chan struct{})
	timer := time.AfterFunc(limit, func() { close(killed); _ = cmd.Process.Kill() })
	_ = cmd.Wait()
	timer.Stop()
	select {
	case <-killed:
		return out.String(), -1, time.Since(start), false
	default:
	}
	return out.String(), cmd.ProcessState.ExitCode(), time.Since(start), true
}

// Issue 23, finding 6: a fixture path with 10 "**" against a call with
// 60 segments: restls run and restls test went on past --timeout 5s (at
// 40 s and beyond: the matcher is Go code the script interrupt cannot
// reach). Now the fixture does not match (its last segment is "b"), the
// next one answers, and both end well within the timeout.
func TestFixtureGlobBacktracking(t *testing.T) {
	// Not in parallel: it bounds the wall time, which tests beside it would stretch.
	cfg := filepath.Join(repoRoot(t), "testdata/config")
	dir := t.TempDir()
	params := strings.TrimSuffix(strings.Repeat(`"a",`, 60), ",")
	script := writeFile(t, dir, "deep.js", `return api.rest.v1.get("crm-customers", { pathParams: [`+params+`] }, {}).body;`+"\n")
	fixtures := "  - { serviceId: crm-customers, path: \"" + strings.Repeat("**/a/", 10) + "b\", body: { fixture: 1 } }\n" +
		"  - { serviceId: crm-customers, path: \"" + strings.Repeat("**/a/", 10) + "a\", body: { fixture: 2 } }\n"
	mock := writeFile(t, dir, "deep.mock.yaml", "fixtures:\n"+fixtures)
	writeFile(t, dir, "deep.test.yaml", "script: deep.js\nfixtures:\n"+fixtures+"result: { fixture: 2 }\n")

	const limit = 30 * time.Second // generous: both take well under a second
	out, rc, took, ended := runKilledAfter(t, limit, "run", "--json", "--timeout", "5s", "--config-root", cfg, "--mock", mock, script)
	t.Logf("restls run --timeout 5s took %v", took)
	if !ended || rc != 0 || took > 5*time.Second {
		t.Fatalf("restls run --timeout 5s: ended %v after %v, exit %d, stdout %.300s", ended, took, rc, out)
	}
	_, res, _ := oneJSONObject(t, out)
	var got struct{ Fixture int }
	if err := json.Unmarshal(res, &got); err != nil || got.Fixture != 2 {
		t.Errorf("result %s, want the second fixture's body", res)
	}

	out, rc, took, ended = runKilledAfter(t, limit, "test", "--timeout", "5s", "--config-root", cfg, dir)
	t.Logf("restls test --timeout 5s took %v", took)
	if !ended || rc != 0 || took > 5*time.Second {
		t.Fatalf("restls test --timeout 5s: ended %v after %v, exit %d, stdout %.500s", ended, took, rc, out)
	}
}
