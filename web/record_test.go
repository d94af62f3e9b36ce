package web_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/lsp"
	"github.com/restls/restls/web"
	"github.com/restls/restls/workspace"
)

// designerBackend serves web with the real runtime (in process) and a
// configuration whose service "echo" is svc, behind basic credentials
// that must never reach the page.
func designerBackend(t *testing.T, svc string, secret string) (*httptest.Server, string) {
	t.Helper()
	return designerBackendEnvs(t, configDir(t, svc, secret), nil)
}

// configDir is a configuration root whose "echo" and "open" services are
// on svc.
func configDir(t *testing.T, svc, secret string) string {
	t.Helper()
	dir := t.TempDir()
	creds := base64.StdEncoding.EncodeToString([]byte("robot:" + secret))
	props := fmt.Sprintf("scriptservice:\n  api:\n    - serviceId: echo\n      url: %s/api\n      authorization:\n        type: basic\n        encodedCredentials: %s\n    - serviceId: open\n      url: %s/open\n", svc, creds, svc)
	if err := os.WriteFile(filepath.Join(dir, "application.yml"), []byte(props), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// designerBackendEnvs serves dir's configuration, as the environment
// "test" when envs names others.
func designerBackendEnvs(t *testing.T, dir string, envs map[string]string) (*httptest.Server, string) {
	t.Helper()
	log := zaptest.NewLogger(t)
	wo := workspace.SessionOptions{Sources: config.Sources{ConfigRoot: dir}, Logger: log.Named("workspace")}
	if envs != nil {
		yml := fmt.Sprintf("defaultEnvironment: test\nenvironments:\n  test: {configRoot: %q}\n", dir)
		for name, root := range envs {
			yml += fmt.Sprintf("  %s: {configRoot: %q}\n", name, root)
		}
		set, err := workspace.NewEnvironments(workspace.ParseProject(filepath.Join(dir, workspace.FileName), []byte(yml)), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		wo.Environments = set
	}
	ls := lsp.NewServer(lsp.Options{Session: workspace.NewSession(wo), Logger: log.Named("lsp"), PollInterval: -1})
	const key = "designer-test-key"
	s, err := web.New(web.Options{LSP: ls, Logger: log.Named("web"), Token: key,
		Runner: engine.New(engine.Options{Isolation: engine.InProcess}).Run})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); hs.Close() })
	return hs, key
}

