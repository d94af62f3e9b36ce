package restclient

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/restls/restls/config"
	"github.com/restls/restls/internal/oauthtest"
)

const (
	testClientID     = "forms-backend"
	testClientSecret = "cl1ent-S3cret-value"
	testUser         = "svc-forms"
	testPassword     = "us3r-Passw0rd-value"
	testGateway      = "Z2F0ZXdheTpnNHRld2F5LXBhc3M=" // gateway:g4teway-pass
)

// authServer is a real OAuth2 authorization server (internal/oauthtest)
// plus a resource server that accepts only its tokens.
type authServer struct {
	token    *oauthtest.Server
	resource *httptest.Server
	requests atomic.Int32

	// clientAuth is where the token endpoint reads the client credentials
	// (config.ClientSecretBasic or config.ClientSecretPost).
	clientAuth string
	// revokeAfterUse makes the resource server revoke each token it
	// accepts, so the next call with it gets a 401.
	revokeAfterUse bool
	// always401 makes the resource server reject every token.
	always401 bool
	// gateway, when set, is the basic authorization the token endpoint
	// requires (the nested authorization of docs/api.md#oauth).
	gateway string
	// fail, when set, answers every token request with this status and body.
	failStatus int
	failBody   string
}

func newAuthServer(t testing.TB, clientAuth string, setup func(*authServer)) *authServer {
	t.Helper()
	a := &authServer{clientAuth: clientAuth}
	if setup != nil {
		setup(a)
	}
	a.token = oauthtest.New(t, oauthtest.Options{
		ClientID:   testClientID,
		Secret:     testClientSecret,
		BasicAuth:  a.clientAuth == config.ClientSecretBasic,
		Users:      map[string]string{testUser: testPassword},
		Gateway:    a.gateway,
		FailStatus: a.failStatus,
		FailBody:   a.failBody,
	})
	a.resource = httptest.NewServer(http.HandlerFunc(a.handleResource))
	t.Cleanup(a.resource.Close)
	return a
}

