package web

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/restls/restls/config"
)

func TestToken(t *testing.T) {
	t.Parallel()
	const token = "s3cret-token"
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) { o.Token = token })
	for _, path := range []string{"/healthz", "/v1/services", "/v1/calls", "/v1/status", "/"} {
		for _, tc := range []struct {
			name   string
			header map[string]string
			query  string
			want   int
		}{
			{"none", nil, "", 401},
			{"wrong", map[string]string{"Authorization": "Bearer nope"}, "", 401},
			{"prefix", map[string]string{"Authorization": "Bearer s3cret"}, "", 401},
			{"longer", map[string]string{"Authorization": "Bearer " + token + "x"}, "", 401},
			{"basic scheme", map[string]string{"Authorization": "Basic " + token}, "", 401},
			{"empty bearer", map[string]string{"Authorization": "Bearer "}, "", 401},
			{"header", map[string]string{"Authorization": "Bearer " + token}, "", 200},
			{"lower-case scheme", map[string]string{"Authorization": "bearer " + token}, "", 200},
			{"query", nil, "?access_token=" + token, 200},
			{"wrong query", nil, "?access_token=x", 401},
			// A header, when present, decides: a right query does not rescue
			// a wrong header.
			{"wrong header right query", map[string]string{"Authorization": "Bearer x"}, "?access_token=" + token, 401},
		} {
			res, body := get(t, hs.URL+path+tc.query, tc.header)
			if res.StatusCode != tc.want {
				t.Errorf("GET %s (%s) = %d, want %d", path, tc.name, res.StatusCode, tc.want)
			}
			if tc.want == 401 {
				if res.Header.Get("WWW-Authenticate") == "" || !strings.Contains(body, "bearer token") {
					t.Errorf("GET %s (%s): 401 without a challenge or a hint: %q", path, tc.name, body)
				}
				if strings.Contains(body, token) {
					t.Errorf("401 body echoes the token")
				}
			}
		}
	}
	res, _ := post(t, hs.URL+"/v1/run", `{"text":"1"}`, nil)
	if res.StatusCode != 401 {
		t.Errorf("POST /v1/run without token = %d", res.StatusCode)
	}

	// The WebSocket handshake is a request like the others.
	ctx := testCtx(t)
	_, resp, err := websocket.Dial(ctx, wsURL(hs), nil)
	if err == nil || resp == nil || resp.StatusCode != 401 {
		t.Fatalf("/lsp without token: err %v, response %v", err, resp)
	}
	c, err := dialLSP(t, ctx, wsURL(hs), &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + token}}})
	if err != nil {
		t.Fatalf("/lsp with the token header: %v", err)
	}
	c.close()
	c, err = dialLSP(t, ctx, wsURL(hs)+"?access_token="+token, nil)
	if err != nil {
		t.Fatalf("/lsp with access_token: %v", err)
	}
	defer c.close()
	if err := c.open(ctx, "file:///a.js", "api."); err != nil {
		t.Fatal(err)
	}
	items, err := c.complete(ctx, "file:///a.js", 0, 4)
	if err != nil || len(items) == 0 || items[0] != "rest" {
		t.Fatalf("completion after api. = %v, %v", items, err)
	}
}

