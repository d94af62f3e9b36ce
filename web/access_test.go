package web

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/lsp"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/workspace"
)

// TestCheckListen: the rule "a non-loopback address needs a token" is
// web's: CheckListen refuses it in the key mode alone, and Serve refuses
// a listener on every interface the same way.
func TestCheckListen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr string
		o    Options
		ok   bool
	}{
		{"127.0.0.1:7373", Options{}, true},
		{"[::1]:7373", Options{}, true},
		{"0.0.0.0:7373", Options{}, false},
		{"10.1.2.3:7373", Options{Token: "t"}, true},
		{"0.0.0.0:7373", Options{Auth: AuthOptions{Mode: AuthOIDC}}, true},
		{"0.0.0.0:7373", Options{Auth: AuthOptions{Mode: AuthProxy}}, true},
		{"0.0.0.0:7373", Options{Auth: AuthOptions{Mode: AuthKey}}, false},
	} {
		err := CheckListen(tc.addr, tc.o)
		if (err == nil) != tc.ok {
			t.Errorf("CheckListen(%s, %+v) = %v", tc.addr, tc.o.Auth, err)
		}
		if err != nil && (!strings.Contains(err.Error(), "--token") || !strings.Contains(err.Error(), "non-loopback")) {
			t.Errorf("the refusal does not say what to do: %v", err)
		}
	}
	s, _ := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, nil)
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := s.Serve(testCtx(t), ln, 0); err == nil || !strings.Contains(err.Error(), "non-loopback") {
		t.Errorf("Serve on every interface without a token: %v", err)
	}
}

