package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRunCurlSendsNothingUnlessLive is issue 33's finding 17 through the
// binary: each `restls run --curl` of a task script sent its calls for
// real (another order on the server per export). Against a server that
// counts what reaches it: --curl alone and --curl --mock send nothing,
// --curl --live sends each call (with --mock, each call no fixture
// answers, as --mock --live does without --curl), and --curl --record
// without --live is a usage error.
func TestRunCurlSendsNothingUnlessLive(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":7}`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	xml := writeFile(t, dir, "services.xml", `<scriptservice><api serviceId="orders" url="`+srv.URL+`/orders"/></scriptservice>`)
	script := writeFile(t, dir, "task.js", `var o = api.rest.v1.post("orders", {}, {}, {item: "book"});
return api.rest.v1.get("orders", {pathParams: [String(o.body.id)]}, {}).status.code;`)
	postOnly := writeFile(t, dir, "post.mock.yaml", "- serviceId: orders\n  method: POST\n  body: {id: 7}\n")
	mock := writeFile(t, dir, "task.mock.yaml", "- serviceId: orders\n  method: POST\n  body: {id: 7}\n- serviceId: orders\n  method: GET\n  path: \"7\"\n  body: {id: 7}\n")

	for _, tc := range []struct {
		name  string
		args  []string
		rc    int
		sent  int64
		wants []string
	}{
		{"curl alone", []string{"--curl"}, 1, 0, []string{
			"--globoff --path-as-is -X POST", "--data-raw '{\"item\":\"book\"}'",
			`no fixture in (no --mock file) answers POST orders`, "give it with --mock FILE, or add --live to send the calls"}},
		{"curl with fixtures", []string{"--curl", "--mock", mock}, 0, 0, []string{"# [2] GET orders " + srv.URL + "/orders/7"}},
		{"curl live", []string{"--curl", "--live"}, 0, 2, []string{"# [2] GET orders " + srv.URL + "/orders/7"}},
		{"curl live with fixtures", []string{"--curl", "--live", "--mock", postOnly}, 0, 1, []string{"# [2] GET orders " + srv.URL + "/orders/7"}},
		{"mock live", []string{"--mock", postOnly, "--live"}, 0, 1, []string{"result:\n  200"}},
	} {
		before := hits.Load()
		out, errs, rc := runBinary(t, append(append([]string{"run", "--service-xml", xml}, tc.args...), script)...)
		if rc != tc.rc || errs != "" {
			t.Fatalf("%s: rc %d, want %d; stderr %q\n%s", tc.name, rc, tc.rc, errs, out)
		}
		if sent := hits.Load() - before; sent != tc.sent {
			t.Errorf("%s: %d requests reached the service, want %d", tc.name, sent, tc.sent)
		}
		for _, w := range tc.wants {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s", tc.name, w, out)
			}
		}
	}
	before := hits.Load()
	_, errs, rc := runBinary(t, "run", "--service-xml", xml, "--curl", "--record", writeFile(t, dir, "rec.mock.yaml", "[]"), script)
	if rc != 2 || !strings.Contains(errs, "add --live to send the calls and record them") || hits.Load() != before {
		t.Errorf("--curl --record: rc %d, %d requests, stderr %q", rc, hits.Load()-before, errs)
	}
}
