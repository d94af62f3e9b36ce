package restclient

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/config"
)

// stepOf returns the named step of r, failing the test when it is absent.
func stepOf(t *testing.T, r *ProbeResult, name string) ProbeStep {
	t.Helper()
	for _, s := range r.Steps {
		if s.Step == name {
			return s
		}
	}
	t.Fatalf("%s: no %s step in %+v", r.ServiceID, name, r.Steps)
	return ProbeStep{}
}

func noStep(t *testing.T, r *ProbeResult, name string) {
	t.Helper()
	for _, s := range r.Steps {
		if s.Step == name {
			t.Errorf("%s: step %s must not be reported, got %+v", r.ServiceID, name, s)
		}
	}
}

// closedPort is the address of a listener that was closed: connecting
// to it is refused.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

func TestProbeHTTPBinAndHeadRefused(t *testing.T) {
	t.Parallel()
	bin := httpbinServer(t)
	noHead := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		if r.Header.Get("Authorization") != "Basic "+"dXNlcjpwdw==" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(noHead.Close)
	reg := loadRegistry(t, config.ScriptService, servicesXML(
		api("bin", bin.URL+"/anything", ""),
		api("nohead", noHead.URL, basicAuth("dXNlcjpwdw==")),
		api("wrongbasic", bin.URL+"/basic-auth/user/other", basicAuth("dXNlcjpwdw==")),
		api("broken", bin.URL+"/status/503", ""),
		api("missing", bin.URL+"/status/404", ""),
	))
	c := New(Options{})
	ctx := context.Background()

	r := c.Probe(ctx, reg, "bin")
	if !r.OK || r.Method != "HEAD" || r.Status != 200 || r.FailedStep != "" {
		t.Fatalf("bin: %+v", r)
	}
	if s := stepOf(t, r, ProbeStepDNS); s.Outcome != ProbeSkipped {
		t.Errorf("dns of 127.0.0.1: %+v, want skipped", s)
	}
	if s := stepOf(t, r, ProbeStepConnect); s.Outcome != ProbeOK || s.Detail != strings.TrimPrefix(bin.URL, "http://") {
		t.Errorf("connect: %+v", s)
	}
	if s := stepOf(t, r, ProbeStepTLS); s.Outcome != ProbeSkipped {
		t.Errorf("tls of http: %+v", s)
	}
	if s := stepOf(t, r, ProbeStepHTTP); s.Outcome != ProbeOK || s.Detail != "HEAD 200 OK" {
		t.Errorf("http: %+v", s)
	}
	noStep(t, r, ProbeStepToken)

	r = c.Probe(ctx, reg, "nohead")
	if !r.OK || r.Method != "GET" || r.Status != 200 {
		t.Fatalf("nohead: %+v", r)
	}
	if s := stepOf(t, r, ProbeStepHTTP); s.Detail != "HEAD 405 Method Not Allowed, then GET 200 OK" {
		t.Errorf("http detail %q", s.Detail)
	}

	r = c.Probe(ctx, reg, "wrongbasic")
	if r.OK || r.FailedStep != ProbeStepHTTP || r.Status != 401 || !strings.Contains(r.Message, "rejects the configured basic credentials") {
		t.Errorf("wrongbasic: %+v", r)
	}
	r = c.Probe(ctx, reg, "broken")
	if r.OK || r.FailedStep != ProbeStepHTTP || r.Status != 503 {
		t.Errorf("broken: %+v", r)
	}
	// A base url need not serve anything: 404 is an answer.
	if r = c.Probe(ctx, reg, "missing"); !r.OK || r.Status != 404 {
		t.Errorf("missing: %+v", r)
	}
	r = c.Probe(ctx, reg, "nosuch")
	if r.OK || r.FailedStep != ProbeStepService || r.ErrorCode != CodeUnknownService {
		t.Errorf("nosuch: %+v", r)
	}
}

