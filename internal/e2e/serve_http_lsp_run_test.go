package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/golang-jwt/jwt/v5"

	"github.com/restls/restls/web"
)

// wsLSP is an LSP client over serve --http's /lsp, for tests that must
// answer the server's own requests at a moment they choose.
type wsLSP struct {
	t   *testing.T
	ctx context.Context
	c   *websocket.Conn
}

// lspMessage is any JSON-RPC message: a request or notification
// (Method), or an answer (ID with Result or Error).
type lspMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// dialLSP opens /lsp on base with token as the bearer subprotocol.
func dialLSP(t *testing.T, ctx context.Context, base, token string) *wsLSP {
	t.Helper()
	u := "ws" + strings.TrimPrefix(base, "http") + "/lsp"
	c, _, err := websocket.Dial(ctx, u, &websocket.DialOptions{Subprotocols: []string{web.LSPProtocol, web.BearerProtocol + token}})
	if err != nil {
		t.Fatalf("/lsp: %v", err)
	}
	c.SetReadLimit(64 << 20)
	t.Cleanup(func() { _ = c.CloseNow() })
	return &wsLSP{t: t, ctx: ctx, c: c}
}

func (l *wsLSP) send(format string, args ...any) {
	l.t.Helper()
	if err := l.c.Write(l.ctx, websocket.MessageText, []byte(fmt.Sprintf(format, args...))); err != nil {
		l.t.Fatal(err)
	}
}

// until reads messages until one satisfies ok, and returns it.
func (l *wsLSP) until(what string, ok func(lspMessage) bool) lspMessage {
	l.t.Helper()
	for {
		_, b, err := l.c.Read(l.ctx)
		if err != nil {
			l.t.Fatalf("waiting for %s: %v", what, err)
		}
		var m lspMessage
		if err := json.Unmarshal(b, &m); err != nil {
			l.t.Fatalf("not JSON-RPC: %s", b)
		}
		if ok(m) {
			return m
		}
	}
}

// answer waits for the answer to request id.
func (l *wsLSP) answer(id int) lspMessage {
	l.t.Helper()
	return l.until(fmt.Sprintf("the answer to %d", id), func(m lspMessage) bool { return m.Method == "" && string(m.ID) == fmt.Sprint(id) })
}

// request waits for the server's request method.
func (l *wsLSP) request(method string) lspMessage {
	l.t.Helper()
	return l.until(method, func(m lspMessage) bool { return m.Method == method && len(m.ID) > 0 })
}

