package e2e_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/golang-jwt/jwt/v5"
	"github.com/mccutchen/go-httpbin/v2/httpbin"
	"github.com/oauth2-proxy/mockoidc"

	"github.com/restls/restls/internal/oauthtest"
	"github.com/restls/restls/web"
)

// roleProject writes a project whose services are on svc (open, limited,
// and basic- and OAuth-protected ones for the audit's secret scan) and
// whose roles key maps groups to roles; it returns the project file.
func roleProject(t *testing.T, svc, oauthURL string, secrets authSecrets) string {
	t.Helper()
	dir := t.TempDir()
	xml := fmt.Sprintf(`<scriptservice>
  <api serviceId="open" url="%[1]s/anything/open?apiKey=%[2]s"/>
  <api serviceId="other" url="%[1]s/anything/other"/>
  <api serviceId="basic" url="%[1]s/anything/basic"><authorization type="basic"><encodedCredentials>%[3]s</encodedCredentials></authorization></api>
  <api serviceId="oauth" url="%[1]s/anything/oauth"><authorization type="oAuth"><id>cc</id></authorization></api>
  <oAuth id="cc" url="%[4]s" grantType="client_credentials" clientAuthenticationMethod="client_secret_post" clientId="forms" clientSecret="%[5]s"/>
</scriptservice>`, svc, secrets.apiKey, secrets.basic, oauthURL, secrets.clientSecret)
	xmlFile := filepath.Join(dir, "services.xml")
	if err := os.WriteFile(xmlFile, []byte(xml), 0o600); err != nil {
		t.Fatal(err)
	}
	project := `serviceXml: services.xml
environments:
  test: {}
defaultEnvironment: test
roles:
  default: viewer
  groups:
    authors: {role: mocker}
    ops-open: {role: runner, services: [open]}
    ops: {role: runner}
`
	file := filepath.Join(dir, "restls.yaml")
	if err := os.WriteFile(file, []byte(project), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

type authSecrets struct {
	apiKey, basic, basicPair, basicPassword, clientSecret string
}

var testSecrets = authSecrets{
	apiKey:        "ap1-Key-In-The-Url",
	basic:         base64.StdEncoding.EncodeToString([]byte("svc:b4sic-Passw0rd")),
	basicPair:     "svc:b4sic-Passw0rd",
	basicPassword: "b4sic-Passw0rd",
	clientSecret:  "cl1ent-S3cret-Value",
}

// echo is httpbin behind a recorder of the paths it was asked for.
type echo struct {
	*httptest.Server
	mu    sync.Mutex
	paths []string
}

func newEcho(t *testing.T) *echo {
	e := &echo{}
	bin := httpbin.New()
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.paths = append(e.paths, r.URL.Path)
		e.mu.Unlock()
		bin.ServeHTTP(w, r)
	}))
	t.Cleanup(e.Close)
	return e
}

func (e *echo) saw(path string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range e.paths {
		if p == path {
			return true
		}
	}
	return false
}

// oidcProvider is a real OpenID Connect provider on loopback, and
// tokens it signs.
type oidcProvider struct {
	*mockoidc.MockOIDC
}

func newOIDC(t *testing.T) oidcProvider {
	t.Helper()
	m, err := mockoidc.Run()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	return oidcProvider{m}
}