func TestProbeOAuth(t *testing.T) {
	t.Parallel()
	a := newAuthServer(t, config.ClientSecretPost, nil)
	good := oauthDef(a, config.GrantClientCredentials, config.ClientSecretPost, false)
	wrong := strings.Replace(strings.Replace(good, `id="o"`, `id="w"`, 1), testClientSecret, "not-the-S3cret", 1)
	reg := loadRegistry(t, config.ScriptService, servicesXML(
		api("res", a.resource.URL+"/data", oauthRef("o")),
		api("wrong", a.resource.URL+"/data", oauthRef("w")),
		good, wrong,
	))
	c := New(Options{})
	r := c.Probe(context.Background(), reg, "res")
	if !r.OK || r.Status != 200 || a.requests.Load() != 1 {
		t.Fatalf("res: %+v (resource requests %d)", r, a.requests.Load())
	}
	tok := stepOf(t, r, ProbeStepToken)
	if tok.Outcome != ProbeOK || !strings.Contains(tok.Detail, `oAuth "o", client_credentials grant`) {
		t.Errorf("token step %+v", tok)
	}
	if r.Auth != "oAuth client_credentials" {
		t.Errorf("auth %q", r.Auth)
	}
	// A second probe fetches a token again: it checks the secret, not a
	// cache.
	before := a.token.TokenRequests()
	c.Probe(context.Background(), reg, "res")
	if a.token.TokenRequests() != before+1 {
		t.Errorf("token requests %d, want %d", a.token.TokenRequests(), before+1)
	}

	r = c.Probe(context.Background(), reg, "wrong")
	if r.OK || r.FailedStep != ProbeStepToken || r.ErrorCode != CodeTokenFailed {
		t.Fatalf("wrong secret: %+v", r)
	}
	// The service is still probed without a token: it answers 401, which
	// the failed token explains.
	if s := stepOf(t, r, ProbeStepHTTP); s.Outcome != ProbeOK || r.Status != 401 {
		t.Errorf("http after a failed token: %+v, status %d", s, r.Status)
	}
	b, _ := json.Marshal(r)
	for _, secret := range append([]string{testClientSecret, "not-the-S3cret"}, a.token.Issued()...) {
		if strings.Contains(string(b), secret) {
			t.Errorf("probe result holds a credential %q: %s", secret, b)
		}
	}
}

func TestProbeRefusedAndTLS(t *testing.T) {
	t.Parallel()
	untrusted := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(untrusted.Close)
	reg := loadRegistry(t, config.ScriptService, servicesXML(
		api("refused", "http://"+closedPort(t)+"/api", ""),
		api("untrusted", untrusted.URL+"/api", ""),
	))
	c := New(Options{})
	r := c.Probe(context.Background(), reg, "refused")
	if r.OK || r.FailedStep != ProbeStepConnect || r.ErrorCode != CodeConnectionRefused {
		t.Fatalf("refused: %+v", r)
	}
	if s := stepOf(t, r, ProbeStepConnect); s.Outcome != ProbeFailed {
		t.Errorf("connect %+v", s)
	}
	noStep(t, r, ProbeStepHTTP)

	r = c.Probe(context.Background(), reg, "untrusted")
	if r.OK || r.FailedStep != ProbeStepTLS || r.ErrorCode != CodeTLS {
		t.Fatalf("untrusted: %+v", r)
	}
	if s := stepOf(t, r, ProbeStepConnect); s.Outcome != ProbeOK {
		t.Errorf("connect before the handshake %+v", s)
	}
	if s := stepOf(t, r, ProbeStepTLS); s.Outcome != ProbeFailed {
		t.Errorf("tls %+v", s)
	}

	// Trusted, the same server passes and the handshake is timed.
	pool := x509.NewCertPool()
	pool.AddCert(untrusted.Certificate())
	r = New(Options{TLSConfig: &tls.Config{RootCAs: pool}}).Probe(context.Background(), reg, "untrusted")
	if !r.OK {
		t.Fatalf("trusted: %+v", r)
	}
	if s := stepOf(t, r, ProbeStepTLS); s.Outcome != ProbeOK || !strings.HasPrefix(s.Detail, "TLS 1.") {
		t.Errorf("tls %+v", s)
	}
}

