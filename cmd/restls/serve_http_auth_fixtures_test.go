package main

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/mccutchen/go-httpbin/v2/httpbin"
	"github.com/oauth2-proxy/mockoidc"
)

// The fixtures of the HTTP authentication tests, for mcp_http_test.go:
// a copy of internal/e2e/serve_http_auth_test.go's, which the serve --http
// tests took along (issue 34). They go when mcp_http_test.go, which drives
// the binary, moves to internal/e2e.

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

const (
	scriptOpenOther = `var a = api.rest.v1.get("open", {}, {}); var b = api.rest.v1.get("other", {}, {}); return [a.status.code, b.status.code];`
	scriptSecrets   = `var out = []; ["basic", "oauth", "open"].forEach(function (id) { var r = api.rest.v1.get(id, {}, {"Cookie": "session=c00kie-Value-Secret"}); out.push(r.body); }); return out;`
	openFixture     = "- serviceId: open\n  method: GET\n  status: 200\n  body: {mocked: true}\n"
)