// token signs a token for user in groups; aud and exp may be changed to
// make it wrong.
func (p oidcProvider) token(t *testing.T, user string, groups []string, mod func(jwt.MapClaims)) string {
	t.Helper()
	now := time.Now()
	claims := jwt.MapClaims{"iss": p.Issuer(), "aud": p.ClientID, "sub": "id-" + user, "preferred_username": user,
		"groups": groups, "iat": now.Unix(), "exp": now.Add(10 * time.Minute).Unix()}
	if mod != nil {
		mod(claims)
	}
	tok, err := p.Keypair.SignJWT(claims)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func send(t *testing.T, method, url, body string, header http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func bearer(tok string) http.Header { return http.Header{"Authorization": {"Bearer " + tok}} }

func runBody(script string, mock string) string {
	m := map[string]any{"text": script}
	if mock != "" {
		m["mock"] = mock
	}
	b, _ := json.Marshal(m)
	return string(b)
}

const (
	scriptOpenOther = `var a = api.rest.v1.get("open", {}, {}); var b = api.rest.v1.get("other", {}, {}); return [a.status.code, b.status.code];`
	scriptSecrets   = `var out = []; ["basic", "oauth", "open"].forEach(function (id) { var r = api.rest.v1.get(id, {}, {"Cookie": "session=c00kie-Value-Secret"}); out.push(r.body); }); return out;`
	openFixture     = "- serviceId: open\n  method: GET\n  status: 200\n  body: {mocked: true}\n"
)

// TestServeHTTPOIDC: --auth oidc through the binary, with tokens from a
// real OpenID Connect provider on loopback: no token, a wrong audience
// and an expired token are refused; a viewer reads hints but does not
// run; a mocker runs with fixtures only; a runner limited to serviceIds
// gets service-not-allowed for any other, which never reaches the
// network; /lsp takes the token as a subprotocol. The audit names each
// run and holds no token and no secret of the configuration, in any
// encoding the preview masks.
func TestServeHTTPOIDC(t *testing.T) {
	t.Parallel()
	idp := newOIDC(t)
	svc := newEcho(t)
	oauth := oauthtest.New(t, oauthtest.Options{ClientID: "forms", Secret: testSecrets.clientSecret})
	project := roleProject(t, svc.URL, oauth.URL, testSecrets)
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	p := startHTTP(t, nil, "--auth", "oidc", "--oidc-issuer", idp.Issuer(), "--oidc-audience", idp.ClientID,
		"--project", project, "--allow-run", "--audit", audit, "--metrics")

	viewer := idp.token(t, "vera", nil, nil)
	mocker := idp.token(t, "mo", []string{"authors"}, nil)
	limited := idp.token(t, "rita", []string{"ops-open"}, nil)
	runner := idp.token(t, "ron", []string{"authors", "ops"}, nil)
	wrongAud := idp.token(t, "eve", []string{"ops"}, func(c jwt.MapClaims) { c["aud"] = "another-app" })
	expired := idp.token(t, "old", []string{"ops"}, func(c jwt.MapClaims) {
		c["iat"], c["exp"] = time.Now().Add(-time.Hour).Unix(), time.Now().Add(-5*time.Minute).Unix()
	})
	tokens := []string{viewer, mocker, limited, runner, wrongAud, expired}

	for _, tc := range []struct {
		name, tok string
		code      int
		want      string
	}{
		{"no token", "", 401, "sign in"},
		{"wrong audience", wrongAud, 401, "refused"},
		{"expired", expired, 401, "expired"},
		{"viewer", viewer, 200, "open"},
	} {
		h := http.Header{}
		if tc.tok != "" {
			h = bearer(tc.tok)
		}
		code, body := send(t, http.MethodGet, p.base+"/v1/services", "", h)
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("%s: GET /v1/services = %d %.200s", tc.name, code, body)
		}
	}
	// The access key's query parameter is not a way in.
	if code, _ := send(t, http.MethodGet, p.base+"/v1/services?access_token="+url.QueryEscape(runner), "", nil); code != 401 {
		t.Errorf("a token in the URL was taken: %d", code)
	}

	for _, tc := range []struct {
		name, tok, body string
		code            int
		want            string
	}{
		{"viewer mock", viewer, runBody(`return 1`, openFixture), 403, "role mocker"},
		{"mocker live", mocker, runBody(scriptOpenOther, ""), 403, "needs the role runner"},
		{"mocker mock", mocker, runBody(`return api.rest.v1.get("open", {}, {}).body`, openFixture), 200, `"mocked":true`},
		{"limited runner", limited, runBody(scriptOpenOther, ""), 200, "service-not-allowed"},
		{"runner", runner, runBody(scriptSecrets, ""), 200, `"result"`},
	} {
		code, body := send(t, http.MethodPost, p.base+"/v1/run", tc.body, bearer(tc.tok))
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("%s: POST /v1/run = %d %.300s", tc.name, code, body)
		}
	}
	if !svc.saw("/anything/open") || svc.saw("/anything/other") {
		t.Errorf("the limited runner's calls reached %v; want /anything/open and never /anything/other", svc.paths)
	}

	// /lsp: the token as a subprotocol; a viewer's run names the role.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	wsBase := "ws" + strings.TrimPrefix(p.base, "http") + "/lsp"
	if _, res, err := websocket.Dial(ctx, wsBase, nil); err == nil || res == nil || res.StatusCode != 401 {
		t.Errorf("/lsp without a token: %v", err)
	}
	c, res, err := websocket.Dial(ctx, wsBase, &websocket.DialOptions{Subprotocols: []string{web.LSPProtocol, web.BearerProtocol + viewer}})
	if err != nil {
		t.Fatalf("/lsp with the token as a subprotocol: %v", err)
	}
	if got := res.Header.Get("Sec-WebSocket-Protocol"); got != web.LSPProtocol {
		t.Errorf("the server selected the subprotocol %q, want %s (never the token)", got, web.LSPProtocol)
	}
	answer := lspExchange(t, ctx, c, `{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"restls.runScript","arguments":[{"uri":"file:///d/a.js"}]}}`)
	if !strings.Contains(answer, `"error"`) || !strings.Contains(answer, "role mocker") || !strings.Contains(answer, "vera") {
		t.Errorf("a viewer's run over /lsp answered %s", answer)
	}
	_ = c.Close(websocket.StatusNormalClosure, "")

	_, metrics := send(t, http.MethodGet, p.base+"/metrics", "", bearer(runner))
	for _, s := range []string{`restls_dry_runs_by_role_total{mode="mock",outcome="returned",role="mocker"} 1`, `restls_dry_runs_by_role_total{mode="live",outcome="refused",role="mocker"} 1`} {
		if !strings.Contains(metrics, s) {
			t.Errorf("/metrics has no %s", s)
		}
	}
	p.kill(syscall.SIGTERM)
	<-p.wait

	text, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	var users []string
	for _, line := range strings.Split(strings.TrimSpace(string(text)), "\n") {
		var r web.AuditRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		users = append(users, r.User+"/"+r.Role+"/"+r.Mode+"/"+r.Outcome)
		if r.Auth != "oidc" || r.Environment != "test" || len(r.SHA256) != 64 {
			t.Errorf("audit record %s", line)
		}
	}
	want := "vera/viewer/mock/refused mo/mocker/live/refused mo/mocker/mock/returned rita/runner/live/threw ron/runner/live/returned vera/viewer/live/refused"
	if got := strings.Join(users, " "); got != want {
		t.Errorf("audit:\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(string(text), `"service-not-allowed"`) {
		t.Errorf("the limited runner's refused call is not in the audit:\n%s", text)
	}
	if len(oauth.Issued()) == 0 || !svc.saw("/anything/basic") || !svc.saw("/anything/oauth") {
		t.Fatal("the runner's script did not reach the protected services: the scan below would prove nothing")
	}
	scanSecrets(t, "the audit", string(text), append(append(tokens, oauth.Issued()...), testSecrets.apiKey, testSecrets.basic, testSecrets.basicPair,
		testSecrets.basicPassword, testSecrets.clientSecret, "c00kie-Value-Secret"))
}

// scanSecrets fails when text holds any secret in any encoding the
// preview masks (restclient.Redactor's forms) or in base64.
func scanSecrets(t *testing.T, what, text string, secrets []string) {
	t.Helper()
	if len(secrets) == 0 {
		t.Fatal("no secrets to look for")
	}
	for _, s := range secrets {
		j, _ := json.Marshal(s)
		forms := []string{s, string(j[1 : len(j)-1]), url.QueryEscape(s), url.PathEscape(s), base64.StdEncoding.EncodeToString([]byte(s)),
			base64.RawURLEncoding.EncodeToString([]byte(s))}
		for _, f := range forms {
			if i := strings.Index(text, f); i >= 0 {
				t.Errorf("%s holds a secret (%.12s...) at ...%s...", what, f, text[max(0, i-60):min(len(text), i+60)])
			}
		}
	}
}

// lspExchange initializes an LSP session on c, opens a document and
// sends call; it returns the answer to call (id 2).
func lspExchange(t *testing.T, ctx context.Context, c *websocket.Conn, call string) string {
	t.Helper()
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`,
		`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///d/a.js","languageId":"javascript","version":1,"text":"return 1"}}}`,
		call,
	} {
		if err := c.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(msg, []byte(`"id":2`)) {
			return string(msg)
		}
	}
}

