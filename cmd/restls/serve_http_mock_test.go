package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestServeHTTPRunWithInlineMock: POST /v1/run's mock answers the calls
// through the real child process, with the service unreachable, and input
// is the script's context.input.
func TestServeHTTPRunWithInlineMock(t *testing.T) {
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
