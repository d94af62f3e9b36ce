package e2e_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/restls/restls/web"
)

// slowService answers each request once release is closed; arrived
// receives each request's path as it comes in.
func slowService(t *testing.T) (url string, arrived chan string, release func()) {
	t.Helper()
	arrived = make(chan string, 8)
	gate := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- r.URL.Path
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"slow":true}`))
	}))
	t.Cleanup(func() { release(); svc.Close() })
	return svc.URL, arrived, release
}

// stoppingServer starts serve --http with a slow service, dry runs, a
// token, the operators' port and grace; it returns the process, the main
// and the operators' addresses.
func stoppingServer(t *testing.T, svc, grace string) (p *opsProcess, base, ops string) {
	t.Helper()
	root := t.TempDir()
	yml := "scriptservice:\n  api:\n    - serviceId: slow\n      url: " + svc + "\n"
	if err := os.WriteFile(filepath.Join(root, "application.yml"), []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	p = startServeLines(t, "--config-root", root, "--token", "stop-test-token", "--allow-run", "--log-format", "json",
		"--metrics-addr", "127.0.0.1:0", "--shutdown-grace", grace)
	var pageLine string
	opsLine := p.waitLine(t, "the operators' port", func(l string) bool {
		m := jsonLog(l)
		if m != nil && m["msg"] == "designer and hints API" {
			pageLine = l
		}
		return m != nil && m["msg"] == "serving /metrics, /healthz and /readyz"
	})
	if pageLine == "" {
		pageLine = p.waitLine(t, "the page address", func(l string) bool { m := jsonLog(l); return m != nil && m["msg"] == "designer and hints API" })
	}
	return p, strings.TrimSuffix(jsonLog(pageLine)["url"].(string), "/"), "http://" + jsonLog(opsLine)["addr"].(string)
}

type runAnswer struct {
	code int
	body string
}

// startRun posts a dry run that calls the slow service and answers on
// the channel returned.
func startRun(t *testing.T, base string) chan runAnswer {
	out := make(chan runAnswer, 1)
	go func() {
		code, body := send(t, http.MethodPost, base+"/v1/run", runBody(`return api.rest.v1.get("slow", {}, {}).body`, ""), bearer("stop-test-token"))
		out <- runAnswer{code, body}
	}()
	return out
}

// TestServeHTTPStop: on SIGTERM a replica fails /readyz at once, refuses
// new /lsp sessions and runs with 503, lets the run in flight finish
// within --shutdown-grace and answer as usual, closes the open socket
// with 1012 (service restart: the designer module reconnects) and exits 0.
func TestServeHTTPStop(t *testing.T) {
	t.Parallel()
	svc, arrived, release := slowService(t)
	p, base, ops := stoppingServer(t, svc, "30s")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/lsp", &websocket.DialOptions{HTTPHeader: bearer("stop-test-token")})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Read(ctx); err != nil {
		t.Fatal(err)
	}
	run := startRun(t, base)
	<-arrived // the run is calling the service

	p.kill(syscall.SIGTERM)
	p.waitLine(t, "the stopping entry", func(l string) bool {
		m := jsonLog(l)
		return m != nil && strings.HasPrefix(m["msg"].(string), "stopping")
	})
	if code, body := httpGet(t, ops+"/readyz"); code != 503 || !strings.Contains(body, "stopping") {
		t.Errorf("/readyz while stopping = %d %s", code, body)
	}
	if _, res, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/lsp", &websocket.DialOptions{HTTPHeader: bearer("stop-test-token")}); err == nil || res == nil || res.StatusCode != 503 {
		t.Errorf("a new /lsp session while stopping: %v", err)
	}
	if code, body := send(t, http.MethodPost, base+"/v1/run", runBody(`return 1`, ""), bearer("stop-test-token")); code != 503 || !strings.Contains(body, "stopping") {
		t.Errorf("a new run while stopping = %d %s", code, body)
	}
	release()
	if a := <-run; a.code != 200 || !strings.Contains(a.body, `"slow":true`) {
		t.Errorf("the run in flight answered %d %s", a.code, a.body)
	}
	for {
		if _, _, err := c.Read(ctx); err != nil {
			if websocket.CloseStatus(err) != websocket.StatusServiceRestart {
				t.Errorf("the session ended with %v, want 1012 service restart", err)
			}
			break
		}
	}
	p.waitLine(t, "the stop", func(l string) bool { m := jsonLog(l); return m != nil && m["msg"] == "HTTP server stopped" })
}

// TestServeHTTPStopGraceOver: a run still going when the grace period is
// over is stopped, and its client reads why, not a dropped connection.
func TestServeHTTPStopGraceOver(t *testing.T) {
	t.Parallel()
	svc, arrived, _ := slowService(t)
	p, base, _ := stoppingServer(t, svc, "1s")
	run := startRun(t, base)
	<-arrived
	p.kill(syscall.SIGTERM)
	a := <-run
	var body struct{ Error string }
	_ = json.Unmarshal([]byte(a.body), &body)
	if a.code != 422 || !strings.Contains(body.Error, web.ErrStopped.Error()) {
		t.Errorf("the run stopped by the shutdown answered %d %s", a.code, a.body)
	}
	p.waitLine(t, "the stop", func(l string) bool { m := jsonLog(l); return m != nil && m["msg"] == "HTTP server stopped" })
}
