package web

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/lsp"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// hostOf is the host:port of an httptest server.
func hostOf(t *testing.T, raw string) (host, port string) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Hostname(), u.Port()
}

// TestHostAllowlist: every route, /lsp included, answers only to the
// loopback names of the address it listens on and --allow-host values; a
// rebound name is refused with a hint at --allow-host.
func TestHostAllowlist(t *testing.T) {
	t.Parallel()
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.AllowHosts = []string{"designer.internal", "Proxy.Example:8443"}
	})
	_, port := hostOf(t, hs.URL)
	for _, tc := range []struct {
		host string
		want bool
	}{
		{"127.0.0.1:" + port, true},
		{"localhost:" + port, true},
		{"LOCALHOST:" + port, true},
		{"localhost", true},
		{"127.0.0.1", true},
		{"[::1]:" + port, true},
		{"localhost.:" + port, true},
		{"designer.internal", true},
		{"designer.internal:9999", true},
		{"proxy.example:8443", true},
		{"proxy.example:8444", false},
		{"proxy.example", false},
		{"rebind.attacker.example:" + port, false},
		{"rebind.attacker.example", false},
		{"localhost.attacker.example:" + port, false},
		{"127.0.0.1:1", false},
		{"127.0.0.2:" + port, false},
		{"10.0.0.1:" + port, false},
	} {
		for _, path := range []string{"/healthz", "/v1/services", "/v1/calls", "/v1/status", "/", "/lsp"} {
			req, _ := http.NewRequest(http.MethodGet, hs.URL+path, nil)
			req.Host = tc.host
			res, body := do(t, req)
			refused := res.StatusCode == http.StatusMisdirectedRequest
			if refused == tc.want {
				t.Errorf("Host %q, GET %s = %d %.100s", tc.host, path, res.StatusCode, body)
			}
			if refused && !strings.Contains(body, "--allow-host") {
				t.Errorf("Host %q refused without a hint: %s", tc.host, body)
			}
		}
	}
	// The WebSocket handshake of a rebound page: Host and Origin both its own
	// name (which websocket.Accept alone would let through).
	ctx := testCtx(t)
	evil := "rebind.attacker.example:" + port
	_, resp, err := websocket.Dial(ctx, wsURL(hs), &websocket.DialOptions{Host: evil,
		HTTPHeader: http.Header{"Origin": {"http://" + evil}}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("/lsp with a rebound Host and Origin: err %v, response %v", err, resp)
	}
}

func TestBadAllowHost(t *testing.T) {
	t.Parallel()
	for _, h := range []string{"", "*.example.com", "http://a.example.com", "a.example.com/x", "a.example.com:http", "a b"} {
		if _, err := parseHosts([]string{h}); err == nil || !strings.Contains(err.Error(), "--allow-host") {
			t.Errorf("parseHosts(%q) = %v, want an error naming the flag", h, err)
		}
	}
}