// TestRunsDisabled: without --allow-run (the gate's AllowRun) a dry run
// is refused over HTTP and over /lsp, with the sentence that names the
// flag, and never reaches the runner; /v1/status says so too.
func TestRunsDisabled(t *testing.T) {
	t.Parallel()
	ran := false
	runner := func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
		ran = true
		return &dryrun.Result{Result: json.RawMessage("1")}, nil
	}
	gate := NewGate(GateOptions{AllowRun: false})
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.LSP = lsp.NewServer(lsp.Options{Sources: config.Sources{ConfigRoot: exampleRoot}, PollInterval: -1, Runner: gate.Wrap(runner)})
		o.Runner, o.Gate = runner, gate
	})
	req, _ := http.NewRequest(http.MethodPost, hs.URL+"/v1/run", strings.NewReader(`{"text":"return 1"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+s.key)
	res, body := do(t, req)
	if res.StatusCode != http.StatusForbidden || !strings.Contains(body, "--allow-run") || !strings.Contains(body, "dry runs are disabled on this server") {
		t.Errorf("POST /v1/run = %d %s", res.StatusCode, body)
	}
	_, body = get(t, hs.URL+"/v1/status", map[string]string{"Authorization": "Bearer " + s.key})
	if !strings.Contains(body, ReasonNoAllowRun) {
		t.Errorf("/v1/status: %s", body)
	}
	ctx := testCtx(t)
	// With the key and without: the run hears that runs are off.
	for _, url := range []string{wsURL(hs) + "?access_token=" + s.key, wsURL(hs)} {
		c, err := dialLSP(t, ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		const doc = "file:///designer/scriptService/script.js"
		if err := c.open(ctx, doc, "return 1"); err != nil {
			t.Fatal(err)
		}
		var out any
		err = c.call(ctx, "workspace/executeCommand", map[string]any{"command": lsp.CommandRunScript, "arguments": []any{map[string]any{"uri": doc}}}, &out)
		if err == nil || !strings.Contains(err.Error(), ReasonNoAllowRun) {
			t.Errorf("%s: restls.runScript: %v", url, err)
		}
		c.close()
	}
	if ran {
		t.Error("a run reached the runner with runs off")
	}
}

// roleServer serves with --auth proxy trusting loopback, the roles of
// the project file below, an audit into buf and a runner that records
// what reached it.
type roleServer struct {
	hs    string
	audit *bytes.Buffer
	mu    sync.Mutex
	got   []engine.Request
	svcs  [][]string
	ops   *Ops
	s     *Server
}

const rolesYAML = `configRoot: c
roles:
  default: viewer
  groups:
    authors: {role: mocker}
    ops-test: {role: runner, environments: [test], services: [crm-customers]}
    ops-all: {role: runner}
    banned: {role: none}
`

func newRoleServer(t *testing.T, env string, trusted ...string) *roleServer {
	t.Helper()
	p := workspace.ParseProject("restls.yaml", []byte(rolesYAML))
	if p.HasErrors() {
		t.Fatal(p.Diagnostics)
	}
	rs := &roleServer{audit: &bytes.Buffer{}, ops: NewOps(OpsOptions{Metrics: true})}
	a, err := OpenAudit(AuditOptions{File: "-", Stderr: syncWriter{&rs.mu, rs.audit}})
	if err != nil {
		t.Fatal(err)
	}
	runner := func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
		rs.mu.Lock()
		rs.got = append(rs.got, req)
		rs.svcs = append(rs.svcs, req.AllowServices)
		rs.mu.Unlock()
		c := &restclient.Call{ServiceID: "crm-customers", Method: "GET", URL: "http://user:pw@crm.example/v1/customers?apiKey=k3y-Value-Secret#frag", DurationMs: 1.5,
			Status: &restclient.Status{Code: 200, Message: "OK"}}
		return &dryrun.Result{Result: json.RawMessage("1"), Calls: []*restclient.Call{c}}, nil
	}
	gate := NewGate(GateOptions{AllowRun: true, Environment: env, Audit: a, Ops: rs.ops})
	if len(trusted) == 0 {
		trusted = []string{"127.0.0.0/8", "::1"}
	}
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.LSP = lsp.NewServer(lsp.Options{Sources: config.Sources{ConfigRoot: exampleRoot}, PollInterval: -1, Runner: gate.Wrap(runner),
			Faults: lsp.FaultOptions{Run: gate.WrapFaults(engine.New(engine.Options{Isolation: engine.InProcess}).Run)}})
		o.Runner, o.Gate, o.Ops, o.ServeMetrics = runner, gate, rs.ops, true
		o.Auth = AuthOptions{Mode: AuthProxy, TrustedProxies: trusted, Roles: p.Roles}
	})
	rs.hs, rs.s = hs.URL, s
	return rs
}

type syncWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (rs *roleServer) run(t *testing.T, user, groups, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, rs.hs+"/v1/run", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if user != "" {
		req.Header.Set(DefaultUserHeader, user)
		req.Header.Set("X-Forwarded-For", "192.0.2.7")
	}
	if groups != "" {
		req.Header.Set(DefaultGroupsHeader, groups)
	}
	res, b := do(t, req)
	return res.StatusCode, b
}

func (rs *roleServer) reached() int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return len(rs.got)
}

func (rs *roleServer) records(t *testing.T) []AuditRecord {
	t.Helper()
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var out []AuditRecord
	for _, line := range strings.Split(strings.TrimSpace(rs.audit.String()), "\n") {
		if line == "" {
			continue
		}
		var r AuditRecord
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		out = append(out, r)
	}
	return out
}

const (
	liveBody = `{"text":"return api.rest.v1.get(\"crm-customers\", {}, {}).body"}`
	mockBody = `{"text":"return 1","mock":"- serviceId: crm-customers\n  method: GET\n  status: 200\n"}`
)

// TestProxyRoles: through --auth proxy, each role may do what it says
// and no more; a refused run names the role it needs and never reaches
// the runner; a runner's services travel to the runner; every run is
// audited with who, role, mode and outcome, and counted by role and mode.
func TestProxyRoles(t *testing.T) {
	t.Parallel()
	rs := newRoleServer(t, "test")
	for _, tc := range []struct {
		name, user, groups, body string
		code                     int
		want                     string // in the answer
	}{
		{"no user", "", "", liveBody, http.StatusUnauthorized, "X-Forwarded-User"},
		{"viewer", "vera", "", mockBody, http.StatusForbidden, "role mocker"},
		{"mocker live", "mo", "authors", liveBody, http.StatusForbidden, "needs the role runner"},
		{"mocker mock", "mo", "authors", mockBody, http.StatusOK, ""},
		{"none", "bob", "banned", mockBody, http.StatusForbidden, "no role"},
		{"runner limited", "rita", "ops-test", liveBody, http.StatusOK, ""},
		{"runner", "ron", "authors, ops-all", liveBody, http.StatusOK, ""},
	} {
		before := rs.reached()
		code, body := rs.run(t, tc.user, tc.groups, tc.body)
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s", tc.name, code, body)
		}
		if reached := rs.reached() > before; reached != (tc.code == http.StatusOK) {
			t.Errorf("%s: reached the runner: %v", tc.name, reached)
		}
	}
	if want := [][]string{nil, {"crm-customers"}, nil}; !slices.EqualFunc(rs.svcs, want, slices.Equal) {
		t.Errorf("services handed to the runner: %q, want %q", rs.svcs, want)
	}
	recs := rs.records(t)
	var summary []string
	for _, r := range recs {
		summary = append(summary, r.User+"/"+r.Role+"/"+r.Mode+"/"+r.Outcome+"/"+r.Code)
		if r.Event != "run" || r.Auth != "proxy" || r.SHA256 == "" || r.Script != "script.js" || r.Environment != "test" || r.Remote == "" || r.ForwardedFor != "192.0.2.7" {
			t.Errorf("audit record %+v", r)
		}
	}
	want := []string{"vera/viewer/mock/refused/role", "mo/mocker/live/refused/role", "mo/mocker/mock/returned/", "rita/runner/live/returned/", "ron/runner/live/returned/"}
	if !slices.Equal(summary, want) {
		t.Errorf("audit:\n%q\nwant\n%q", summary, want)
	}
	call := recs[2].Calls[0]
	if call.URL != "http://****@crm.example/v1/customers?apiKey=****" || call.Status != 200 || call.ServiceID != "crm-customers" {
		t.Errorf("audited call %+v", call)
	}
	if strings.Contains(rs.audit.String(), "k3y-Value-Secret") {
		t.Error("a query credential reached the audit")
	}
	_, metrics := scrape(t, rs.hs+"/metrics", map[string]string{DefaultUserHeader: "ron", DefaultGroupsHeader: "ops-all"})
	for _, s := range []string{`restls_dry_runs_by_role_total{mode="live",outcome="refused",role="mocker"} 1`, `restls_dry_runs_by_role_total{mode="live",outcome="returned",role="runner"} 2`} {
		if !strings.Contains(metrics, s) {
			t.Errorf("no %s in /metrics", s)
		}
	}
	for _, u := range []string{"rita", "ron", "mo"} {
		if strings.Contains(metrics, `"`+u+`"`) {
			t.Errorf("a user name (%s) in a metric label", u)
		}
	}
}

// TestRunnerEnvironment: a runner limited to environments may not run
// live on a server of another environment, and may run with fixtures.
func TestRunnerEnvironment(t *testing.T) {
	t.Parallel()
	rs := newRoleServer(t, "prod")
	if code, body := rs.run(t, "rita", "ops-test", liveBody); code != http.StatusForbidden || !strings.Contains(body, "this run uses prod") {
		t.Errorf("live in prod: %d %s", code, body)
	}
	if code, body := rs.run(t, "rita", "ops-test", mockBody); code != http.StatusOK {
		t.Errorf("mock in prod: %d %s", code, body)
	}
	if recs := rs.records(t); len(recs) != 2 || recs[0].Code != refusedEnvironment {
		t.Errorf("audit %+v", recs)
	}
}

// TestProxyUntrusted: a request that does not come from --trusted-proxy
// is refused whatever headers it carries.
func TestProxyUntrusted(t *testing.T) {
	t.Parallel()
	rs := newRoleServer(t, "", "10.0.0.0/8")
	res, body := get(t, rs.hs+"/v1/services", map[string]string{DefaultUserHeader: "mallory", DefaultGroupsHeader: "ops-all"})
	if res.StatusCode != http.StatusForbidden || !strings.Contains(body, "--trusted-proxy") {
		t.Errorf("GET /v1/services from an untrusted address = %d %s", res.StatusCode, body)
	}
}

// TestProxyLSPRoles: over /lsp a viewer's run is refused with the role
// it needs, a reload too, and both are audited (a reload as refused).
func TestProxyLSPRoles(t *testing.T) {
	t.Parallel()
	rs := newRoleServer(t, "test")
	ctx := testCtx(t)
	for _, tc := range []struct {
		user, groups string
		runs, reload bool
	}{{"vera", "", false, false}, {"ron", "ops-all", true, true}} {
		h := http.Header{}
		h.Set(DefaultUserHeader, tc.user)
		h.Set(DefaultGroupsHeader, tc.groups)
		c, err := dialLSP(t, ctx, "ws"+strings.TrimPrefix(rs.hs, "http")+"/lsp", &websocket.DialOptions{HTTPHeader: h})
		if err != nil {
			t.Fatal(err)
		}
		const doc = "file:///designer/scriptService/script.js"
		if err := c.open(ctx, doc, "return 1"); err != nil {
			t.Fatal(err)
		}
		var out any
		errRun := c.call(ctx, "workspace/executeCommand", map[string]any{"command": lsp.CommandRunScript, "arguments": []any{map[string]any{"uri": doc}}}, &out)
		errReload := c.call(ctx, "workspace/executeCommand", map[string]any{"command": lsp.CommandReload, "arguments": []any{map[string]any{}}}, &out)
		if (errRun == nil) != tc.runs || (errReload == nil) != tc.reload {
			t.Errorf("%s: run %v, reload %v", tc.user, errRun, errReload)
		}
		if errRun != nil && !strings.Contains(errRun.Error(), "role mocker") {
			t.Errorf("%s: the refusal does not name the role: %v", tc.user, errRun)
		}
		c.close()
	}
	var summary []string
	for _, r := range rs.records(t) {
		summary = append(summary, r.Event+"/"+r.User+"/"+r.Outcome)
	}
	want := []string{"run/vera/refused", "reload/vera/refused", "run/ron/returned", "reload/ron/reloaded"}
	if !slices.Equal(summary, want) {
		t.Errorf("audit %q, want %q", summary, want)
	}
}

// TestStopDelay: during --shutdown-delay a stopping server still answers,
// not ready, refuses new sessions, and asks proxies to close the
// connection after each answer.
func TestStopDelay(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) { o.StopDelay = time.Minute })
	began := make(chan struct{})
	s.stopping = func() { close(began) }
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln, time.Second) }()
	base := "http://" + ln.Addr().String()
	if res, _ := get(t, base+"/healthz", nil); res.StatusCode != 200 {
		t.Fatalf("/healthz = %d", res.StatusCode)
	}
	stop()
	<-began
	res, body := get(t, base+"/readyz", nil)
	if res.StatusCode != 503 || !strings.Contains(body, "stopping") || !res.Close {
		t.Errorf("/readyz during the delay = %d %s (close %v)", res.StatusCode, body, res.Close)
	}
	if _, res, err := websocket.Dial(testCtx(t), "ws://"+ln.Addr().String()+"/lsp", nil); err == nil || res == nil || res.StatusCode != 503 {
		t.Errorf("a new session during the delay: %v", err)
	}
	select {
	case err := <-served:
		t.Fatalf("Serve returned during the delay: %v", err)
	default:
	}
}

// TestGateParsedFixturesAreMock: a run answered by parsed fixtures only
// (a test file's case through /mcp's test tool, the fault explorer's
// reruns) is a run with fixtures: the role mocker may make it, the role
// viewer may not; with live calls for the rest it needs the role runner.
func TestGateParsedFixturesAreMock(t *testing.T) {
	t.Parallel()
	g := NewGate(GateOptions{AllowRun: true})
	ran := 0
	run := g.Wrap(func(context.Context, workspace.Snapshot, engine.Request) (*dryrun.Result, error) {
		ran++
		return &dryrun.Result{Result: []byte("1")}, nil
	})
	parsed := engine.Fixtures{Parsed: &restclient.Mock{File: "a.test.yaml"}}
	for _, tc := range []struct {
		role Role
		fx   engine.Fixtures
		want string // in the refusal, "" for a run
	}{
		{RoleViewer, parsed, "role mocker"},
		{RoleMocker, parsed, ""},
		{RoleMocker, engine.Fixtures{Parsed: parsed.Parsed, Live: true}, "needs the role runner"},
	} {
		ctx := withIdentity(context.Background(), Identity{User: "u", Role: tc.role, Auth: AuthOIDC})
		before := ran
		_, err := run(ctx, workspace.Snapshot{}, engine.Request{Name: "s.js", Text: "return 1", Fixtures: tc.fx})
		switch {
		case tc.want == "" && (err != nil || ran != before+1):
			t.Errorf("%s, %+v: %v, ran %v", tc.role, tc.fx, err, ran > before)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || ran != before):
			t.Errorf("%s, %+v: %v, want a refusal naming %q", tc.role, tc.fx, err, tc.want)
		}
	}
}
