package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/internal/goldentest"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/workspace"
)

// brokenRoot is a config root whose every file fails to parse.
func brokenRoot(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("application.yml", "scriptservice:\n  api: [\n")
	write(config.ServiceXMLPath, "<scriptservice><api serviceId=\"x\"")
	write(config.HandlerXMLPath, "<scriptservice><api")
	return dir
}

// secrets are the credentials in testdata/config; none may be served.
var secrets = []string{
	"Y3JtLXJvYm90OmNybS1zM2NyZXQtcGFzcw==", "crm-s3cret-pass", "pay-Cl1ent-S3cret",
	"cmVnaXN0cnktdXNlcjpyM2c1dHJ5LXA0c3M=", "bm90aWZ5Om4wdDFmeS1wYXNz", "encodedCredentials", "clientSecret",
}

func noSecrets(t *testing.T, what, body string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(body, s) {
			t.Errorf("%s contains %q", what, s)
		}
	}
}

func TestHealthz(t *testing.T) {
	t.Parallel()
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, nil)
	res, body := get(t, hs.URL+"/healthz", nil)
	if res.StatusCode != 200 || !strings.Contains(body, `"status":"ok"`) || !strings.Contains(body, `"version":"test"`) {
		t.Fatalf("GET /healthz = %d %s", res.StatusCode, body)
	}
}

func TestServicesHintsMapWithETag(t *testing.T) {
	t.Parallel()
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, nil)
	res, body := get(t, hs.URL+"/v1/services", nil)
	if res.StatusCode != 200 {
		t.Fatalf("GET /v1/services = %d %s", res.StatusCode, body)
	}
	var m map[string]config.HintsEntry
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("body is not a hints map: %v\n%s", err, body)
	}
	if got := m["crm-customers"]; got.URL != "https://crm.example.com/api/v2/customers" || got.Description != "CRM customers collection" {
		t.Errorf("crm-customers = %+v", got)
	}
	if _, ok := m["crm"]; !ok {
		t.Errorf("crm missing from %v", m)
	}
	noSecrets(t, "/v1/services", body)
	etag := res.Header.Get("ETag")
	if etag == "" || !strings.HasPrefix(etag, `"`) {
		t.Fatalf("ETag = %q", etag)
	}
	if cc := res.Header.Get("Cache-Control"); cc != "no-cache" {
		t.Errorf("Cache-Control = %q", cc)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}

	for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
		res, body = get(t, hs.URL+"/v1/services", map[string]string{"If-None-Match": inm})
		if res.StatusCode != http.StatusNotModified || body != "" {
			t.Errorf("If-None-Match %s: %d %q, want 304 without a body", inm, res.StatusCode, body)
		}
		if res.Header.Get("ETag") != etag {
			t.Errorf("304 ETag = %q, want %q", res.Header.Get("ETag"), etag)
		}
	}
	res, _ = get(t, hs.URL+"/v1/services", map[string]string{"If-None-Match": `"stale"`})
	if res.StatusCode != 200 {
		t.Errorf("stale If-None-Match: %d, want 200", res.StatusCode)
	}

	// Each kind has its own map and so its own ETag: script tasks read the
	// handler XML.
	res, body = get(t, hs.URL+"/v1/services?kind=scriptTask", nil)
	if res.StatusCode != 200 || res.Header.Get("ETag") == etag {
		t.Errorf("scriptTask: %d ETag %q (scriptService %q)", res.StatusCode, res.Header.Get("ETag"), etag)
	}
	noSecrets(t, "/v1/services?kind=scriptTask", body)

	res, body = get(t, hs.URL+"/v1/services?kind=nope", nil)
	if res.StatusCode != 400 || !strings.Contains(body, "scriptService") {
		t.Errorf("bad kind: %d %s, want 400 naming the kinds", res.StatusCode, body)
	}
}

