package e2e_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/restls/restls/internal/oauthtest"
	"github.com/restls/restls/web"
)

// withBearer sends every request with Authorization: Bearer tok.
type withBearer struct{ tok string }

func (b withBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.tok)
	return http.DefaultTransport.RoundTrip(r)
}

// mcpHTTP connects the official Go SDK's client to base's /mcp with
// token (none when empty).
func mcpHTTP(t *testing.T, base, token string) (*sdk.ClientSession, error) {
	t.Helper()
	hc := &http.Client{Timeout: time.Minute}
	if token != "" {
		hc.Transport = withBearer{token}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "restls-test", Version: "1"}, nil).Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err == nil {
		t.Cleanup(func() { _ = cs.Close() })
	}
	return cs, err
}

// TestMCPHTTPKey: /mcp on serve --http over loopback, behind the access
// key: refused without it; with it, the agent's whole flow, its dry run
// through the gate into the audit trail.
func TestMCPHTTPKey(t *testing.T) {
	t.Parallel()
	root := mcpProject(t)
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	cmd := restlsCommand(t, "serve", "--http", "127.0.0.1:0", "--allow-run", "--audit", audit)
	cmd.Dir = root
	p := startHTTPCmd(t, cmd)
	if _, err := mcpHTTP(t, p.base, ""); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("/mcp without the key: %v", err)
	}
	// Hostile requests with the key: each refused with a status and a
	// reason, the server answering on.
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for _, tc := range []struct {
		name, host, body string
		code             int
	}{
		{"a foreign Host (DNS rebinding)", "evil.example", list, 421},
		{"not JSON", "", "not json", 400},
		{"a body past the limit", "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"check","arguments":{"text":"` + strings.Repeat("x", 9<<20) + `"}}}`, 413},
	} {
		if code, body := postMCP(t, p.base, p.key, tc.host, tc.body); code != tc.code {
			t.Errorf("%s: %d %.200s; want %d", tc.name, code, body, tc.code)
		}
	}
	cs, err := mcpHTTP(t, p.base, p.key)
	if err != nil {
		t.Fatalf("/mcp with the key: %v", err)
	}
	agentFlow(t, cs, root)
	p.kill(syscall.SIGTERM)
	<-p.wait
	text, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	// The run, the test file's two cases, the fault explorer's run and
	// two reruns (the error escapes the script): each a run through the
	// gate.
	lines := strings.Split(strings.TrimSpace(string(text)), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d audit lines, want 6 (the run, two test cases, three fault runs):\n%s", len(lines), text)
	}
	for i, line := range lines {
		var r web.AuditRecord
		want := "returned"
		if i >= 4 {
			want = "threw"
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Script != "new-order.js" || r.Mode != "mock" || r.Outcome != want || r.Auth != "key" || r.Via != "mcp" {
			t.Errorf("audit of a /mcp run: %v\n%s", err, line)
		}
	}
}

// TestMCPHTTPRoles: /mcp with OpenID Connect tokens, as in the designer's
// tests: a viewer reads but may not run (a script, a test file, the
// fault explorer); a mocker runs with fixtures but not live; a runner
// runs live; each refusal names the role needed, and every run is in
// the audit trail.
func TestMCPHTTPRoles(t *testing.T) {
	t.Parallel()
	idp := newOIDC(t)
	svc := newEcho(t)
	oauth := oauthtest.New(t, oauthtest.Options{ClientID: "forms", Secret: testSecrets.clientSecret})
	project := roleProject(t, svc.URL, oauth.URL, testSecrets)
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	p := startHTTP(t, nil, "--auth", "oidc", "--oidc-issuer", idp.Issuer(), "--oidc-audience", idp.ClientID,
		"--project", project, "--allow-run", "--audit", audit)
	if _, err := mcpHTTP(t, p.base, ""); err == nil {
		t.Errorf("/mcp without a token connected")
	}
	// A test file beside the project file: one case, with fixtures.
	dir := filepath.Dir(project)
	for name, data := range map[string]string{
		"s.js":        `return api.rest.v1.get("open", {}, {}).body`,
		"s.test.yaml": "script: s.js\nfixtures:\n" + openFixture + "result: {mocked: true}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	call := func(cs *sdk.ClientSession, tool string, args map[string]any) (*sdk.CallToolResult, string) {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(res)
		return res, string(data)
	}
	mock := map[string]any{"text": `return api.rest.v1.get("open", {}, {}).body`, "fixtures": "fixtures:\n" + openFixture}
	live := map[string]any{"text": `return api.rest.v1.get("open", {}, {}).status.code`, "live": true}
	test := map[string]any{"path": "s.test.yaml"}
	faults := map[string]any{"path": "s.js", "fixtures": "fixtures:\n" + openFixture, "outcomes": []string{"500"}}
	for _, tc := range []struct {
		user   string
		groups []string
		mock   string // what a run with fixtures answers
		live   string // what a live run answers
		test   string // what the test tool answers
		faults string // what the faults tool answers
	}{
		{"vera", nil, "role mocker", "role mocker", "role mocker", "role mocker"},
		{"mo", []string{"authors"}, `"mocked":true`, "needs the role runner", `"passed":1`, `"verdict":"escaped"`},
		{"ron", []string{"ops"}, `"mocked":true`, `"result":200`, `"passed":1`, `"verdict":"escaped"`},
	} {
		cs, err := mcpHTTP(t, p.base, idp.token(t, tc.user, tc.groups, nil))
		if err != nil {
			t.Fatalf("%s: %v", tc.user, err)
		}
		var services struct{ Services []struct{ ServiceID string } }
		callTool(t, cs, "services", map[string]any{}, &services)
		if len(services.Services) != 4 {
			t.Errorf("%s: services %+v", tc.user, services)
		}
		for _, c := range []struct {
			tool string
			args map[string]any
			want string
		}{{"run", mock, tc.mock}, {"run", live, tc.live}, {"test", test, tc.test}, {"faults", faults, tc.faults}} {
			if _, out := call(cs, c.tool, c.args); !strings.Contains(out, c.want) {
				t.Errorf("%s: %s %v answered %.400s; want %s", tc.user, c.tool, c.args["live"], out, c.want)
			}
		}
	}
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
		got = append(got, r.User+"/"+r.Role+"/"+r.Mode+"/"+r.Outcome)
	}
	want := "vera/viewer/mock/refused vera/viewer/live/refused vera/viewer/mock/refused vera/viewer/mock/refused " +
		"mo/mocker/mock/returned mo/mocker/live/refused mo/mocker/mock/returned mo/mocker/mock/returned mo/mocker/mock/threw " +
		"ron/runner/mock/returned ron/runner/live/returned ron/runner/mock/returned ron/runner/mock/returned ron/runner/mock/threw"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("audit:\n%s\nwant\n%s", g, want)
	}
	for _, s := range []string{testSecrets.apiKey, testSecrets.basic, testSecrets.basicPassword, testSecrets.clientSecret} {
		if strings.Contains(string(text), s) {
			t.Errorf("the audit shows a credential")
		}
	}
}

// postMCP posts body to base's /mcp with the key, and Host host when
// not empty.
func postMCP(t *testing.T, base, key, host, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<16))
	return res.StatusCode, string(b)
}