// TestForeignOrigin: a request from another page's origin is refused on
// every route, whatever it asks for; the server's own origin (under any
// name it answers to) and --allow-origin values pass.
func TestForeignOrigin(t *testing.T) {
	t.Parallel()
	const allowed = "http://designer.example.com:3000"
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) { o.AllowOrigins = []string{allowed} })
	_, port := hostOf(t, hs.URL)
	for _, tc := range []struct {
		origin string
		want   int
	}{
		{"", 200},
		{hs.URL, 200},
		{"http://localhost:" + port, 200},
		{allowed, 200},
		{"http://evil.example.com", 403},
		{"http://rebind.attacker.example:" + port, 403},
		{"http://127.0.0.1", 403}, // port 80, not this server
		{"https://127.0.0.1:" + port + "/x", 403},
		{"null", 403},
		{"file://", 403},
	} {
		for _, path := range []string{"/healthz", "/v1/services", "/v1/status", "/"} {
			res, body := get(t, hs.URL+path, map[string]string{"Origin": tc.origin})
			if res.StatusCode != tc.want {
				t.Errorf("Origin %q, GET %s = %d %.100s", tc.origin, path, res.StatusCode, body)
			}
			if res.StatusCode == 403 && !strings.Contains(body, "--allow-origin") {
				t.Errorf("Origin %q refused without a hint: %s", tc.origin, body)
			}
		}
	}
	ctx := testCtx(t)
	_, resp, err := websocket.Dial(ctx, wsURL(hs), &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://evil.example.com"}}})
	if err == nil || resp == nil || resp.StatusCode != 403 {
		t.Errorf("/lsp from a foreign origin: err %v, response %v", err, resp)
	}
	// The page under the other loopback name is this server's own page.
	c, err := dialLSP(t, ctx, wsURL(hs), &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://localhost:" + port}}})
	if err != nil {
		t.Fatalf("/lsp from the page on localhost: %v", err)
	}
	c.close()
}

// TestRunNeedsKey: without --token, POST /v1/run needs the secret of the
// page's address, and a JSON body; a cross-site "simple" request (no
// preflight) never reaches the runner.
func TestRunNeedsKey(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.Runner = func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
			runs.Add(1)
			return &dryrun.Result{Result: json.RawMessage("1")}, nil
		}
	})
	body := `{"text":"return 1"}`
	for _, tc := range []struct {
		name   string
		ctype  string
		header map[string]string
		query  string
		want   int
	}{
		{"no key", "application/json", nil, "", 401},
		{"wrong key", "application/json", map[string]string{"Authorization": "Bearer nope"}, "", 401},
		{"text/plain, no key", "text/plain", nil, "", 401},
		{"text/plain", "text/plain;charset=UTF-8", map[string]string{"Authorization": "Bearer " + s.key}, "", 415},
		{"form", "application/x-www-form-urlencoded", map[string]string{"Authorization": "Bearer " + s.key}, "", 415},
		{"no type", "", map[string]string{"Authorization": "Bearer " + s.key}, "", 415},
		{"header", "application/json", map[string]string{"Authorization": "Bearer " + s.key}, "", 200},
		{"query", "application/json; charset=utf-8", nil, "?access_token=" + s.key, 200},
	} {
		req, _ := http.NewRequest(http.MethodPost, hs.URL+"/v1/run"+tc.query, strings.NewReader(body))
		if tc.ctype != "" {
			req.Header.Set("Content-Type", tc.ctype)
		}
		for k, v := range tc.header {
			req.Header.Set(k, v)
		}
		before := runs.Load()
		res, got := do(t, req)
		if res.StatusCode != tc.want {
			t.Errorf("%s: POST /v1/run = %d %s", tc.name, res.StatusCode, got)
		}
		if ran := runs.Load() != before; ran != (tc.want == 200) {
			t.Errorf("%s: the runner ran: %v", tc.name, ran)
		}
		if strings.Contains(got, s.key) {
			t.Errorf("%s: the answer shows the key", tc.name)
		}
	}
	// Reading stays open on loopback.
	if res, _ := get(t, hs.URL+"/v1/services", nil); res.StatusCode != 200 {
		t.Errorf("GET /v1/services without the key = %d", res.StatusCode)
	}
	if u := s.PageURL(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7373}); u != "http://127.0.0.1:7373/?access_token="+s.key {
		t.Errorf("PageURL = %q", u)
	}
}

// TestSessionWithoutKey: a socket opened without the key may edit but not
// run scripts or reload; one opened with it may.
func TestSessionWithoutKey(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.LSP = lsp.NewServer(lsp.Options{Sources: config.Sources{ConfigRoot: exampleRoot}, PollInterval: -1,
			Runner: func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
				runs.Add(1)
				return &dryrun.Result{Result: json.RawMessage("1")}, nil
			}})
		o.Gate = NewGate(GateOptions{AllowRun: true}) // --allow-run
	})
	ctx := testCtx(t)
	cmd := func(c *lspClient, name string, arg any) error {
		var out any
		return c.call(ctx, "workspace/executeCommand", map[string]any{"command": name, "arguments": []any{arg}}, &out)
	}
	const doc = "file:///designer/scriptService/script.js"
	for _, tc := range []struct {
		url  string
		want bool
	}{{wsURL(hs), false}, {wsURL(hs) + "?access_token=wrong", false}, {wsURL(hs) + "?access_token=" + s.key, true}} {
		c, err := dialLSP(t, ctx, tc.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.open(ctx, doc, "return 1"); err != nil {
			t.Fatal(err)
		}
		before := runs.Load()
		errRun := cmd(c, lsp.CommandRunScript, map[string]any{"uri": doc})
		errReload := cmd(c, lsp.CommandReload, map[string]any{})
		if tc.want {
			if errRun != nil || errReload != nil || runs.Load() == before {
				t.Errorf("with the key: run %v, reload %v", errRun, errReload)
			}
		} else {
			for _, err := range []error{errRun, errReload} {
				if err == nil || !strings.Contains(err.Error(), "access key") || strings.Contains(err.Error(), s.key) {
					t.Errorf("without the key: %v", err)
				}
			}
			if runs.Load() != before {
				t.Errorf("without the key the script ran")
			}
		}
		c.close()
	}
}

