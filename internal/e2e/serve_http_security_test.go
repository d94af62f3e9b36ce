package e2e_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// countingService is a loopback "service" that counts the requests it
// gets: a refused dry run must never reach it.
func countingService(t *testing.T) (root string, hits *atomic.Int32) {
	t.Helper()
	hits = new(atomic.Int32)
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Basic dXNlcjpzM2NyZXQ=" {
			t.Errorf("the service got no credentials: %v", r.Header)
		}
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	t.Cleanup(svc.Close)
	root = t.TempDir()
	yml := "scriptservice:\n  api:\n    - serviceId: svc\n      url: " + svc.URL + "\n      authorization:\n        type: basic\n        encodedCredentials: dXNlcjpzM2NyZXQ=\n"
	if err := os.WriteFile(filepath.Join(root, "application.yml"), []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, hits
}

const runThatCalls = `{"text":"var r = api.rest.v1.get(\"svc\", {}, {}); return r.status.code;"}`

// TestServeHTTPCrossSiteRun is issue 13's finding 2: with --allow-run and
// no --token, a page on any origin posted a text/plain "simple" request
// (no preflight) to /v1/run, and the service received the credentials.
func TestServeHTTPCrossSiteRun(t *testing.T) {
	t.Parallel()
	root, hits := countingService(t)
	p := startHTTP(t, nil, "--config-root", root, "--allow-run")
	post := func(path, ctype string, header map[string]string) int {
		req, _ := http.NewRequest(http.MethodPost, p.base+path, strings.NewReader(runThatCalls))
		req.Header.Set("Content-Type", ctype)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	for _, tc := range []struct {
		name, path, ctype string
		header            map[string]string
		want              int
	}{
		{"cross-site text/plain", "/v1/run", "text/plain", map[string]string{"Origin": "http://evil.example"}, 403},
		{"cross-site JSON", "/v1/run", "application/json", map[string]string{"Origin": "http://evil.example"}, 403},
		{"text/plain, no origin", "/v1/run", "text/plain", nil, 401},
		{"JSON without the key", "/v1/run", "application/json", nil, 401},
		{"text/plain with the key", "/v1/run?access_token=" + p.key, "text/plain", nil, 415},
	} {
		if got := post(tc.path, tc.ctype, tc.header); got != tc.want {
			t.Errorf("%s: POST /v1/run = %d, want %d", tc.name, got, tc.want)
		}
		if n := hits.Load(); n != 0 {
			t.Fatalf("%s: the service received %d requests", tc.name, n)
		}
	}
	// The page's own request, with the key of the printed address, runs.
	if got := post("/v1/run?access_token="+p.key, "application/json", map[string]string{"Origin": p.base}); got != 200 || hits.Load() != 1 {
		t.Fatalf("the page's own dry run = %d, service hits %d", got, hits.Load())
	}

	// A socket opened without the key may not run the script either.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(p.base, "http")+"/lsp", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`,
		`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///d/a.js","languageId":"javascript","version":1,"text":"api.rest.v1.get(\"svc\", {}, {});"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"restls.runScript","arguments":[{"uri":"file:///d/a.js"}]}}`,
		`{"jsonrpc":"2.0","id":3,"method":"workspace/executeCommand","params":{"command":"restls.reload","arguments":[]}}`,
	} {
		if err := c.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	for answered := 0; answered < 2; {
		_, msg, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(msg), `"id":2`) || strings.Contains(string(msg), `"id":3`) {
			answered++
			if !strings.Contains(string(msg), `"error"`) || !strings.Contains(string(msg), "access key") {
				t.Errorf("a session without the key: %s", msg)
			}
		}
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the service received %d requests, want 1", n)
	}
}