func postJSON(t *testing.T, url, key, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestRecordBuildsFixtures: POST /v1/run with "record" runs live against
// a loopback service and answers fixtures that replay the same run with
// no network, and that never hold the service's credentials.
func TestRecordBuildsFixtures(t *testing.T) {
	t.Parallel()
	const secret = "s3cret-Passw0rd"
	calls := 0
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.Header().Set("Set-Cookie", "session="+secret)
		if strings.HasPrefix(r.URL.Path, "/open") {
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, "plain answer for "+r.URL.RawQuery)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"path":%q,"auth":%q}`, r.URL.Path, r.Header.Get("Authorization"))
	}))
	defer svc.Close()
	hs, key := designerBackend(t, svc.URL, secret)

	script := `var a = api.rest.v1.get("echo", {pathParams: ["customers", "42"]}, {});
var b;
try { api.rest.v1.get("open", {queryParams: {q: "ann"}}, {}); } catch (e) { b = e.code; }
return [a.body.path, b];`
	code, body := postJSON(t, hs.URL+"/v1/run", key, `{"text":`+quote(script)+`,"record":true}`)
	if code != 200 {
		t.Fatalf("record = %d %s", code, body)
	}
	var rec struct {
		Result   json.RawMessage `json:"result"`
		Mode     string          `json:"mode"`
		Fixtures *string         `json:"fixtures"`
		Notes    []string        `json:"fixtureNotes"`
	}
	if err := json.Unmarshal([]byte(body), &rec); err != nil || rec.Fixtures == nil {
		t.Fatalf("record answer %s: %v", body, err)
	}
	if calls != 2 || len(rec.Notes) != 0 {
		t.Fatalf("the service got %d calls (want 2); notes %q", calls, rec.Notes)
	}
	basic := base64.StdEncoding.EncodeToString([]byte("robot:" + secret))
	for _, s := range []string{secret, basic} {
		if strings.Contains(*rec.Fixtures, s) {
			t.Errorf("the fixtures hold a credential %q:\n%s", s, *rec.Fixtures)
		}
	}
	if strings.Contains(strings.ToLower(*rec.Fixtures), "set-cookie") {
		t.Errorf("the fixtures keep Set-Cookie:\n%s", *rec.Fixtures)
	}

	// The fixtures replay the run: same result, and the service is not called.
	code, replay := postJSON(t, hs.URL+"/v1/run", key, `{"text":`+quote(script)+`,"mock":`+quote(*rec.Fixtures)+`}`)
	if code != 200 || calls != 2 {
		t.Fatalf("replay = %d %s (service calls %d)", code, replay, calls)
	}
	var again struct {
		Result json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal([]byte(replay), &again)
	if string(again.Result) != string(rec.Result) || string(rec.Result) != `["/api/customers/42","not-json"]` ||
		!strings.Contains(*rec.Fixtures, "bodyText: plain answer for q=ann") {
		t.Errorf("replayed result %s, recorded %s\n%s", again.Result, rec.Result, *rec.Fixtures)
	}

	// Record is live: a mock beside it is refused before anything runs.
	if code, body := postJSON(t, hs.URL+"/v1/run", key, `{"text":"1","record":true,"mock":"- serviceId: echo\n"}`); code != http.StatusBadRequest {
		t.Errorf("record with mock = %d %s, want 400", code, body)
	}
}

// TestRunPlanAndMockCheck: the plan names each literal serviceId with
// its kind of credential and never the credential; the mock check points
// at the line of a broken fixture and warns of an unknown serviceId.
func TestRunPlanAndMockCheck(t *testing.T) {
	t.Parallel()
	const secret = "pl4n-Secret"
	hs, key := designerBackend(t, "http://127.0.0.1:9", secret)
	script := `api.rest.v1.get("echo", {}, {}); api.rest.v1.post("echo", {}, {}, {});
api.rest.v1.get("open", {}, {}); api.rest.v1.get("nope", {}, {}); api.rest.v1.get(id, {}, {});`
	code, body := postJSON(t, hs.URL+"/v1/run/plan", key, `{"text":`+quote(script)+`}`)
	if code != 200 || strings.Contains(body, secret) {
		t.Fatalf("plan = %d %s", code, body)
	}
	var plan struct {
		Services []struct {
			ServiceID   string `json:"serviceId"`
			Configured  bool   `json:"configured"`
			Credentials string `json:"credentials"`
			Calls       int    `json:"calls"`
		} `json:"services"`
		Dynamic int `json:"dynamic"`
	}
	_ = json.Unmarshal([]byte(body), &plan)
	got := fmt.Sprint(plan.Services, plan.Dynamic)
	if want := "[{echo true basic 2} {open true none 1} {nope false none 1}] 1"; got != want {
		t.Errorf("plan = %s, want %s", got, want)
	}

	for _, tc := range []struct{ mock, want string }{
		{"", `{"diagnostics":[]}`},
		{"- serviceId: echo\n  status: 200\n", `{"diagnostics":[]}`},
		{"- serviceId: echo\n  status: nope\n", `"line":2,"column":11,"severity":"error"`},
		{"- serviceId: echo\n- serviceId: Echoo\n  status: 200\n", `"line":2,"column":1,"severity":"warning"`},
		{"- serviceId: echo\n  statu: 200\n", `"line":2`},
	} {
		code, body := postJSON(t, hs.URL+"/v1/mock/check", key, `{"mock":`+quote(tc.mock)+`}`)
		if code != 200 || !strings.Contains(body, tc.want) {
			t.Errorf("mock check of %q = %d %s, want %s", tc.mock, code, body, tc.want)
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestRunInAnotherEnvironment: /v1/status lists the project file's
// environments; a run and a plan that name one use its services, and an
// unknown name is a 400 that lists them.
func TestRunInAnotherEnvironment(t *testing.T) {
	t.Parallel()
	hit := map[string]int{}
	serve := func(name string) *httptest.Server {
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hit[name]++
			w.Header().Set("Content-Type", "application/json")
			_, _ = fmt.Fprintf(w, "%q", name)
		}))
		t.Cleanup(hs.Close)
		return hs
	}
	test, prod := serve("test"), serve("prod")
	hs, key := designerBackendEnvs(t, configDir(t, test.URL, "t-secret"), map[string]string{"prod": configDir(t, prod.URL, "p-secret")})

	req, _ := http.NewRequest(http.MethodGet, hs.URL+"/v1/status", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Environments []string `json:"environments"`
		Environment  string   `json:"environment"`
	}
	_ = json.NewDecoder(res.Body).Decode(&st)
	res.Body.Close()
	if fmt.Sprintf("%v %s", st.Environments, st.Environment) != "[prod test] test" {
		t.Errorf("status environments = %v, %q", st.Environments, st.Environment)
	}
	script := quote(`return api.rest.v1.get("open", {}, {}).body;`)
	for _, tc := range []struct{ env, want string }{{"", `"test"`}, {"prod", `"prod"`}, {"test", `"test"`}} {
		code, body := postJSON(t, hs.URL+"/v1/run", key, `{"text":`+script+`,"environment":"`+tc.env+`"}`)
		if code != 200 || !strings.Contains(body, `"result":`+tc.want) {
			t.Errorf("run in %q = %d %s, want the result %s", tc.env, code, body, tc.want)
		}
		code, body = postJSON(t, hs.URL+"/v1/run/plan", key, `{"text":`+script+`,"environment":"`+tc.env+`"}`)
		url := map[string]string{`"test"`: test.URL, `"prod"`: prod.URL}[tc.want]
		if code != 200 || !strings.Contains(body, `"url":"`+url+`/open"`) || !strings.Contains(body, `"environment":`+tc.want) {
			t.Errorf("plan in %q = %d %s", tc.env, code, body)
		}
	}
	if hit["test"] != 2 || hit["prod"] != 1 {
		t.Errorf("calls per environment = %v, want test 2 and prod 1", hit)
	}
	if code, body := postJSON(t, hs.URL+"/v1/run", key, `{"text":"1","environment":"staging"}`); code != 400 || !strings.Contains(body, "prod, test") {
		t.Errorf("unknown environment = %d %s", code, body)
	}
}