// TestServeHTTPProxy: --auth proxy through the binary: the user and
// groups headers decide the role, only from --trusted-proxy; from any
// other address every request is refused.
func TestServeHTTPProxy(t *testing.T) {
	t.Parallel()
	svc := newEcho(t)
	project := roleProject(t, svc.URL, "http://127.0.0.1:1", testSecrets)
	p := startHTTP(t, nil, "--auth", "proxy", "--trusted-proxy", "127.0.0.1/32", "--project", project, "--allow-run")
	as := func(user, groups string) http.Header {
		return http.Header{web.DefaultUserHeader: {user}, web.DefaultGroupsHeader: {groups}}
	}
	for _, tc := range []struct {
		name   string
		h      http.Header
		method string
		path   string
		body   string
		code   int
		want   string
	}{
		{"no user", nil, http.MethodGet, "/v1/services", "", 401, "X-Forwarded-User"},
		{"viewer reads", as("vera", ""), http.MethodGet, "/v1/services", "", 200, "open"},
		{"viewer runs", as("vera", ""), http.MethodPost, "/v1/run", runBody(`return 1`, openFixture), 403, "role mocker"},
		{"mocker live", as("mo", "authors"), http.MethodPost, "/v1/run", runBody(scriptOpenOther, ""), 403, "role runner"},
		{"mocker mock", as("mo", "authors"), http.MethodPost, "/v1/run", runBody(`return api.rest.v1.get("open", {}, {}).body`, openFixture), 200, `"mocked":true`},
		{"runner", as("ron", "ops"), http.MethodPost, "/v1/run", runBody(scriptOpenOther, ""), 200, "[200,200]"},
	} {
		code, body := send(t, tc.method, p.base+tc.path, tc.body, tc.h)
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %s %s = %d %.300s", tc.name, tc.method, tc.path, code, body)
		}
	}
	untrusted := startHTTP(t, nil, "--auth", "proxy", "--trusted-proxy", "10.0.0.0/8", "--project", project)
	if code, body := send(t, http.MethodGet, untrusted.base+"/v1/services", "", as("ron", "ops")); code != 403 || !strings.Contains(body, "--trusted-proxy") {
		t.Errorf("a request from outside --trusted-proxy: %d %s", code, body)
	}
}

