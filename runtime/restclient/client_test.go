package restclient

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/restls/restls/config"
)

type echo struct {
	Args    map[string][]string `json:"args"`
	Headers map[string][]string `json:"headers"`
	Method  string              `json:"method"`
	URL     string              `json:"url"`
	JSON    any                 `json:"json"`
	Form    map[string][]string `json:"form"`
	Data    string              `json:"data"`
}

func decodeEcho(t *testing.T, body []byte) echo {
	t.Helper()
	var e echo
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("echo body: %v: %s", err, body)
	}
	return e
}

func TestGetEchoesURLHeadersAndBasicAuth(t *testing.T) {
	t.Parallel()
	srv := httpbinServer(t)
	reg := loadRegistry(t, config.ScriptService, servicesXML(
		api("bin", srv.URL+"/anything?fixed=1", basicAuth("dXNlcjpwYXNzd29yZA==")),
	))
	s := New(Options{}).Session(reg)
	resp, call, err := do(t, s, &Request{ServiceID: "bin", PathParams: []string{"a b", "x/y"},
		Query:  []QueryParam{{"q", "1 2"}, {"k", "é"}},
		Header: []HeaderField{{"X-Trace", "t1"}, {"Authorization", "Bearer script-hardcoded"}}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Status != "OK" {
		t.Fatalf("status %d %q", resp.StatusCode, resp.Status)
	}
	e := decodeEcho(t, resp.Body)
	if e.Method != "GET" || !strings.Contains(e.URL, "/anything/a%20b/x%2Fy?fixed=1&q=1%202&k=%C3%A9") {
		t.Errorf("method %s url %s", e.Method, e.URL)
	}
	if got := e.Args["q"]; len(got) != 1 || got[0] != "1 2" {
		t.Errorf("args %v", e.Args)
	}
	if e.Headers["Accept"][0] != "application/json" || e.Headers["X-Trace"][0] != "t1" {
		t.Errorf("headers %v", e.Headers)
	}
	if got := e.Headers["Authorization"]; len(got) != 1 || got[0] != "Basic dXNlcjpwYXNzd29yZA==" {
		t.Errorf("configured basic auth must replace the script's: %v", got)
	}
	if call.URL != srv.URL+"/anything/a%20b/x%2Fy?fixed=1&q=1%202&k=%C3%A9" {
		t.Errorf("call url %s", call.URL)
	}
	var authShown string
	for _, h := range call.RequestHeaders {
		if h.Name == "Authorization" {
			authShown = h.Value
		}
	}
	if authShown != "Basic ***" {
		t.Errorf("trace shows Authorization %q", authShown)
	}
	if !hasEvent(call, EventAuth, "replaced by the basic authorization") {
		t.Errorf("no auth warning: %+v", call.Events)
	}
	tr, _ := json.Marshal(call)
	for _, secret := range []string{"dXNlcjpwYXNzd29yZA==", "user:password", "password", "script-hardcoded"} {
		if bytes.Contains(tr, []byte(secret)) {
			t.Errorf("trace leaks %q: %s", secret, tr)
		}
	}
}

func hasEvent(c *Call, kind, substr string) bool {
	for _, e := range c.Events {
		if e.Kind == kind && strings.Contains(e.Message, substr) {
			return true
		}
	}
	return false
}

func TestPostJSONAndMultipart(t *testing.T) {
	t.Parallel()
	srv := httpbinServer(t)
	reg := loadRegistry(t, config.ScriptService, servicesXML(api("bin", srv.URL+"/anything", "")))
	s := New(Options{}).Session(reg)

	resp, _, err := do(t, s, &Request{ServiceID: "bin", Method: "POST", Body: json.RawMessage(`{"b":1,"a":[true,null]}`)})
	if err != nil {
		t.Fatal(err)
	}
	e := decodeEcho(t, resp.Body)
	if e.Headers["Content-Type"][0] != "application/json" || e.Data != `{"b":1,"a":[true,null]}` {
		t.Errorf("json post: %v %q", e.Headers["Content-Type"], e.Data)
	}

	resp, call, err := do(t, s, &Request{ServiceID: "bin", Method: "PUT",
		Header: []HeaderField{{"Content-Type", "multipart/form-data; boundary=attacker"}},
		Body:   json.RawMessage(`{"name":"Ann","age":42,"ok":false,"tags":["a"],"meta":{"k":"v"},"none":null}`)})
	if err != nil {
		t.Fatal(err)
	}
	e = decodeEcho(t, resp.Body)
	ct := e.Headers["Content-Type"][0]
	if !strings.HasPrefix(ct, "multipart/form-data; boundary=restls-") {
		t.Errorf("content type %q: the boundary must be ours", ct)
	}
	want := map[string]string{"name": "Ann", "age": "42", "ok": "false", "tags": `["a"]`, "meta": `{"k":"v"}`, "none": ""}
	for k, v := range want {
		if got := e.Form[k]; len(got) != 1 || got[0] != v {
			t.Errorf("form %s = %v, want %q", k, got, v)
		}
	}
	if !strings.Contains(string(call.RequestBody), `"multipart":true`) {
		t.Errorf("trace body %s", call.RequestBody)
	}
	_, _, err = do(t, s, &Request{ServiceID: "bin", Method: "POST",
		Header: []HeaderField{{"Content-Type", "multipart/form-data"}}, Body: json.RawMessage(`[1]`)})
	var ae *ArgError
	if !errors.As(err, &ae) || ae.Param != "PAYLOAD" {
		t.Errorf("multipart array payload: %v", err)
	}
}

func TestStatusesAndRedirectsAreNotFollowed(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer other.Close()
	srv := httpbinServer(t)
	reg := loadRegistry(t, config.ScriptService, servicesXML(
		api("bin", srv.URL, basicAuth("dXNlcjpwYXNzd29yZA==")),
	))
	s := New(Options{}).Session(reg)
	for _, tt := range []struct {
		path   []string
		code   int
		reason string
	}{
		{[]string{"status", "404"}, 404, "Not Found"},
		{[]string{"status", "500"}, 500, "Internal Server Error"},
		{[]string{"status", "204"}, 204, "No Content"},
		{[]string{"status", "418"}, 418, "I'm a teapot"},
	} {
		resp, call, err := do(t, s, &Request{ServiceID: "bin", PathParams: tt.path})
		if err != nil {
			t.Fatalf("%v: %v", tt.path, err)
		}
		if resp.StatusCode != tt.code || resp.Status != tt.reason || call.Status.Code != tt.code {
			t.Errorf("%v: %d %q", tt.path, resp.StatusCode, resp.Status)
		}
	}
	resp, _, err := do(t, s, &Request{ServiceID: "bin", PathParams: []string{"redirect-to"},
		Query: []QueryParam{{"url", other.URL}, {"status_code", "302"}}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 302 || hits.Load() != 0 {
		t.Errorf("redirect: status %d, other host hit %d times", resp.StatusCode, hits.Load())
	}
}

func TestNotJSONGzipAndSizeLimit(t *testing.T) {
	t.Parallel()
	srv := httpbinServer(t)
	big := bytes.Repeat([]byte(`{"k":"0123456789"},`), 3000)
	zipped := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		_, _ = zw.Write([]byte("["))
		_, _ = zw.Write(big)
		_, _ = zw.Write([]byte("1]"))
		_ = zw.Close()
	}))
	defer zipped.Close()
	reg := loadRegistry(t, config.ScriptService, servicesXML(api("bin", srv.URL, ""), api("zip", zipped.URL, "")))
	s := New(Options{MaxResponseBytes: 20000}).Session(reg)

	resp, _, err := do(t, s, &Request{ServiceID: "bin", PathParams: []string{"html"}})
	e := wantCode(t, err, CodeNotJSON)
	if !strings.Contains(e.Message, "text/html") || resp == nil || resp.StatusCode != 200 {
		t.Errorf("not-json: %s", e.Message)
	}
	for _, enc := range []string{"", "gzip"} {
		var h []HeaderField
		if enc != "" {
			h = []HeaderField{{"Accept-Encoding", enc}}
		}
		resp, _, err = do(t, s, &Request{ServiceID: "bin", PathParams: []string{"gzip"}, Header: h})
		if err != nil {
			t.Fatalf("gzip (Accept-Encoding %q): %v", enc, err)
		}
		var g struct{ Gzipped bool }
		if json.Unmarshal(resp.Body, &g) != nil || !g.Gzipped {
			t.Errorf("gzip body not decompressed: %q", resp.Body)
		}
	}
	_, _, err = do(t, s, &Request{ServiceID: "bin", PathParams: []string{"bytes", "20001"}})
	wantCode(t, err, CodeResponseTooLarge)
	// The limit counts decompressed bytes: ~57 KB from a tiny gzip stream.
	_, _, err = do(t, s, &Request{ServiceID: "zip"})
	wantCode(t, err, CodeResponseTooLarge)
	resp, _, err = do(t, New(Options{}).Session(reg), &Request{ServiceID: "zip"})
	if err != nil || len(resp.Body) != len(big)+3 {
		t.Fatalf("default limit: %v", err)
	}
}

func TestReadTimeout(t *testing.T) {
	t.Parallel()
	srv := httpbinServer(t)
	reg := loadRegistry(t, config.ScriptService, servicesXML(api("bin", srv.URL, "")))
	s := New(Options{}).Session(reg)

	// Headers later than the read timeout.
	_, call, err := do(t, s, &Request{ServiceID: "bin", PathParams: []string{"delay", "5"}, ReadTimeoutMs: 150})
	e := wantCode(t, err, CodeReadTimeout)
	if !strings.Contains(e.Message, "150 ms") || call.ErrorCode != CodeReadTimeout {
		t.Errorf("message %q, call code %q", e.Message, call.ErrorCode)
	}
	// A body that keeps coming, 100 ms apart, takes 1 s in total, more than
	// the read timeout, but never pauses for that long: it completes.
	resp, _, err := do(t, s, &Request{ServiceID: "bin", PathParams: []string{"drip"},
		Query: []QueryParam{{"numbytes", "11"}, {"duration", "1s"}, {"delay", "0"}}, ReadTimeoutMs: 450})
	wantCode(t, err, CodeNotJSON) // drip sends asterisks: proof the transfer finished
	if resp == nil || string(resp.Body) != "***********" {
		t.Fatalf("drip body %v", resp)
	}
	// A pause longer than the read timeout in the middle of the body fails.
	_, _, err = do(t, s, &Request{ServiceID: "bin", PathParams: []string{"drip"},
		Query: []QueryParam{{"numbytes", "3"}, {"duration", "2s"}, {"delay", "0"}}, ReadTimeoutMs: 200})
	wantCode(t, err, CodeReadTimeout)
}

// One Session's calls share a read-timeout timer: a call with a shorter
// timeout than the one before is still cut at its own, and one with a
// longer timeout is not cut at the previous call's.
func TestReadTimeoutSharedAcrossCalls(t *testing.T) {
	// Not in parallel: it bounds the wall time, which tests beside it would stretch.
	srv := httpbinServer(t)
	reg := loadRegistry(t, config.ScriptService, servicesXML(api("bin", srv.URL, "")))
	s := New(Options{}).Session(reg)
	defer s.Close()

	if _, _, err := do(t, s, &Request{ServiceID: "bin", PathParams: []string{"get"}, ReadTimeoutMs: 30000}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, _, err := do(t, s, &Request{ServiceID: "bin", PathParams: []string{"delay", "5"}, ReadTimeoutMs: 200})
	wantCode(t, err, CodeReadTimeout)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("a 200 ms read timeout after a 30 s one took %v", d)
	}

	if _, _, err := do(t, s, &Request{ServiceID: "bin", PathParams: []string{"get"}, ReadTimeoutMs: 100}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := do(t, s, &Request{ServiceID: "bin", PathParams: []string{"delay", "0.4"}, ReadTimeoutMs: 3000}); err != nil {
		t.Errorf("a 3 s read timeout after a 100 ms one: %v", err)
	}
}

func TestTimeoutsAreClampedWithANote(t *testing.T) {
	t.Parallel()
	srv := httpbinServer(t)
	reg := loadRegistry(t, config.ScriptService, servicesXML(api("bin", srv.URL, "")))
	s := New(Options{}).Session(reg)
	_, call, err := do(t, s, &Request{ServiceID: "bin", PathParams: []string{"get"}, ConnectTimeoutMs: 999999, ReadTimeoutMs: 40000})
	if err != nil {
		t.Fatal(err)
	}
	if !hasEvent(call, EventTimeout, "connectionTimeout 999999 ms is above the configured maximum; 10000 ms") ||
		!hasEvent(call, EventTimeout, "readTimeout 40000 ms is above the configured maximum; 30000 ms") {
		t.Errorf("events %+v", call.Events)
	}
	_, _, err = do(t, s, &Request{ServiceID: "bin", ReadTimeoutMs: -1})
	var ae *ArgError
	if !errors.As(err, &ae) || ae.Param != "TIMEOUTS" {
		t.Errorf("negative timeout: %v", err)
	}
}

func TestConnectTimeoutWithBlockingDialer(t *testing.T) {
	t.Parallel()
	var budget atomic.Int64
	blocking := func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dl, ok := ctx.Deadline(); ok {
			budget.Store(int64(time.Until(dl)))
		}
		<-ctx.Done() // never connects
		return nil, ctx.Err()
	}
	reg := loadRegistry(t, config.ScriptService, servicesXML(api("far", "http://192.0.2.1:81/api", ""), api("fars", "https://192.0.2.1/api", "")))
	s := New(Options{Dial: blocking}).Session(reg)
	for _, id := range []string{"far", "fars"} {
		_, _, err := do(t, s, &Request{ServiceID: id, ConnectTimeoutMs: 60})
		e := wantCode(t, err, CodeConnectTimeout)
		if !strings.Contains(e.Message, "60 ms") {
			t.Errorf("message %q", e.Message)
		}
		if b := time.Duration(budget.Load()); b <= 0 || b > 60*time.Millisecond {
			t.Errorf("dial budget %v, want at most the 60 ms connection timeout", b)
		}
	}
}

func TestConnectTimeoutCoversTLSHandshake(t *testing.T) {
	t.Parallel()
	// A listener that accepts and then never answers the ClientHello.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	var held []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	defer func() {
		ln.Close()
		<-done
		for _, c := range held {
			c.Close()
		}
	}()
	reg := loadRegistry(t, config.ScriptService, servicesXML(api("silent", "https://"+ln.Addr().String()+"/x", "")))
	_, _, err = do(t, New(Options{}).Session(reg), &Request{ServiceID: "silent", ConnectTimeoutMs: 100})
	wantCode(t, err, CodeConnectTimeout)
}