// TestServicesETagChangesOnReload: the ETag follows the registry, so an
// editor polling with If-None-Match sees a change.
func TestServicesETagChangesOnReload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	yml := filepath.Join(dir, "application.yml")
	write := func(text string) {
		if err := os.WriteFile(yml, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("scriptservice:\n  api:\n    - serviceId: one\n      url: https://one.example.com\n")
	s, hs := newTestServer(t, config.Sources{ConfigRoot: dir}, nil)
	res, _ := get(t, hs.URL+"/v1/services", nil)
	first := res.Header.Get("ETag")
	write("scriptservice:\n  api:\n    - serviceId: two\n      url: https://two.example.com\n")
	s.opts.Session.Reload()
	res, body := get(t, hs.URL+"/v1/services", map[string]string{"If-None-Match": first})
	if res.StatusCode != 200 || !strings.Contains(body, `"two"`) || res.Header.Get("ETag") == first {
		t.Fatalf("after reload: %d %s ETag %q (before %q)", res.StatusCode, body, res.Header.Get("ETag"), first)
	}
}

func TestServicesFailingRegistry(t *testing.T) {
	t.Parallel()
	_, hs := newTestServer(t, config.Sources{ConfigRoot: brokenRoot(t)}, nil)
	res, body := get(t, hs.URL+"/v1/services", nil)
	if res.StatusCode != 200 || strings.TrimSpace(body) != "{}" {
		t.Fatalf("GET /v1/services on a broken registry = %d %s, want 200 {}", res.StatusCode, body)
	}
	res, body = get(t, hs.URL+"/v1/status", nil)
	if res.StatusCode != 200 {
		t.Fatalf("GET /v1/status = %d", res.StatusCode)
	}
	var st struct {
		Kinds []struct {
			Kind        string
			Hints       bool
			Services    int
			Message     string
			Diagnostics []map[string]any
		}
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Kinds) != 3 {
		t.Fatalf("kinds = %+v", st.Kinds)
	}
	for _, k := range st.Kinds {
		if k.Hints || k.Services != 0 || !strings.HasPrefix(k.Message, "no serviceId hints: ") || len(k.Diagnostics) == 0 {
			t.Errorf("%s: %+v, want no hints with the reason", k.Kind, k)
		}
		if !strings.Contains(k.Message, "application.yml") && !strings.Contains(k.Message, ".xml") {
			t.Errorf("%s: message %q does not name the broken file", k.Kind, k.Message)
		}
	}
	// The calls do not depend on the registry.
	res, body = get(t, hs.URL+"/v1/calls", nil)
	if res.StatusCode != 200 || !strings.Contains(body, `"patch"`) {
		t.Errorf("GET /v1/calls = %d %s", res.StatusCode, body)
	}
}

func TestStatus(t *testing.T) {
	t.Parallel()
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, nil)
	res, body := get(t, hs.URL+"/v1/status", nil)
	if res.StatusCode != 200 {
		t.Fatalf("GET /v1/status = %d", res.StatusCode)
	}
	noSecrets(t, "/v1/status", body)
	var st struct {
		Version string
		Sources config.Sources
		Kinds   []struct {
			Kind     string
			Loaded   bool
			Hints    bool
			Services int
			Timeouts config.Timeouts
		}
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	// Web clients see paths relative to the configuration root.
	if st.Version != "test" || st.Sources.ConfigRoot != "." || len(st.Kinds) != 3 {
		t.Fatalf("status = %+v", st)
	}
	for _, k := range st.Kinds {
		if !k.Loaded || !k.Hints || k.Services == 0 || k.Timeouts.Read.Maximum == 0 {
			t.Errorf("%s: %+v", k.Kind, k)
		}
	}
	if res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control = %q", res.Header.Get("Cache-Control"))
	}
}

func TestCalls(t *testing.T) {
	t.Parallel()
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, nil)
	res, body := get(t, hs.URL+"/v1/calls", nil)
	if res.StatusCode != 200 {
		t.Fatalf("GET /v1/calls = %d", res.StatusCode)
	}
	var calls []callJSON
	if err := json.Unmarshal([]byte(body), &calls); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range calls {
		names = append(names, c.Name)
		if c.Signature == "" || c.Documentation == "" || len(c.Params) < 4 {
			t.Errorf("%s: %+v", c.Name, c)
		}
		if c.HasPayload != (c.Method == "POST" || c.Method == "PUT" || c.Method == "PATCH") {
			t.Errorf("%s: hasPayload %v", c.Name, c.HasPayload)
		}
	}
	if strings.Join(names, ",") != "get,delete,post,put,patch" {
		t.Errorf("calls = %v", names)
	}
	res2, _ := get(t, hs.URL+"/v1/calls", map[string]string{"If-None-Match": res.Header.Get("ETag")})
	if res2.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %d, want 304", res2.StatusCode)
	}
}