// envProject writes a project with the environments test and prod, whose
// serviceId crm is svc's /anything/test in one and /anything/prod in the
// other, and a role runner limited to test (group ops-test).
func envProject(t *testing.T, svc string) string {
	t.Helper()
	dir := t.TempDir()
	for _, env := range []string{"test", "prod"} {
		xml := fmt.Sprintf(`<scriptservice><api serviceId="crm" url="%s/anything/%s"/></scriptservice>`, svc, env)
		if err := os.WriteFile(filepath.Join(dir, env+".xml"), []byte(xml), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	project := `environments:
  test: {serviceXml: test.xml}
  prod: {serviceXml: prod.xml}
defaultEnvironment: test
roles:
  default: viewer
  groups:
    ops-test: {role: runner, environments: [test]}
`
	file := filepath.Join(dir, "restls.yaml")
	if err := os.WriteFile(file, []byte(project), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestServeHTTPLSPRunEnvironmentOnce: a runner limited to the
// environment test, over /lsp, whose session is in prod when it asks for
// a run and switches to test while the server waits for the answer to
// window/workDoneProgress/create. The run is decided when it is asked
// for: refused (prod), never reaching prod's service, and audited as
// prod. The other way round, the run asked for in test runs in test and
// is audited as test, whatever the session chose meanwhile.
func TestServeHTTPLSPRunEnvironmentOnce(t *testing.T) {
	t.Parallel()
	idp := newOIDC(t)
	svc := newEcho(t)
	project := envProject(t, svc.URL)
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	p := startHTTP(t, nil, "--auth", "oidc", "--oidc-issuer", idp.Issuer(), "--oidc-audience", idp.ClientID,
		"--project", project, "--allow-run", "--audit", audit)
	rita := idp.token(t, "rita", []string{"ops-test"}, nil)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	l := dialLSP(t, ctx, p.base, rita)
	l.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"window":{"workDoneProgress":true}},"initializationOptions":{"environment":"prod"}}}`)
	l.answer(1)
	l.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	l.send(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///d/a.js","languageId":"javascript","version":1,"text":"return api.rest.v1.get(\"crm\", {}, {}).status.code"}}}`)

	// servicesURL is where the session's crm points now; the answer
	// comes after every message sent before it was handled.
	id := 100
	servicesURL := func() string {
		id++
		l.send(`{"jsonrpc":"2.0","id":%d,"method":"workspace/executeCommand","params":{"command":"restls.services"}}`, id)
		m := l.answer(id)
		var hints map[string]struct {
			URL string `json:"url"`
		}
		if err := json.Unmarshal(m.Result, &hints); err != nil {
			t.Fatalf("restls.services answered %s: %v", m.Result, err)
		}
		return hints["crm"].URL
	}
	switchTo := func(env string) {
		l.send(`{"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"restls":{"environment":%q}}}}`, env)
		if got := servicesURL(); !strings.HasSuffix(got, "/anything/"+env) {
			t.Fatalf("after switching to %s, crm is %q", env, got)
		}
	}
	if got := servicesURL(); !strings.HasSuffix(got, "/anything/prod") {
		t.Fatalf("the session starts in prod, but crm is %q", got)
	}

	run := func(runID int, during string) lspMessage {
		l.send(`{"jsonrpc":"2.0","id":%d,"method":"workspace/executeCommand","params":{"command":"restls.runScript","arguments":[{"uri":"file:///d/a.js"}]}}`, runID)
		create := l.request("window/workDoneProgress/create")
		switchTo(during)
		l.send(`{"jsonrpc":"2.0","id":%s,"result":null}`, create.ID)
		return l.answer(runID)
	}

	// Asked for in prod, switched to test while the server waited.
	refused := run(2, "test")
	if refused.Error == nil || !strings.Contains(refused.Error.Message, "allows live runs in test only") || !strings.Contains(refused.Error.Message, "prod") {
		t.Errorf("a run asked for in prod answered %s %+v; want refused, naming prod", refused.Result, refused.Error)
	}
	if svc.saw("/anything/prod") {
		t.Errorf("a runner limited to test reached prod's service: %v", svc.paths)
	}

	// Asked for in test, switched to prod while the server waited.
	ran := run(3, "prod")
	if ran.Error != nil || !strings.Contains(string(ran.Result), `"result":200`) {
		t.Errorf("a run asked for in test answered %s %+v; want it run", ran.Result, ran.Error)
	}
	if !svc.saw("/anything/test") || svc.saw("/anything/prod") {
		t.Errorf("the run in test reached %v; want /anything/test only", svc.paths)
	}
	_ = l.c.Close(websocket.StatusNormalClosure, "")
	p.kill(syscall.SIGTERM)
	<-p.wait

	text, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(string(text)), "\n") {
		var r web.AuditRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		got = append(got, r.Environment+"/"+r.Outcome)
	}
	if want := "prod/refused test/returned"; strings.Join(got, " ") != want {
		t.Errorf("audit: %s; want %s\n%s", strings.Join(got, " "), want, text)
	}
}

