package isolate

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/config"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
)

// services writes a service configuration naming crm at url.
func services(t *testing.T, url string) config.Sources {
	t.Helper()
	file := filepath.Join(t.TempDir(), "services.xml")
	if err := os.WriteFile(file, []byte(`<scriptservice><api serviceId="crm" url="`+url+`"/></scriptservice>`), 0o600); err != nil {
		t.Fatal(err)
	}
	return config.Sources{ServiceXML: file}
}

// TestChildRunsTheScript: the real child runs the script against a
// service on loopback and its result reaches the caller typed, with the
// call, the log and the mode; encoding it again gives the same bytes
// (headers keep their order across the process boundary).
func TestChildRunsTheScript(t *testing.T) {
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Zeta", "1")
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Alpha", "2")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer svc.Close()
	r := newTestRunner(t, "child", Options{Timeout: 10 * time.Second})
	res, err := r.Run(context.Background(), Request{Text: `console.log("hi"); var r = api.rest.v1.get("crm", {}, {}); return r.body;`,
		Kind: config.ScriptService, Sources: services(t, svc.URL)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Error != nil || string(res.Result) != `{"ok":true}` || len(res.Calls) != 1 || res.Calls[0].Status.Code != 200 ||
		len(res.Logs) != 1 || res.Logs[0].Message != "hi" || res.Mode != ModeLive {
		t.Fatalf("result %s", show(res))
	}
	if h := res.Calls[0].ResponseHeaders; len(h) < 3 || h[0].Name != "content-length" && h[0].Name != "content-type" {
		t.Errorf("response headers %+v", h)
	}
	once, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var again dryrun.Result
	if err := json.Unmarshal(once, &again); err != nil {
		t.Fatal(err)
	}
	twice, _ := json.Marshal(&again)
	if !bytes.Equal(once, twice) {
		t.Errorf("the result changed when decoded and encoded again:\n%s\n%s", once, twice)
	}
}

// TestChildPastedMocks: a pasted fixture document reaches the child in its
// request (no temporary file) and answers as restclient.PastedMocks.
func TestChildPastedMocks(t *testing.T) {
	r := newTestRunner(t, "child", Options{Timeout: 10 * time.Second})
	doc := "- serviceId: crm\n  method: GET\n  status: 200\n  body: {a: 1}\n"
	res, err := r.Run(context.Background(), Request{Text: `return api.rest.v1.get("crm", {}, {}).body;`,
		Kind: config.ScriptService, Sources: services(t, "http://127.0.0.1:1"), Mock: []byte(doc)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Error != nil || string(res.Result) != `{"a":1}` || res.Mode != ModeMock || len(res.Calls) != 1 ||
		!strings.Contains(show(res), restclient.PastedMocks+" fixture 1") {
		t.Fatalf("result %s", show(res))
	}
}

// TestChildCannotStart: what stops a run before the script starts is a
// result with the code runner-failed and the child's own words, not text
// on stderr for the parent to read.
func TestChildCannotStart(t *testing.T) {
	r := newTestRunner(t, "child", Options{Timeout: 10 * time.Second})
	good := services(t, "http://127.0.0.1:1")
	for name, tc := range map[string]struct {
		req  Request
		want string
	}{
		"no configuration": {Request{Text: "1", Kind: config.ScriptService, Sources: config.Sources{ServiceXML: filepath.Join(t.TempDir(), "gone.xml")}}, noConfiguration},
		"broken fixtures":  {Request{Text: "1", Kind: config.ScriptService, Sources: good, Mock: []byte("- serviceId: x\n  status: nope\n")}, "pasted mocks:2:11: fixture 1: cannot construct !!str `nope` into int"},
		"missing fixtures": {Request{Text: "1", Kind: config.ScriptService, Sources: good, MockFile: filepath.Join(t.TempDir(), "gone.yaml")}, "read mock fixtures"},
		"unknown kind":     {Request{Text: "1", Kind: "scriptThing", Sources: good}, "scriptThing"},
	} {
		t.Run(name, func(t *testing.T) {
			res, err := r.Run(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if res.Error == nil || res.Error.Code != CodeRunnerFailed || !strings.Contains(res.Error.Message, tc.want) || res.Mode != tc.req.Mode() {
				t.Fatalf("result %s, want %s with %q", show(res), CodeRunnerFailed, tc.want)
			}
		})
	}
}

// TestChildLimits: the real child stops a script at its time limit and
// its memory limit, and replaces a result larger than MaxResult by a short
// one itself.
func TestChildLimits(t *testing.T) {
	src := services(t, "http://127.0.0.1:1")
	for name, tc := range map[string]struct {
		opts Options
		text string
		code string
	}{
		"timeout": {Options{Timeout: 300 * time.Millisecond}, `while (true) {}`, "script-timeout"},
		"memory":  {Options{MaxMemory: 64 << 20, Timeout: 30 * time.Second}, `var s = "x"; while (true) { s += s; }`, "memory-limit"},
		"result":  {Options{Timeout: 30 * time.Second}, `return "x".repeat(17 << 20);`, CodeResultTooLarge},
	} {
		t.Run(name, func(t *testing.T) {
			r := newTestRunner(t, "child", tc.opts)
			start := time.Now()
			res, err := r.Run(context.Background(), Request{Text: tc.text, Kind: config.ScriptService, Sources: src})
			if err != nil {
				t.Fatal(err)
			}
			if raw := show(res); res.Error == nil || res.Error.Code != tc.code || len(raw) > 4096 {
				t.Fatalf("result %.500s, want code %s", raw, tc.code)
			}
			if took := time.Since(start); took > 30*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
}

// TestChildMainRefusesAnythingElse: a child whose stdin is not a request
// says what it is and exits 2, writing no result.
func TestChildMainRefusesAnythingElse(t *testing.T) {
	var out, errs bytes.Buffer
	if rc := ChildMain(strings.NewReader("--config-root /x"), &out, &errs); rc != 2 || out.Len() != 0 || !strings.Contains(errs.String(), "dry run's child") {
		t.Fatalf("rc %d, stdout %q, stderr %q", rc, out.String(), errs.String())
	}
}

// TestChildRemoteRegistry: a registryUrl snapshot's services travel in
// the request (it has no files to load), serviceId, URL and description
// only: a credential the parent's registry might hold is not copied.
func TestChildRemoteRegistry(t *testing.T) {
	var authz []string
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		authz = append(authz, r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":7}`))
	}))
	defer svc.Close()
	reg := config.NewRegistry(config.ScriptService, []config.Service{{ID: "crm", URL: svc.URL, RawURL: svc.URL,
		Auth: config.Auth{Type: config.AuthBasic, EncodedCredentials: config.NewSecret("dXNlcjpzM2NyZXQ=")}}}, config.DefaultTimeouts, nil)
	r := newTestRunner(t, "child", Options{Timeout: 10 * time.Second})
	res, err := r.Run(context.Background(), Request{Text: `return api.rest.v1.get("crm", {}, {}).body.id;`, Kind: config.ScriptService,
		Sources: config.Sources{RegistryURL: "http://127.0.0.1:1"}, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	if res.Error != nil || string(res.Result) != "7" || len(authz) != 1 || authz[0] != "" {
		t.Fatalf("result %s, the service saw Authorization %q", show(res), authz)
	}
	r = newTestRunner(t, "echo", Options{})
	res, err = r.Run(context.Background(), Request{Text: "1", Sources: config.Sources{RegistryURL: "http://127.0.0.1:1"}, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	if raw := string(res.Result); strings.Contains(raw, "dXNlcjpzM2NyZXQ") || !strings.Contains(raw, `"services":[{"serviceId":"crm","url":"`+svc.URL+`"}]`) {
		t.Errorf("the child's request: %s", raw)
	}
}

// TestChildRecordNotSaved: a recording that cannot be written after the
// run (its directory went away meanwhile) is said in the result's logs;
// the child used to print it on stderr, which the server dropped.
func TestChildRecordNotSaved(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fixtures")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = os.RemoveAll(dir) // before the child saves what it recorded
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":1}`))
	}))
	defer svc.Close()
	r := newTestRunner(t, "child", Options{Timeout: 10 * time.Second})
	res, err := r.Run(context.Background(), Request{Text: `return api.rest.v1.get("crm", {}, {}).body.id;`, Kind: config.ScriptService,
		Sources: services(t, svc.URL), RecordFile: filepath.Join(dir, "orders.mock.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Error != nil || string(res.Result) != "1" || res.Mode != ModeRecord || len(res.Logs) != 1 ||
		res.Logs[0].Level != "error" || !strings.Contains(res.Logs[0].Message, "orders.mock.yaml") {
		t.Fatalf("result %s", show(res))
	}
}

// TestChildAllowServices: a run limited to some serviceIds fails a call
// to any other with service-not-allowed, and that call never reaches the
// service; an allowed one does.
func TestChildAllowServices(t *testing.T) {
	hits := make(chan string, 4)
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits <- r.URL.Path
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	defer svc.Close()
	file := filepath.Join(t.TempDir(), "services.xml")
	xml := `<scriptservice><api serviceId="crm" url="` + svc.URL + `/crm"/><api serviceId="billing" url="` + svc.URL + `/billing"/></scriptservice>`
	if err := os.WriteFile(file, []byte(xml), 0o600); err != nil {
		t.Fatal(err)
	}
	r := newTestRunner(t, "child", Options{Timeout: 10 * time.Second})
	res, err := r.Run(context.Background(), Request{Text: `api.rest.v1.get("crm", {}, {}); return api.rest.v1.get("billing", {}, {}).body;`,
		Kind: config.ScriptService, Sources: config.Sources{ServiceXML: file}, AllowServices: []string{"crm"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Error == nil || res.Error.Code != restclient.CodeServiceNotAllowed || res.Error.ServiceID != "billing" || len(res.Calls) != 2 ||
		res.Calls[1].ErrorCode != restclient.CodeServiceNotAllowed {
		t.Fatalf("result %s", show(res))
	}
	close(hits)
	var got []string
	for h := range hits {
		got = append(got, h)
	}
	if len(got) != 1 || got[0] != "/crm" {
		t.Errorf("the service saw %v, want only /crm", got)
	}
}

// TestChildKeepsBodiesAsSent: a body's < > & reach the caller as the
// service, a pasted fixture or a parsed one sent them, in the result and
// in the call's trace, not rewritten as \u003c \u003e \u0026 on the way
// out of the child (json.Marshal's escapes for HTML); the preview of a
// real `restls run` showed "a=1\u0026b=2" for a link "a=1&b=2".
func TestChildKeepsBodiesAsSent(t *testing.T) {
	const body = `{"next":"/c?a=1&b=2","html":"<b>x</b>"}`
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	defer svc.Close()
	parsed, err := restclient.ParseMock("p.yaml", []byte(`- {serviceId: crm, body: {"next": "/c?a=1&b=2", "html": "<b>x</b>"}}`))
	if err != nil {
		t.Fatal(err)
	}
	r := newTestRunner(t, "child", Options{Timeout: 10 * time.Second})
	for name, req := range map[string]Request{
		"live":   {},
		"pasted": {Mock: []byte(`- {serviceId: crm, body: {"next": "/c?a=1&b=2", "html": "<b>x</b>"}}`)},
		"parsed": {Parsed: parsed},
	} {
		t.Run(name, func(t *testing.T) {
			req.Text = `return api.rest.v1.post("crm", {}, {}, {q: "a<b && c>d"}).body;`
			req.Kind, req.Sources = config.ScriptService, services(t, svc.URL)
			res, err := r.Run(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if res.Error != nil || len(res.Calls) != 1 {
				t.Fatalf("result %s", show(res))
			}
			c := res.Calls[0]
			if string(res.Result) != body || string(c.ResponseBody) != body || string(c.RequestBody) != `{"q":"a<b && c>d"}` {
				t.Errorf("result %s\nresponse body %s\nrequest body %s\nwant %s and the payload as sent", res.Result, c.ResponseBody, c.RequestBody, body)
			}
		})
	}
}