func TestCORS(t *testing.T) {
	t.Parallel()
	const allowed = "http://designer.example.com:3000"
	const token = "tok"
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.AllowOrigins = []string{allowed}
		o.Token = token
	})
	auth := "Bearer " + token

	res, _ := get(t, hs.URL+"/v1/services", map[string]string{"Origin": allowed, "Authorization": auth})
	if res.Header.Get("Access-Control-Allow-Origin") != allowed || !strings.Contains(res.Header.Get("Access-Control-Expose-Headers"), "ETag") {
		t.Errorf("allowed origin: headers %v", res.Header)
	}
	if !strings.Contains(strings.Join(res.Header.Values("Vary"), ","), "Origin") {
		t.Errorf("no Vary: Origin: %v", res.Header)
	}
	// Origins compare case-insensitively in scheme and host.
	res, _ = get(t, hs.URL+"/v1/services", map[string]string{"Origin": "HTTP://Designer.example.com:3000", "Authorization": auth})
	if res.Header.Get("Access-Control-Allow-Origin") == "" {
		t.Errorf("case-folded allowed origin got no CORS header")
	}
	for _, o := range []string{"http://evil.example.com", "http://designer.example.com", "https://designer.example.com:3000", "null"} {
		res, _ = get(t, hs.URL+"/v1/services", map[string]string{"Origin": o, "Authorization": auth})
		if v := res.Header.Get("Access-Control-Allow-Origin"); v != "" {
			t.Errorf("origin %s got Access-Control-Allow-Origin %q", o, v)
		}
	}

	preflight := func(origin string) *http.Response {
		req, _ := http.NewRequest(http.MethodOptions, hs.URL+"/v1/services", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "GET")
		req.Header.Set("Access-Control-Request-Headers", "authorization, if-none-match")
		res, _ := do(t, req)
		return res
	}
	// A preflight carries no token and must still pass for an allowed origin.
	res = preflight(allowed)
	if res.StatusCode != 204 || res.Header.Get("Access-Control-Allow-Origin") != allowed ||
		!strings.Contains(res.Header.Get("Access-Control-Allow-Headers"), "Authorization") ||
		!strings.Contains(res.Header.Get("Access-Control-Allow-Methods"), "GET") {
		t.Errorf("allowed preflight: %d %v", res.StatusCode, res.Header)
	}
	res = preflight("http://evil.example.com")
	if res.StatusCode != 403 || res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("foreign preflight: %d %v", res.StatusCode, res.Header)
	}

	// WebSocket: a page from a foreign origin may not open /lsp, even with
	// the token; an allowed one may.
	ctx := testCtx(t)
	hdr := func(origin string) *websocket.DialOptions {
		return &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {origin}, "Authorization": {auth}}}
	}
	_, resp, err := websocket.Dial(ctx, wsURL(hs), hdr("http://evil.example.com"))
	if err == nil || resp == nil || resp.StatusCode != 403 {
		t.Errorf("/lsp from a foreign origin: err %v, response %v", err, resp)
	}
	c, err := dialLSP(t, ctx, wsURL(hs), hdr(allowed))
	if err != nil {
		t.Fatalf("/lsp from the allowed origin: %v", err)
	}
	c.close()
}

func TestNoCORSByDefault(t *testing.T) {
	t.Parallel()
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, nil)
	res, _ := get(t, hs.URL+"/v1/calls", map[string]string{"Origin": "http://localhost:3000"})
	if v := res.Header.Get("Access-Control-Allow-Origin"); v != "" {
		t.Errorf("Access-Control-Allow-Origin %q without --allow-origin", v)
	}
	ctx := testCtx(t)
	_, resp, err := websocket.Dial(ctx, wsURL(hs), &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://localhost:3000"}}})
	if err == nil || resp == nil || resp.StatusCode != 403 {
		t.Errorf("/lsp from another origin without --allow-origin: err %v, response %v", err, resp)
	}
}

func TestBadAllowOrigin(t *testing.T) {
	t.Parallel()
	for _, o := range []string{"*", "localhost:3000", "http://a.example.com/path", "ftp://a.example.com", "http://*.example.com"} {
		if _, err := parseOrigins([]string{o}); err == nil || !strings.Contains(err.Error(), "--allow-origin") {
			t.Errorf("parseOrigins(%q) = %v, want an error naming the flag", o, err)
		}
	}
}

func TestAddr(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "127.0.0.1:7373", ":8080": "127.0.0.1:8080", "localhost": "localhost:7373", "0.0.0.0:7373": "0.0.0.0:7373", "[::1]:9": "[::1]:9"} {
		if got := NormalizeAddr(in); got != want {
			t.Errorf("NormalizeAddr(%q) = %q, want %q", in, got, want)
		}
	}
	for addr, want := range map[string]bool{"127.0.0.1:7373": true, "[::1]:1": true, "localhost:1": true, "0.0.0.0:7373": false, ":7373": false, "192.168.1.2:80": false, "example.com:80": false} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v", addr, got)
		}
	}
}

// TestTokenNeverLogged: the request log names the path, never the query
// that may carry access_token, nor the Authorization header.
func TestTokenNeverLogged(t *testing.T) {
	t.Parallel()
	const token = "log-me-n0t"
	core, logs := observer.New(zapcore.DebugLevel)
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.Token = token
		o.Logger = zap.New(core)
	})
	get(t, hs.URL+"/v1/services?access_token="+token, nil)
	get(t, hs.URL+"/v1/calls", map[string]string{"Authorization": "Bearer " + token})
	get(t, hs.URL+"/v1/calls?access_token=wrong-"+token, nil)
	ctx := testCtx(t)
	c, err := dialLSP(t, ctx, wsURL(hs)+"?access_token="+token, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.open(ctx, "file:///a.js", "api."); err != nil {
		t.Fatal(err)
	}
	c.close()
	if logs.Len() == 0 {
		t.Fatal("no request log at debug level")
	}
	for _, e := range logs.All() {
		line := e.Message + fmt.Sprint(e.ContextMap())
		if strings.Contains(line, "n0t") {
			t.Errorf("log shows the token: %s", line)
		}
	}
}