func TestConnectionFailures(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{}`)) }))
	defer tlsSrv.Close()
	reg := loadRegistry(t, config.ScriptService, servicesXML(
		api("refused", "http://"+closed+"/x", ""),
		api("tls", tlsSrv.URL, ""),
		api("nodns", "https://no-such-host.invalid/x", ""),
	))
	s := New(Options{}).Session(reg)
	_, _, err = do(t, s, &Request{ServiceID: "refused"})
	wantCode(t, err, CodeConnectionRefused)
	_, _, err = do(t, s, &Request{ServiceID: "tls"})
	wantCode(t, err, CodeTLS)
	trusted := New(Options{TLSConfig: tlsSrv.Client().Transport.(*http.Transport).TLSClientConfig}).Session(reg)
	if _, _, err := do(t, trusted, &Request{ServiceID: "tls"}); err != nil {
		t.Errorf("trusted TLS: %v", err)
	}
	// Resolution failures come from the dialer; no real DNS in tests.
	dnsFail := func(ctx context.Context, network, addr string) (net.Conn, error) {
		return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: "no-such-host.invalid", IsNotFound: true}}
	}
	_, _, err = do(t, New(Options{Dial: dnsFail}).Session(reg), &Request{ServiceID: "nodns"})
	wantCode(t, err, CodeDNS)
}

func TestUnknownAndUnusableServices(t *testing.T) {
	t.Parallel()
	reg := loadRegistry(t, config.ScriptService, servicesXML(
		api("crm-customers", "https://crm.example.com/c", ""),
		api("crm-orders", "https://crm.example.com/o", ""),
	))
	s := New(Options{}).Session(reg)
	_, call, err := do(t, s, &Request{ServiceID: "crm-custmers"})
	e := wantCode(t, err, CodeUnknownService)
	if !strings.Contains(e.Message, `"crm-customers"`) || !strings.Contains(e.Message, "restls services --kind scriptService") || e.ServiceID != "crm-custmers" {
		t.Errorf("message %q", e.Message)
	}
	if call.ErrorCode != CodeUnknownService {
		t.Errorf("call %+v", call)
	}
	files := map[string]string{"/s.xml": `<scriptservice><api serviceId="broken" url="nowhere/x"/></scriptservice>`}
	snap := config.LoadWith(config.Sources{ServiceXML: "/s.xml"}, func(p string) ([]byte, error) { return []byte(files[p]), nil })
	_, _, err = do(t, New(Options{}).Session(snap.For(config.ScriptService)), &Request{ServiceID: "broken"})
	e = wantCode(t, err, CodeServiceUnusable)
	if !strings.Contains(e.Message, "/s.xml:1:") {
		t.Errorf("unusable message should point at the configuration: %q", e.Message)
	}
}

func TestHeaderValidation(t *testing.T) {
	t.Parallel()
	reg := loadRegistry(t, config.ScriptService, servicesXML(api("x", "https://x.example.com", "")))
	s := New(Options{}).Session(reg)
	for _, h := range []HeaderField{{"X-A", "a\r\nInjected: 1"}, {"X-A", "a\nb"}, {"Bad Name", "v"}, {"", "v"}} {
		_, _, err := do(t, s, &Request{ServiceID: "x", Header: []HeaderField{h}})
		var ae *ArgError
		if !errors.As(err, &ae) || ae.Param != "HEADER" {
			t.Errorf("header %q: %v", h, err)
		}
	}
}

// uncomparableCtx is a context type whose values cannot be compared with
// ==: a session must not panic when it checks whether a call comes with
// the same context as the one before.
type uncomparableCtx struct {
	context.Context
	tags map[string]string
}

// A session reuses one request context for its sequential calls; each
// call must still obey its own parent: a canceled parent stops its call,
// and the next call, with another parent, goes through.
func TestSessionContextFollowsEachCallsParent(t *testing.T) {
	t.Parallel()
	srv := httpbinServer(t)
	reg := loadRegistry(t, config.ScriptService, servicesXML(api("bin", srv.URL, "")))
	s := New(Options{}).Session(reg)
	defer s.Close()
	get := func(ctx context.Context) error {
		_, _, err := s.Do(ctx, &Request{ServiceID: "bin", Method: http.MethodGet, PathParams: []string{"get"}})
		return err
	}

	a, cancelA := context.WithCancel(context.Background())
	if err := get(a); err != nil {
		t.Fatal(err)
	}
	cancelA()
	if err := get(a); err == nil {
		t.Fatal("a call whose context was canceled went through")
	} else {
		wantCode(t, err, CodeCanceled)
	}
	if err := get(context.Background()); err != nil {
		t.Fatalf("the next call, with a live context: %v", err)
	}
	// A canceled parent after a live one: the session's context, made
	// for the live one, must not carry this call.
	b, cancelB := context.WithCancel(context.Background())
	cancelB()
	if err := get(b); err == nil {
		t.Fatal("a call whose context was canceled before it began went through")
	} else {
		wantCode(t, err, CodeCanceled)
	}

	u := uncomparableCtx{Context: context.Background(), tags: map[string]string{"a": "b"}}
	for i := 0; i < 2; i++ {
		if err := get(u); err != nil {
			t.Fatalf("call %d with an uncomparable context: %v", i, err)
		}
	}
	s.Close()
	if err := get(context.Background()); err != nil {
		t.Fatalf("a call after Close: %v", err)
	}
}