// TestServeHTTPAuditBounded: a viewer over /lsp asks for runs of a
// script whose name (from its URI) is 300 KB long and holds a C1 control
// and a bidirectional override, again and again, against an audit of
// 1 MB with one backup. The runner's earlier record stays; the viewer's
// records are short, escaped, and past 20 a minute counted in one
// "limited" record.
func TestServeHTTPAuditBounded(t *testing.T) {
	t.Parallel()
	idp := newOIDC(t)
	svc := newEcho(t)
	project := roleProject(t, svc.URL, svc.URL+"/token", testSecrets)
	dir := t.TempDir()
	audit := filepath.Join(dir, "audit.jsonl")
	p := startHTTP(t, nil, "--auth", "oidc", "--oidc-issuer", idp.Issuer(), "--oidc-audience", idp.ClientID,
		"--project", project, "--allow-run", "--audit", audit, "--audit-max-size", "1", "--audit-max-backups", "1")
	runner := idp.token(t, "ron", []string{"ops"}, nil)
	viewer := idp.token(t, "vera", nil, nil)
	if code, body := send(t, http.MethodPost, p.base+"/v1/run", runBody("return 1", ""), bearer(runner)); code != 200 {
		t.Fatalf("the runner's run: %d %.300s", code, body)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	l := dialLSP(t, ctx, p.base, viewer)
	l.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)
	l.answer(1)
	l.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	name := "\u009b31m\u202egnp." + strings.Repeat("x", 300<<10) + ".js"
	docURI, _ := json.Marshal("file:///d/" + name)
	l.send(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%s,"languageId":"javascript","version":1,"text":"return 1"}}}`, docURI)
	const attempts = 30
	for i := range attempts {
		l.send(`{"jsonrpc":"2.0","id":%d,"method":"workspace/executeCommand","params":{"command":"restls.runScript","arguments":[{"uri":%s}]}}`, 10+i, docURI)
		if m := l.answer(10 + i); m.Error == nil || !strings.Contains(m.Error.Message, "role mocker") {
			t.Fatalf("the viewer's run %d answered %s %+v", i, m.Result, m.Error)
		}
	}
	_ = l.c.Close(websocket.StatusNormalClosure, "")
	p.kill(syscall.SIGTERM)
	<-p.wait

	if rotated, _ := filepath.Glob(filepath.Join(dir, "audit-*")); len(rotated) > 0 {
		t.Errorf("the viewer's refusals rotated the audit: %v", rotated)
	}
	text, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"\u009b", "\u202e"} {
		if strings.Contains(string(text), raw) {
			t.Errorf("the audit holds %q raw", raw)
		}
	}
	var ron, refused, dropped int
	for _, line := range strings.Split(strings.TrimSpace(string(text)), "\n") {
		if len(line) > 2048 {
			t.Errorf("an audit record of %d bytes: %.200s", len(line), line)
		}
		var r web.AuditRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("audit line %.200q: %v", line, err)
		}
		switch {
		case r.User == "ron" && r.Outcome == "returned":
			ron++
		case r.User == "vera" && r.Outcome == "refused":
			refused++
			if !strings.HasPrefix(r.Script, `\u009b31m\u202egnp.xxx`) || !strings.Contains(r.Script, "bytes more)") {
				t.Errorf("the script's name in the audit: %.300q", r.Script)
			}
		case r.User == "vera" && r.Event == "limited":
			dropped += r.Dropped
		default:
			t.Errorf("audit record %.300s", line)
		}
	}
	if ron != 1 || refused != 20 || dropped != attempts-20 {
		t.Errorf("the audit holds %d of the runner's runs, %d of the viewer's refusals and a count of %d more; want 1, 20, %d", ron, refused, dropped, attempts-20)
	}
}

// TestServeHTTPLSPTokenExpires: an /lsp session opened with an OIDC token
// runs and reloads while the token is good and is refused both once it
// has expired (with --oidc-skew's grace), saying so and how to renew it;
// the refusals are audited; a new connection with a new token runs
// again.
func TestServeHTTPLSPTokenExpires(t *testing.T) {
	t.Parallel()
	idp := newOIDC(t)
	svc := newEcho(t)
	project := roleProject(t, svc.URL, svc.URL+"/token", testSecrets)
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	const skew = 100 * time.Millisecond
	p := startHTTP(t, nil, "--auth", "oidc", "--oidc-issuer", idp.Issuer(), "--oidc-audience", idp.ClientID, "--oidc-skew", skew.String(),
		"--project", project, "--allow-run", "--audit", audit)
	// JWT expiries are whole seconds: the token expires 3 to 4 s from now.
	exp := time.Unix(time.Now().Unix()+4, 0)
	short := idp.token(t, "ron", []string{"ops"}, func(c jwt.MapClaims) { c["exp"] = exp.Unix() })

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	session := func(tok string) *wsLSP {
		l := dialLSP(t, ctx, p.base, tok)
		l.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)
		l.answer(1)
		l.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
		l.send(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///d/a.js","languageId":"javascript","version":1,"text":"return 7"}}}`)
		return l
	}
	run := func(l *wsLSP, id int) lspMessage {
		l.send(`{"jsonrpc":"2.0","id":%d,"method":"workspace/executeCommand","params":{"command":"restls.runScript","arguments":[{"uri":"file:///d/a.js"}]}}`, id)
		return l.answer(id)
	}
	l := session(short)
	l.send(`{"jsonrpc":"2.0","id":6,"method":"workspace/executeCommand","params":{"command":"restls.reload"}}`)
	if m := l.answer(6); m.Error != nil {
		t.Fatalf("a reload with a good token: %+v", m.Error)
	}
	if m := run(l, 2); m.Error != nil || !strings.Contains(string(m.Result), `"result":7`) {
		if time.Now().After(exp) {
			t.Skip("the machine took more than 3 s to open a session and run once: the token expired before the first run")
		}
		t.Fatalf("a run with a good token answered %s %+v", m.Result, m.Error)
	}
	// The clock is what this test waits on: the token's expiry.
	<-time.After(time.Until(exp.Add(skew)))
	m := run(l, 3)
	if m.Error == nil || !strings.Contains(m.Error.Message, "expired") || !strings.Contains(m.Error.Message, "open the connection again with a new token") {
		t.Errorf("a run after the token expired answered %s %+v; want refused, saying how to renew", m.Result, m.Error)
	}
	// Nor does it reload the configuration for everyone.
	l.send(`{"jsonrpc":"2.0","id":5,"method":"workspace/executeCommand","params":{"command":"restls.reload"}}`)
	if m := l.answer(5); m.Error == nil || !strings.Contains(m.Error.Message, "expired") || !strings.Contains(m.Error.Message, "not reloaded") {
		t.Errorf("a reload after the token expired answered %s %+v", m.Result, m.Error)
	}
	// Hints go on: the session is not a run.
	l.send(`{"jsonrpc":"2.0","id":4,"method":"workspace/executeCommand","params":{"command":"restls.services"}}`)
	if m := l.answer(4); m.Error != nil {
		t.Errorf("restls.services after the expiry: %+v", m.Error)
	}
	_ = l.c.Close(websocket.StatusNormalClosure, "")

	fresh := session(idp.token(t, "ron", []string{"ops"}, nil))
	if m := run(fresh, 2); m.Error != nil || !strings.Contains(string(m.Result), `"result":7`) {
		t.Errorf("a run on a new connection with a new token answered %s %+v", m.Result, m.Error)
	}
	_ = fresh.c.Close(websocket.StatusNormalClosure, "")
	p.kill(syscall.SIGTERM)
	<-p.wait
	text, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"event":"run"`, `"event":"reload"`} {
		found := false
		for _, line := range strings.Split(string(text), "\n") {
			found = found || strings.Contains(line, want) && strings.Contains(line, `"outcome":"refused","code":"token-expired"`)
		}
		if !found {
			t.Errorf("no %s refused with token-expired in the audit:\n%s", want, text)
		}
	}
}