// TestServeHTTPRebinding is issue 13's finding 3: the Host header was never
// checked, so a page on a name re-pointed at 127.0.0.1 could read the API
// and open /lsp with an Origin equal to its Host.
func TestServeHTTPRebinding(t *testing.T) {
	t.Parallel()
	p := startHTTP(t, nil, "--config-root", "../../testdata/config", "--allow-host", "designer.internal")
	u, _ := url.Parse(p.base)
	evil := "rebind.attacker.example:" + u.Port()
	get := func(host string, header map[string]string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, p.base+"/v1/services", nil)
		req.Host = host
		for k, v := range header {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := get(evil, nil); code != http.StatusMisdirectedRequest || !strings.Contains(body, "--allow-host") || strings.Contains(body, "crm-customers") {
		t.Errorf("GET /v1/services with Host %s = %d %s", evil, code, body)
	}
	if code, _ := get("designer.internal:"+u.Port(), nil); code != 200 {
		t.Errorf("an --allow-host name = %d", code)
	}
	if code, _ := get("localhost:"+u.Port(), nil); code != 200 {
		t.Errorf("localhost = %d", code)
	}
	if code, body := get(u.Host, map[string]string{"Origin": "http://evil.example"}); code != http.StatusForbidden || strings.Contains(body, "crm-customers") {
		t.Errorf("GET /v1/services from a foreign Origin = %d %s", code, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(p.base, "http")+"/lsp",
		&websocket.DialOptions{Host: evil, HTTPHeader: http.Header{"Origin": {"http://" + evil}}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("/lsp with Host and Origin %s: err %v, response %v", evil, err, resp)
	}
}

// TestServeHTTPSlowBody is issue 13's finding 7: a body sent one byte a
// second held a /v1/run connection with no bound.
func TestServeHTTPSlowBody(t *testing.T) {
	// Not in parallel: it bounds the wall time, which tests beside it would stretch.
	root, hits := countingService(t)
	p := startHTTP(t, nil, "--config-root", root, "--allow-run", "--read-timeout", "2s")
	addr := strings.TrimPrefix(p.base, "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	if _, err := io.WriteString(conn, "POST /v1/run?access_token="+p.key+" HTTP/1.1\r\nHost: "+addr+
		"\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, bufio.NewReader(conn))
		close(closed)
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-closed:
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("the connection closed after %v with --read-timeout 2s", took)
			}
			if hits.Load() != 0 {
				t.Errorf("the service was called")
			}
			return
		case <-tick.C:
			_, _ = conn.Write([]byte(" "))
			if time.Since(start) > 20*time.Second {
				t.Fatal("a body sent one byte a second held the connection for 20s with --read-timeout 2s")
			}
		}
	}
}

// TestServeHTTPSecretPrintedOnce: the secret appears once on stderr, in
// the page address, and never in the log, even at debug level with
// requests that carry it.
func TestServeHTTPSecretPrintedOnce(t *testing.T) {
	t.Parallel()
	p := startHTTP(t, nil, "--config-root", "../../testdata/config", "--allow-run", "--log-level", "debug")
	if len(p.key) < 20 {
		t.Fatalf("page address key %q", p.key)
	}
	for _, path := range []string{"/v1/services?access_token=" + p.key, "/?access_token=" + p.key} {
		if code, _ := httpGet(t, p.base+path); code != 200 {
			t.Errorf("GET %s = %d", path, code)
		}
	}
	res, err := http.Post(p.base+"/v1/run?access_token="+p.key, "application/json", strings.NewReader(`{"text":"return 1"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(p.base, "http")+"/lsp?access_token="+p.key, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`))
	_, _, _ = c.Read(ctx)
	c.Close(websocket.StatusNormalClosure, "")
	p.kill(syscall.SIGTERM)
	if err := <-p.wait; err != nil {
		t.Fatalf("exit: %v", err)
	}
	if n := strings.Count(p.stderr.String(), p.key); n != 1 {
		t.Errorf("the secret appears %d times on stderr, want once (the page address):\n%s", n, p.stderr.String())
	}
}