// TestSlowBody: a client that sends the headers, then one byte of body a
// second, is cut off at the read timeout.
func TestSlowBody(t *testing.T) {
	t.Parallel()
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.ReadTimeout = 300 * time.Millisecond
		o.Runner = func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
			return &dryrun.Result{Result: json.RawMessage("1")}, nil
		}
	})
	host, port := hostOf(t, hs.URL)
	closed := slowPost(t, net.JoinHostPort(host, port), "")
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("a slow body held the connection for 10s with a 300ms read timeout")
	}
}

// slowPost sends POST /v1/run with a 1000-byte body announced and then one
// byte a second; the channel closes when the server closes the connection.
func slowPost(t *testing.T, addr, query string) <-chan struct{} {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, "POST /v1/run"+query+" HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() {
		// Whatever the server answers, it must then close the connection.
		_, _ = io.Copy(io.Discard, bufio.NewReader(conn))
		close(closed)
	}()
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-closed:
				return
			case <-tick.C:
				if _, err := conn.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	return closed
}

// TestLongRunOutlivesReadTimeout: the read timeout bounds the request's
// arrival, not the dry run: a run longer than it is not cancelled.
func TestLongRunOutlivesReadTimeout(t *testing.T) {
	t.Parallel()
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.ReadTimeout = 200 * time.Millisecond
		o.Runner = func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(4 * o.ReadTimeout):
				return &dryrun.Result{Result: json.RawMessage(`"finished"`)}, nil
			}
		}
	})
	res, body := post(t, hs.URL+"/v1/run", `{"text":"1"}`, map[string]string{"Authorization": "Bearer " + s.key})
	if res.StatusCode != 200 || !strings.Contains(body, "finished") {
		t.Fatalf("a run longer than the read timeout = %d %q", res.StatusCode, body)
	}
}

// TestReadDeadlineOnlyForTheBody: a handler that works longer than the
// read timeout keeps its context, with a body read to its end and without
// one (a deadline would end net/http's watch for a client that goes away
// and cancel the request).
func TestReadDeadlineOnlyForTheBody(t *testing.T) {
	t.Parallel()
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) { o.ReadTimeout = 200 * time.Millisecond })
	s.mux.HandleFunc("POST /test/slow", func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			t.Errorf("read body: %v", err)
		}
		select {
		case <-r.Context().Done():
			writeError(w, http.StatusServiceUnavailable, "cancelled")
		case <-time.After(4 * s.opts.ReadTimeout):
			writeJSON(w, http.StatusOK, "finished")
		}
	})
	s.mux.HandleFunc("GET /test/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
			writeError(w, http.StatusServiceUnavailable, "cancelled")
		case <-time.After(4 * s.opts.ReadTimeout):
			writeJSON(w, http.StatusOK, "finished")
		}
	})
	res, body := post(t, hs.URL+"/test/slow", `{"text":"1"}`, nil)
	if res.StatusCode != 200 {
		t.Errorf("a handler working past the read timeout after the body = %d %s", res.StatusCode, body)
	}
	res, body = get(t, hs.URL+"/test/slow", nil)
	if res.StatusCode != 200 {
		t.Errorf("a handler without a body working past the read timeout = %d %s", res.StatusCode, body)
	}
}
