package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/internal/goldentest"
)

// TestServeHTTPRunWithInlineMock: POST /v1/run's mock answers the calls
// through the real child process, with the service unreachable, and input
// is the script's context.input.
func TestServeHTTPRunWithInlineMock(t *testing.T) {
	t.Parallel()
	root := isolateRoot(t, "http://127.0.0.1:1")
	p := startHTTP(t, nil, "--config-root", root, "--allow-run", "--token", "isolate-test", "--metrics")
	mock := "- serviceId: slow\n  method: GET\n  path: /orders/7\n  status: 200\n  body: {state: shipped}\n"
	script := `var r = api.rest.v1.get("slow", {pathParams: ["orders", String(context.input.id)]}, {});
return r.body.state + " " + context.input.id;`
	body, _ := json.Marshal(map[string]any{"text": script, "input": map[string]any{"id": 7}, "mock": mock})
	req, _ := http.NewRequest(http.MethodPost, p.base+"/v1/run", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer isolate-test")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out runResult
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != 200 {
		t.Fatalf("POST /v1/run = %d, %v", res.StatusCode, err)
	}
	if string(out.Result) != `"shipped 7"` || out.Error != nil {
		t.Fatalf("result %s error %+v", out.Result, out.Error)
	}
	// The run is counted (serve wraps the runner /lsp and /v1/run share).
	mreq, _ := http.NewRequest(http.MethodGet, p.base+"/metrics", nil)
	mreq.Header.Set("Authorization", "Bearer isolate-test")
	mres, err := http.DefaultClient.Do(mreq)
	if err != nil {
		t.Fatal(err)
	}
	defer mres.Body.Close()
	metrics, _ := io.ReadAll(mres.Body)
	if !strings.Contains(string(metrics), `restls_dry_runs_total{outcome="returned"} 1`) {
		t.Errorf("/metrics does not count the run:\n%s", grepLines(string(metrics), "restls_dry_runs"))
	}
}

// TestServeHTTPRunPastedMocksNoServerPath: POST /v1/run with pasted
// fixtures, through the real server and its child run: a matched call's
// X-Restls-Mock and an unmatched call's no-fixture message name the
// fixtures as the pasted mocks, with lines of the pasted text, and no
// part of the server's temporary directory reaches the answer.
func TestServeHTTPRunPastedMocksNoServerPath(t *testing.T) {
	// Not in parallel: it sets TMPDIR (t.Setenv).
	tmp := filepath.Join(t.TempDir(), "server-tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp) // the server's os.TempDir, where the child's fixture file goes
	root := isolateRoot(t, "http://127.0.0.1:1")
	p := startHTTP(t, nil, "--config-root", root, "--allow-run", "--token", "isolate-test")
	mock := "# pasted in the Mocks tab\n" +
		"- serviceId: slow\n" +
		"  method: GET\n" +
		"  path: orders/7\n" +
		"  body: {state: shipped}\n" +
		"- serviceId: slow\n" +
		"  method: GET\n" +
		"  path: orders/8\n" +
		"  query: {page: 1}\n"
	script := `var r = api.rest.v1.get("slow", {pathParams: ["orders", "7"]}, {});
try { api.rest.v1.get("slow", {pathParams: ["orders", "8"]}, {}); } catch (e) { return r.body.state + ", " + e.code; }
return "unreachable";`
	body, _ := json.Marshal(map[string]any{"text": script, "mock": mock})
	req, _ := http.NewRequest(http.MethodPost, p.base+"/v1/run", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer isolate-test")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("POST /v1/run = %d, %v\n%s", res.StatusCode, err, raw)
	}
	var out struct {
		Result json.RawMessage `json:"result"`
		Mode   string          `json:"mode"`
		Calls  []struct {
			ResponseHeaders map[string]string `json:"responseHeaders"`
			ErrorCode       string            `json:"errorCode"`
			ErrorMessage    string            `json:"errorMessage"`
		} `json:"calls"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	if string(out.Result) != `"shipped, no-fixture"` || len(out.Calls) != 2 || out.Mode != "mock" {
		t.Fatalf("result %s, mode %q, %d calls:\n%s", out.Result, out.Mode, len(out.Calls), raw)
	}
	var shown strings.Builder
	for k, v := range out.Calls[0].ResponseHeaders {
		if strings.EqualFold(k, "X-Restls-Mock") {
			fmt.Fprintf(&shown, "call 1 %s: %s\n", k, v)
		}
	}
	fmt.Fprintf(&shown, "call 2 %s: %s\n", out.Calls[1].ErrorCode, out.Calls[1].ErrorMessage)
	goldentest.Check(t, filepath.Join("testdata", "golden", "run", "pasted-mocks.txt"), shown.String())
	for _, leak := range []string{tmp, filepath.Base(tmp), os.TempDir(), "restls-run-", "designer.mock.yaml"} {
		if strings.Contains(string(raw), leak) {
			t.Errorf("the answer shows the server's temporary file (%q):\n%s", leak, raw)
		}
	}
}

// grepLines is the lines of s that hold sub (internal/e2e's
// serve_http_ops_test.go has the same).
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