func TestRunDisabledWithoutAllowRun(t *testing.T) {
	t.Parallel()
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, nil)
	res, body := post(t, hs.URL+"/v1/run", `{"text":"1"}`, nil)
	if res.StatusCode != http.StatusForbidden || !strings.Contains(body, "--allow-run") {
		t.Fatalf("POST /v1/run without --allow-run = %d %s", res.StatusCode, body)
	}
}

func TestRunWithRunner(t *testing.T) {
	t.Parallel()
	var got engine.Request
	var gotSnap workspace.Snapshot
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.Runner = func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
			got, gotSnap = req, snap
			if strings.Contains(req.Text, "fail") {
				return nil, errors.New("script.js:1:1: ReferenceError: fail is not defined")
			}
			return &dryrun.Result{Result: json.RawMessage(`"ok"`), Mode: dryrun.ModeLive}, nil
		}
	})
	key := map[string]string{"Authorization": "Bearer " + s.key}
	res, body := post(t, hs.URL+"/v1/run", `{"text":"api.rest.v1.get('crm', {}, {})","kind":"scriptTask","input":{"a":1}}`, key)
	if res.StatusCode != 200 || !strings.Contains(body, `"result":"ok"`) {
		t.Fatalf("POST /v1/run = %d %s", res.StatusCode, body)
	}
	if got.Kind != config.ScriptTask || string(got.Input) != `{"a":1}` || gotSnap.Config == nil {
		t.Errorf("runner got %+v", got)
	}
	res, body = post(t, hs.URL+"/v1/run", `{"text":"fail()"}`, key)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "ReferenceError") {
		t.Errorf("failing run = %d %s", res.StatusCode, body)
	}
	for _, bad := range []string{`not json`, `{"text":"1","kind":"nope"}`} {
		res, body = post(t, hs.URL+"/v1/run", bad, key)
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("POST %s = %d %s, want 400", bad, res.StatusCode, body)
		}
	}
	res, _ = get(t, hs.URL+"/v1/run", nil)
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /v1/run = %d, want 405", res.StatusCode)
	}
}

func post(t *testing.T, url, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return do(t, req)
}

func TestUnknownPath(t *testing.T) {
	t.Parallel()
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, nil)
	res, _ := get(t, hs.URL+"/v2/nothing", nil)
	if res.StatusCode != 404 {
		t.Errorf("GET /v2/nothing = %d", res.StatusCode)
	}
}

