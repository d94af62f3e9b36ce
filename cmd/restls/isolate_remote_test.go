package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestServeHTTPRunRemoteRegistry: a backend whose services come from
// --registry-url dry-runs scripts against that registry (issue 25: it
// answered 422 "dry runs need the service configuration files" before):
// a fixture answers a serviceId the upstream backend serves, and a
// serviceId it does not serve is unknown.
func TestServeHTTPRunRemoteRegistry(t *testing.T) {
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