// TestProbeDNS: a host name is resolved and timed; a name that does not
// resolve fails at the dns step (the resolver's error given by a dialer
// here: tests reach no name server).
func TestProbeDNS(t *testing.T) {
	t.Parallel()
	bin := httpbinServer(t)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(bin.URL, "http://"))
	reg := loadRegistry(t, config.ScriptService, servicesXML(
		api("local", "http://localhost:"+port+"/anything", ""),
		api("nxdomain", "http://no-such-host.invalid/api", ""),
	))
	r := New(Options{}).Probe(context.Background(), reg, "local")
	if !r.OK {
		t.Fatalf("localhost: %+v", r)
	}
	if s := stepOf(t, r, ProbeStepDNS); s.Outcome != ProbeOK || !strings.HasPrefix(s.Detail, "localhost: ") {
		t.Errorf("dns %+v", s)
	}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: "no-such-host.invalid", IsNotFound: true}}
	}
	r = New(Options{Dial: dial}).Probe(context.Background(), reg, "nxdomain")
	if r.OK || r.FailedStep != ProbeStepDNS || r.ErrorCode != CodeDNS {
		t.Fatalf("nxdomain: %+v", r)
	}
	noStep(t, r, ProbeStepConnect)
}

// trickleServer answers 200 with JSON headers at once, then one space of
// the body every 20 ms until the client goes (or the test ends): each
// wait is far below any read timeout, the whole never ends.
func trickleServer(t *testing.T) *httptest.Server {
	t.Helper()
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("{"))
		rc := http.NewResponseController(w)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if rc.Flush() != nil {
				return
			}
			select {
			case <-r.Context().Done():
				return
			case <-stop:
				return
			case <-tick.C:
				if _, err := w.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) }) // first: Close waits for the handler
	return srv
}

// TestProbeTrickle is issue 33's point 7: a token endpoint that sends its
// headers and then trickles its body never tripped the read timeout, and
// the probe never ended. Now the probe of a service ends at its bound in
// all, 3 x (connection + read timeout) (here 3 x (100 + 200) ms), with
// probe-timeout on the token step, and the next service is probed.
func TestProbeTrickle(t *testing.T) {
	// Not in parallel: it bounds the wall time, which tests beside it would stretch.
	tokens := trickleServer(t)
	bin := httpbinServer(t)
	reg := loadRegistry(t, config.ScriptService, servicesXML(
		api("slow", bin.URL+"/anything", oauthRef("o")),
		api("bin", bin.URL+"/anything", ""),
		fmt.Sprintf(`<oAuth id="o" url=%q grantType="client_credentials" clientAuthenticationMethod="client_secret_post" clientId="c" clientSecret="s3cret-value"/>`, tokens.URL+"/token"),
	))
	reg.Timeouts.Connection.Default, reg.Timeouts.Read.Default = 100, 200
	c := New(Options{})
	done := make(chan *ProbeResult, 1)
	start := time.Now()
	go func() { done <- c.Probe(context.Background(), reg, "slow") }()
	var r *ProbeResult
	select {
	case r = <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("the probe of a trickling token endpoint still runs after 15 s (bound 900 ms)")
	}
	if took := time.Since(start); took < 900*time.Millisecond || took > 5*time.Second {
		t.Errorf("took %v, want the bound of 900 ms (and not much more)", took)
	}
	if r.OK || r.FailedStep != ProbeStepToken || r.ErrorCode != CodeProbeTimeout {
		t.Fatalf("%+v, want the token step failed with %s", r, CodeProbeTimeout)
	}
	tok := stepOf(t, r, ProbeStepToken)
	want := `had not sent its whole answer when the probe of slow reached its bound of 900ms in all`
	if tok.Outcome != ProbeFailed || !strings.Contains(tok.Detail, want) || !strings.Contains(r.Message, want) {
		t.Errorf("token step %+v, message %q; want %q", tok, r.Message, want)
	}
	noStep(t, r, ProbeStepHTTP)
	if r := c.Probe(context.Background(), reg, "bin"); !r.OK {
		t.Errorf("bin after slow: %+v", r)
	}
}