// TestRunMock: an inline fixture document, as text (YAML or JSON) or as
// the JSON document itself, reaches the engine; a broken one is a 400 that
// names its line, before anything runs (the engine parses it first).
func TestRunMock(t *testing.T) {
	t.Parallel()
	var got []engine.Request
	eng := engine.New(engine.Options{Isolation: engine.InProcess})
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.Runner = func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
			res, err := eng.Run(ctx, snap, req)
			if err == nil {
				got = append(got, req)
			}
			return res, err
		}
	})
	key := map[string]string{"Authorization": "Bearer " + s.key}
	yamlDoc := "- serviceId: crm\n  method: GET\n  status: 200\n  body: {id: 1}\n"
	jsonDoc := `[{"serviceId":"crm","method":"GET","status":200,"body":{"id":1}}]`
	for name, tc := range map[string]struct{ mock, want string }{
		"yaml text":     {mock: mustJSON(t, yamlDoc), want: yamlDoc},
		"json text":     {mock: mustJSON(t, jsonDoc), want: jsonDoc},
		"json document": {mock: jsonDoc, want: jsonDoc},
		"none":          {mock: `null`, want: ""},
		"blank":         {mock: `"  \n"`, want: ""},
	} {
		got = nil
		res, body := post(t, hs.URL+"/v1/run", `{"text":"1","input":{"a":1},"mock":`+tc.mock+`}`, key)
		if res.StatusCode != 200 || len(got) != 1 {
			t.Fatalf("%s: POST /v1/run = %d %s", name, res.StatusCode, body)
		}
		if string(got[0].Fixtures.Inline) != tc.want || string(got[0].Input) != `{"a":1}` {
			t.Errorf("%s: runner got mock %q input %s, want %q", name, got[0].Fixtures.Inline, got[0].Input, tc.want)
		}
	}
	got = nil
	res, body := post(t, hs.URL+"/v1/run", `{"text":"1","mock":`+mustJSON(t, "- serviceId: crm\n  method: GET\n  status: nope\n")+`}`, key)
	if res.StatusCode != http.StatusBadRequest || len(got) != 0 {
		t.Fatalf("broken mock: %d %s (runner called %d times)", res.StatusCode, body, len(got))
	}
	var e errorBody
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatal(err)
	}
	goldentest.Check(t, "testdata/golden/http/run-mock-broken.txt", e.Error+"\n")
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMockSchema: the fixture format's schema, with an ETag, readable
// without the key as every other read.
func TestMockSchema(t *testing.T) {
	t.Parallel()
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, nil)
	res, body := get(t, hs.URL+"/v1/schema/mock.json", nil)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/schema+json" || body != string(restclient.MockSchema) {
		t.Fatalf("GET /v1/schema/mock.json = %d %s %.80s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	res, _ = get(t, hs.URL+"/v1/schema/mock.json", map[string]string{"If-None-Match": res.Header.Get("ETag")})
	if res.StatusCode != http.StatusNotModified {
		t.Errorf("with its ETag: %d, want 304", res.StatusCode)
	}
}

// TestProjectSchema: restls.yaml's schema, served as the fixture
// format's is.
func TestProjectSchema(t *testing.T) {
	t.Parallel()
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, nil)
	res, body := get(t, hs.URL+"/v1/schema/restls.json", nil)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/schema+json" || body != string(workspace.Schema) {
		t.Fatalf("GET /v1/schema/restls.json = %d %s %.80s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	res, _ = get(t, hs.URL+"/v1/schema/restls.json", map[string]string{"If-None-Match": res.Header.Get("ETag")})
	if res.StatusCode != http.StatusNotModified {
		t.Errorf("with its ETag: %d, want 304", res.StatusCode)
	}
}

// TestStatusRun: /v1/status tells a page whether its Dry Run would be
// answered, and why not, so the button is disabled with the reason.
func TestStatusRun(t *testing.T) {
	t.Parallel()
	runner := func(o *Options) {
		o.Runner = func(context.Context, workspace.Snapshot, engine.Request) (*dryrun.Result, error) { return nil, nil }
	}
	_, off := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, nil)
	s, on := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, runner)
	for _, tc := range []struct {
		name, url string
		want      runStatusJSON
	}{
		{"no --allow-run", off.URL + "/v1/status", runStatusJSON{Reason: reasonNoAllowRun}},
		{"no key", on.URL + "/v1/status", runStatusJSON{Reason: reasonNoKey}},
		{"key", on.URL + "/v1/status?access_token=" + s.key, runStatusJSON{Allowed: true}},
	} {
		res, body := get(t, tc.url, nil)
		var st struct{ Run runStatusJSON }
		if err := json.Unmarshal([]byte(body), &st); err != nil || res.StatusCode != 200 {
			t.Fatalf("%s: %d %s", tc.name, res.StatusCode, body)
		}
		if st.Run != tc.want {
			t.Errorf("%s: run %+v, want %+v", tc.name, st.Run, tc.want)
		}
	}
	// The page shows the reasons as they are.
	goldentest.Check(t, "testdata/golden/http/run-refused-reasons.txt", reasonNoAllowRun+"\n"+reasonNoKey+"\n")
}