func (a *authServer) handleResource(w http.ResponseWriter, r *http.Request) {
	a.requests.Add(1)
	ti, err := a.token.Validate(r)
	if err != nil || a.always401 {
		http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
		return
	}
	if a.revokeAfterUse {
		_ = a.token.Revoke(r.Context(), ti.GetAccess())
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"client":%q,"user":%q}`, ti.GetClientID(), ti.GetUserID())
}

func oauthDef(a *authServer, grant, method string, nested bool) string {
	user := ""
	if grant == config.GrantPassword {
		user = fmt.Sprintf(` username=%q password=%q`, testUser, testPassword)
	}
	inner := `<additionalParams><scope>documents</scope><audience>docs-api</audience></additionalParams>`
	if nested {
		inner += basicAuth(testGateway)
	}
	return fmt.Sprintf(`<oAuth id="o" url=%q grantType=%q clientAuthenticationMethod=%q clientId=%q clientSecret=%q%s>%s</oAuth>`,
		a.token.URL+"/oauth/token", grant, method, testClientID, testClientSecret, user, inner)
}

func oauthRegistry(t testing.TB, a *authServer, grant, method string, nested bool) *config.Registry {
	return loadRegistry(t, config.ScriptService, servicesXML(
		api("res", a.resource.URL+"/data", oauthRef("o")),
		oauthDef(a, grant, method, nested),
	))
}

func TestOAuthGrantsAndClientAuthMethods(t *testing.T) {
	t.Parallel()
	for _, grant := range []string{config.GrantClientCredentials, config.GrantPassword} {
		for _, method := range []string{config.ClientSecretPost, config.ClientSecretBasic} {
			for _, nested := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/nested=%v", grant, method, nested), func(t *testing.T) {
					a := newAuthServer(t, method, func(a *authServer) {
						if nested {
							a.gateway = testGateway
							// Client credentials move to the body (decision):
							// the server must accept them there.
							a.clientAuth = config.ClientSecretPost
						}
					})
					s := New(Options{}).Session(oauthRegistry(t, a, grant, method, nested))
					resp, call, err := do(t, s, &Request{ServiceID: "res"})
					if err != nil {
						t.Fatal(err)
					}
					if resp.StatusCode != 200 {
						t.Fatalf("status %d %s", resp.StatusCode, resp.Body)
					}
					wantUser := ""
					if grant == config.GrantPassword {
						wantUser = "user-1"
					}
					if want := fmt.Sprintf(`{"client":%q,"user":%q}`, testClientID, wantUser); string(resp.Body) != want {
						t.Errorf("body %s, want %s", resp.Body, want)
					}
					last := a.token.LastRequest(t)
					f := last.Form
					if f.Get("grant_type") != grant || f.Get("scope") != "documents" || f.Get("audience") != "docs-api" {
						t.Errorf("token form %v: want grant_type and both additional params", f)
					}
					inBody := f.Get("client_secret") == testClientSecret
					basicHdr := last.Authorization == "Basic "+base64.StdEncoding.EncodeToString([]byte(testClientID+":"+testClientSecret))
					switch {
					case nested:
						if !inBody || last.Authorization != "Basic "+testGateway {
							t.Errorf("nested: client secret in body %v, Authorization %q", inBody, last.Authorization)
						}
					case method == config.ClientSecretPost:
						if !inBody || last.Authorization != "" {
							t.Errorf("client_secret_post: secret in body %v, Authorization %q", inBody, last.Authorization)
						}
					default:
						if inBody || !basicHdr {
							t.Errorf("client_secret_basic: secret in body %v, Authorization %q", inBody, last.Authorization)
						}
					}
					if !hasEvent(call, EventToken, `token of oAuth "o" fetched`) {
						t.Errorf("events %+v", call.Events)
					}
					if a.token.TokenRequests() != 1 {
						t.Errorf("%d token fetches", a.token.TokenRequests())
					}
				})
			}
		}
	}
}

func TestOAuthTokenCacheExpiryAndConcurrency(t *testing.T) {
	t.Parallel()
	a := newAuthServer(t, config.ClientSecretPost, nil)
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	c := New(Options{Now: func() time.Time { return time.Unix(0, now.Load()) }})
	reg := oauthRegistry(t, a, config.GrantClientCredentials, config.ClientSecretPost, false)
	s := c.Session(reg)

	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := do(t, s, &Request{ServiceID: "res"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := a.token.TokenRequests(); n != 1 {
		t.Fatalf("8 concurrent calls made %d token fetches, want 1", n)
	}
	// A new session of the same client reuses the cached token.
	_, call, err := do(t, c.Session(reg), &Request{ServiceID: "res"})
	if err != nil || a.token.TokenRequests() != 1 || !hasEvent(call, EventToken, "cached token") {
		t.Fatalf("second session: %v, %d fetches, %+v", err, a.token.TokenRequests(), call.Events)
	}
	// 59 minutes later the hour-long token is still good...
	now.Add(int64(59 * time.Minute))
	if _, _, err := do(t, s, &Request{ServiceID: "res"}); err != nil || a.token.TokenRequests() != 1 {
		t.Fatalf("at 59 min: %v, %d fetches", err, a.token.TokenRequests())
	}
	// ...but within TokenEarlyExpiry of its end it is replaced.
	now.Add(int64(time.Minute - TokenEarlyExpiry + time.Second))
	if _, _, err := do(t, s, &Request{ServiceID: "res"}); err != nil || a.token.TokenRequests() != 2 {
		t.Fatalf("near expiry: %v, %d fetches, want 2", err, a.token.TokenRequests())
	}
}

func TestOAuth401InvalidatesAndRetriesOnce(t *testing.T) {
	t.Parallel()
	a := newAuthServer(t, config.ClientSecretBasic, func(a *authServer) { a.revokeAfterUse = true })
	s := New(Options{}).Session(oauthRegistry(t, a, config.GrantClientCredentials, config.ClientSecretBasic, false))
	if _, _, err := do(t, s, &Request{ServiceID: "res"}); err != nil {
		t.Fatal(err)
	}
	resp, call, err := do(t, s, &Request{ServiceID: "res"})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("after revocation: %v %v", err, resp)
	}
	if f, r := a.token.TokenRequests(), a.requests.Load(); f != 2 || r != 3 {
		t.Errorf("fetches %d (want 2), resource requests %d (want 3: ok, 401, retry)", f, r)
	}
	if !hasEvent(call, EventRetry, "401") {
		t.Errorf("events %+v", call.Events)
	}

	b := newAuthServer(t, config.ClientSecretPost, func(a *authServer) { a.always401 = true })
	s = New(Options{}).Session(oauthRegistry(t, b, config.GrantPassword, config.ClientSecretPost, false))
	resp, _, err = do(t, s, &Request{ServiceID: "res"})
	if err != nil || resp.StatusCode != 401 {
		t.Fatalf("second 401 must come back as the response: %v %v", err, resp)
	}
	if f, r := b.token.TokenRequests(), b.requests.Load(); f != 2 || r != 2 {
		t.Errorf("fetches %d, requests %d: want exactly one retry with a new token", f, r)
	}
}

func TestOAuthTokenErrorsDoNotLeakTheBody(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		status int
		body   string
		want   string
	}{
		{401, `{"error":"invalid_client","error_description":"secret cl1ent-S3cret-value is wrong","debug":"LEAKME"}`, `401 Unauthorized (error "invalid_client")`},
		{500, `<html>LEAKME cl1ent-S3cret-value</html>`, "500 Internal Server Error"},
		{200, `{"note":"LEAKME"}`, "not a usable token response"},
	} {
		a := newAuthServer(t, config.ClientSecretPost, func(a *authServer) { a.failStatus, a.failBody = tt.status, tt.body })
		s := New(Options{}).Session(oauthRegistry(t, a, config.GrantClientCredentials, config.ClientSecretPost, false))
		_, call, err := do(t, s, &Request{ServiceID: "res"})
		e := wantCode(t, err, CodeTokenFailed)
		if !strings.Contains(e.Message, tt.want) || !strings.Contains(e.Message, `oAuth "o"`) {
			t.Errorf("message %q, want %q", e.Message, tt.want)
		}
		tr, _ := json.Marshal(call)
		for _, leak := range []string{"LEAKME", testClientSecret} {
			if strings.Contains(e.Message, leak) || strings.Contains(string(tr), leak) {
				t.Errorf("token error leaks %q: %s / %s", leak, e.Message, tr)
			}
		}
		if a.requests.Load() != 0 {
			t.Errorf("the service was called without a token")
		}
	}
}

func TestOAuthTokenEndpointUnreachable(t *testing.T) {
	t.Parallel()
	a := newAuthServer(t, config.ClientSecretPost, nil)
	reg := oauthRegistry(t, a, config.GrantClientCredentials, config.ClientSecretPost, false)
	a.token.Close()
	_, _, err := do(t, New(Options{}).Session(reg), &Request{ServiceID: "res"})
	e := wantCode(t, err, CodeTokenFailed)
	if !strings.Contains(e.Message, "refused") {
		t.Errorf("message %q should say the token endpoint refused the connection", e.Message)
	}
}

// TestOAuthFaultFixturesFailAsTheLiveClient (issue 36): an OAuth
// service's two failures of its own, told by fixtures, fail the call as
// a real authorization server makes the live client fail it. A
// token-request-failed fixture is the token endpoint refusing the client
// (the same RestClientError, code and message, and the service is not
// called); a 401 fixture is retried once as a service's 401 is, and
// stays 401 when the next fixture is a 401 too, or becomes the answer of
// the fixture after it.
func TestOAuthFaultFixturesFailAsTheLiveClient(t *testing.T) {
	t.Parallel()
	refuse := newAuthServer(t, config.ClientSecretPost, func(a *authServer) {
		a.failStatus, a.failBody = 401, `{"error":"invalid_client"}`
	})
	reg := oauthRegistry(t, refuse, config.GrantClientCredentials, config.ClientSecretPost, false)
	_, _, liveErr := do(t, New(Options{}).Session(reg), &Request{ServiceID: "res"})
	live := wantCode(t, liveErr, CodeTokenFailed)
	mock := func(doc string) *Mock {
		m, err := ParseMock("f.yaml", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := mock("- {serviceId: res, fault: token-request-failed, times: 1}\n- {serviceId: res, body: {ok: true}}\n")
	s := New(Options{Mock: m}).Session(reg)
	_, _, err := do(t, s, &Request{ServiceID: "res"})
	if e := wantCode(t, err, CodeTokenFailed); e.Message != live.Message || e.ServiceID != live.ServiceID {
		t.Errorf("token-request-failed fixture:\n %q\nlive:\n %q", e.Message, live.Message)
	}
	if resp, _, err := do(t, s, &Request{ServiceID: "res"}); err != nil || resp.StatusCode != 200 {
		t.Errorf("the fault is used up (times: 1); the next call: %v %v", resp, err)
	}

	always := newAuthServer(t, config.ClientSecretPost, func(a *authServer) { a.always401 = true })
	reg = oauthRegistry(t, always, config.GrantClientCredentials, config.ClientSecretPost, false)
	liveResp, liveCall, err := do(t, New(Options{}).Session(reg), &Request{ServiceID: "res"})
	if err != nil || liveResp.StatusCode != 401 {
		t.Fatalf("live: %v %v", liveResp, err)
	}
	retries := func(c *Call) int {
		n := 0
		for _, e := range c.Events {
			if e.Kind == EventRetry {
				n++
			}
		}
		return n
	}
	if retries(liveCall) != 1 {
		t.Fatalf("live events %+v: want one retry", liveCall.Events)
	}
	for doc, want := range map[string]int{
		"- {serviceId: res, status: 401, times: 2}\n- {serviceId: res, body: {}}\n": 401,
		"- {serviceId: res, status: 401}\n":                                         401,
		"- {serviceId: res, status: 401, times: 1}\n- {serviceId: res, body: {}}\n": 200,
	} {
		resp, call, err := do(t, New(Options{Mock: mock(doc)}).Session(reg), &Request{ServiceID: "res"})
		if err != nil || resp.StatusCode != want || retries(call) != 1 {
			t.Errorf("%s: %v, %v, events %+v; want %d after one retry", doc, resp, err, call.Events, want)
		}
	}
	// A service without oAuth requests no token: the fixture says so.
	plain := loadRegistry(t, config.ScriptService, servicesXML(api("p", "http://127.0.0.1:1/p", "")))
	_, _, err = do(t, New(Options{Mock: mock("- {serviceId: p, fault: token-request-failed}\n")}).Session(plain), &Request{ServiceID: "p"})
	if e := wantCode(t, err, CodeNoFixture); !strings.Contains(e.Message, "no oAuth authorization") {
		t.Errorf("token fault on a service without oAuth: %q", e.Message)
	}
}