// TestServeHTTPAuthFlags: the identity flags are checked before anything
// listens.
func TestServeHTTPAuthFlags(t *testing.T) {
	t.Parallel()
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--auth", "ldap"}, "--auth"},
		{[]string{"--auth", "oidc"}, "--oidc-issuer"},
		{[]string{"--auth", "proxy"}, "--trusted-proxy"},
		{[]string{"--auth", "proxy", "--trusted-proxy", "nope"}, "--trusted-proxy"},
		{[]string{"--auth", "proxy", "--trusted-proxy", "127.0.0.1", "--token", "t"}, "RESTLS_HTTP_TOKEN) is the access key of --auth key"},
		{[]string{"--auth", "oidc", "--oidc-issuer", "http://127.0.0.1:1", "--oidc-audience", "a"}, "discovery failed"},
		{[]string{"--audit", filepath.Join(notDir, "audit.jsonl")}, "--audit"},
	} {
		var out bytes.Buffer
		cmd := restlsCommand(t, append([]string{"serve", "--http", "127.0.0.1:0", "--config-root", "../../testdata/config"}, tc.args...)...)
		cmd.Stderr = &out
		runWithin(t, cmd, 30*time.Second, out.String)
		if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(out.String(), tc.want) {
			t.Errorf("%v: exit %d, %s", tc.args, cmd.ProcessState.ExitCode(), out.String())
		}
	}
}
