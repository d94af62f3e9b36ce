package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mccutchen/go-httpbin/v2/httpbin"

	"github.com/restls/restls/web"
)

// httpProcess is `restls serve --http 127.0.0.1:0 ...` as a child process.
type httpProcess struct {
	base   string // http://127.0.0.1:port
	pid    int
	key    string // the access_token of the page address it printed, if any
	wait   chan error
	stderr *bytes.Buffer
	kill   func(syscall.Signal)
}

var listenLine = regexp.MustCompile(`designer and hints API on (http://[^/\s]+)/(?:\?access_token=(\S+))?`)

func startHTTP(t *testing.T, stdin io.Reader, args ...string) *httpProcess {
	t.Helper()
	cmd := restlsCommand(t, append([]string{"serve", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Stdin = stdin
	return startHTTPCmd(t, cmd)
}

func startHTTPCmd(t *testing.T, cmd *exec.Cmd) *httpProcess {
	t.Helper()
	pr, pw := io.Pipe()
	var buf bytes.Buffer
	cmd.Stderr = io.MultiWriter(pw, &buf)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &httpProcess{pid: cmd.Process.Pid, wait: make(chan error, 1), stderr: &buf, kill: func(s syscall.Signal) { _ = cmd.Process.Signal(s) }}
	go func() { p.wait <- cmd.Wait(); pw.Close() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
	})
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := listenLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m
				break
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	select {
	case m := <-found:
		p.base, p.key = m[1], m[2]
	case err := <-p.wait:
		t.Fatalf("restls serve --http exited before listening: %v\n%s", err, buf.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("restls serve --http did not say where it listens:\n%s", buf.String())
	}
	return p
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// failingReader fails the test when anything reads it: in HTTP mode stdin
// is not read.
type failingReader struct{ read chan struct{} }

func (f failingReader) Read(p []byte) (int, error) {
	close(f.read)
	return 0, io.EOF
}

func TestServeHTTP(t *testing.T) {
	t.Parallel()
	p := startHTTP(t, nil, "--config-root", "../../testdata/config")

	code, body := httpGet(t, p.base+"/v1/services?kind=scriptService")
	if code != 200 || !strings.Contains(body, `"crm-customers"`) || strings.Contains(body, "encodedCredentials") {
		t.Fatalf("GET /v1/services = %d %s", code, body)
	}
	code, body = httpGet(t, p.base+"/")
	if code != 200 || !strings.Contains(body, "restls designer") {
		t.Fatalf("GET / = %d %.200s", code, body)
	}
	// Dry runs are off without --allow-run.
	res, err := http.Post(p.base+"/v1/run", "application/json", strings.NewReader(`{"text":"return 1"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("POST /v1/run without --allow-run = %d", res.StatusCode)
	}
	// The WebSocket answers.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(p.base, "http")+"/lsp", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)); err != nil {
		t.Fatal(err)
	}
	_, msg, err := c.Read(ctx)
	if err != nil || !strings.Contains(string(msg), `"capabilities"`) {
		t.Fatalf("initialize over WebSocket: %s, %v", msg, err)
	}
	// restls.runScript is off over WebSocket without --allow-run, and says
	// which flag turns it on (not that this build has no runner).
	for _, m := range []string{
		`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///d/a.js","languageId":"javascript","version":1,"text":"return 1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"restls.runScript","arguments":[{"uri":"file:///d/a.js"}]}}`,
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
		if strings.Contains(string(msg), `"id":2`) {
			if !strings.Contains(string(msg), `"error"`) || !strings.Contains(string(msg), web.ReasonNoAllowRun) {
				t.Fatalf("restls.runScript without --allow-run answered %s", msg)
			}
			break
		}
	}

	// SIGTERM: graceful shutdown, exit 0, and the open session is told.
	p.kill(syscall.SIGTERM)
	for {
		if _, _, err := c.Read(ctx); err != nil {
			if websocket.CloseStatus(err) != websocket.StatusServiceRestart {
				t.Errorf("session ended with %v, want 1012 service restart (the designer reconnects)", err)
			}
			break
		}
	}
	select {
	case err := <-p.wait:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v\n%s", err, p.stderr.String())
		}
	case <-ctx.Done():
		t.Fatal("restls serve --http did not stop on SIGTERM")
	}
}

// TestServeHTTPDoesNotReadStdin: without --stdio the HTTP mode leaves stdin
// alone (an editor could not be talking on it). stdin is an OS pipe holding
// a message; after the child exits, the message is still there to read.
func TestServeHTTPDoesNotReadStdin(t *testing.T) {
	t.Parallel()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	const msg = "Content-Length: 2\r\n\r\n{}"
	if _, err := pw.WriteString(msg); err != nil {
		t.Fatal(err)
	}
	p := startHTTP(t, pr, "--config-root", "../../testdata/config")
	if code, _ := httpGet(t, p.base+"/healthz"); code != 200 {
		t.Fatalf("healthz = %d", code)
	}
	p.kill(syscall.SIGINT)
	if err := <-p.wait; err != nil {
		t.Errorf("exit after SIGINT: %v\n%s", err, p.stderr.String())
	}
	pw.Close()
	left, _ := io.ReadAll(pr)
	if string(left) != msg {
		t.Errorf("restls serve --http read stdin: %q left of %q", left, msg)
	}
}

func TestServeHTTPNonLoopbackNeedsToken(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	env := &cliEnv{stdin: failingReader{read: make(chan struct{})}, stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	if rc := runMain(env, []string{"serve", "--http", "0.0.0.0:0", "--config-root", "../../testdata/config"}); rc != 2 {
		t.Fatalf("exit %d, want 2; stderr:\n%s", rc, errb.String())
	}
	if !strings.Contains(errb.String(), "--token") || !strings.Contains(errb.String(), "non-loopback") {
		t.Errorf("stderr does not explain: %s", errb.String())
	}
	if out.Len() != 0 {
		t.Errorf("stdout: %q", out.String())
	}
}

func TestServeHTTPBadFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"serve", "--http", "127.0.0.1:0", "--allow-origin", "*"},
		{"serve", "--registry-url", "not a url"},
		{"serve", "--registry-url", "http://127.0.0.1:1", "--registry-refresh", "0s"},
		{"serve", "--registry-refresh", "0s"},
		{"serve", "--read-timeout", "0s"},
	} {
		var out, errb bytes.Buffer
		env := &cliEnv{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
		if rc := runMain(env, args); rc != 2 {
			t.Errorf("%v: exit %d, want 2; stderr %s", args, rc, errb.String())
		}
	}
}

// TestServeHTTPRegistryURL: a backend whose --registry-url does not answer
// offers no serviceIds and says why; one pointing at a working backend
// serves its services.
func TestServeHTTPRegistryURL(t *testing.T) {
	t.Parallel()
	upstream := startHTTP(t, nil, "--config-root", "../../testdata/config")
	p := startHTTP(t, nil, "--registry-url", upstream.base)
	code, body := httpGet(t, p.base+"/v1/services")
	if code != 200 || !strings.Contains(body, `"crm-customers"`) {
		t.Fatalf("services through --registry-url = %d %s", code, body)
	}
	broken := startHTTP(t, nil, "--registry-url", "http://127.0.0.1:1")
	code, body = httpGet(t, broken.base+"/v1/services")
	if code != 200 || strings.TrimSpace(body) != "{}" {
		t.Fatalf("services through a dead --registry-url = %d %s", code, body)
	}
	_, body = httpGet(t, broken.base+"/v1/status")
	if !strings.Contains(body, "no serviceId hints: error: registryUrl http://127.0.0.1:1") || !strings.Contains(body, "registry-url-unreachable") {
		t.Fatalf("status does not say why: %s", body)
	}
}

// TestRegistryURLSetting: an editor's registryUrl setting (stdio) loads the
// serviceIds from that backend.
func TestRegistryURLSetting(t *testing.T) {
	t.Parallel()
	upstream := startHTTP(t, nil, "--config-root", "../../testdata/config")
	p := startServe(t, nil, "--config-root", t.TempDir()) // no local services
	var init json.RawMessage
	if err := p.call(t, "initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"registryUrl": upstream.base}}, &init); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_ = p.conn.Notify(ctx, "initialized", map[string]any{})
	_ = p.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": "file:///tmp/a.js", "languageId": "javascript", "version": 1, "text": `api.rest.v1.get("`}})
	var res struct {
		Items []struct {
			Label string `json:"label"`
		} `json:"items"`
	}
	if err := p.call(t, "textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": "file:///tmp/a.js"},
		"position": map[string]any{"line": 0, "character": 17}}, &res); err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, it := range res.Items {
		labels = append(labels, it.Label)
	}
	if !slices.Contains(labels, "crm-customers") {
		t.Fatalf("completion with the registryUrl setting = %v, want the backend's serviceIds", labels)
	}
}

// TestSourceSettingsRefusedOverHTTP: a designer client cannot make the
// HTTP backend fetch an address or read files of its choosing.
func TestSourceSettingsRefusedOverHTTP(t *testing.T) {
	t.Parallel()
	p := startHTTP(t, nil, "--config-root", "../../testdata/config")
	for _, opts := range []string{`{"registryUrl":"http://127.0.0.1:1"}`, `{"configRoot":"/etc"}`, `{"serviceXml":"/etc/passwd"}`} {
		t.Run(opts, func(t *testing.T) { refusedOverHTTP(t, p, opts) })
	}
}

func refusedOverHTTP(t *testing.T, p *httpProcess, initOpts string) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(p.base, "http")+"/lsp", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"initializationOptions":` + initOpts + `}}`,
		`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
	} {
		if err := c.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("no restls/status saying the setting is refused: %v", err)
		}
		if strings.Contains(string(msg), "root:") {
			t.Fatalf("the server read a file a client named: %s", msg)
		}
		if strings.Contains(string(msg), `"restls/status"`) {
			if !strings.Contains(string(msg), "not honoured by restls serve --http") {
				t.Fatalf("status: %s", msg)
			}
			return
		}
	}
}

// TestServeHTTPAllowRun: with --allow-run, POST /v1/run runs the script with
// the real runtime against a loopback service (go-httpbin) and answers the
// `restls run --json` object.
func TestServeHTTPAllowRun(t *testing.T) {
	t.Parallel()
	svc := httptest.NewServer(httpbin.New())
	defer svc.Close()
	root := t.TempDir()
	yml := "scriptservice:\n  api:\n    - serviceId: bin\n      url: " + svc.URL + "\n"
	if err := os.WriteFile(filepath.Join(root, "application.yml"), []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startHTTP(t, nil, "--config-root", root, "--allow-run")
	if p.key == "" {
		t.Fatalf("no access_token in the page address:\n%s", p.stderr.String())
	}
	script := `var r = api.rest.v1.get("bin", {pathParams: ["anything", "x"], queryParams: {q: "1"}}, {}); return {code: r.status.code, url: r.body.url};`
	body, _ := json.Marshal(map[string]any{"text": script, "kind": "scriptService"})
	res, err := http.Post(p.base+"/v1/run?access_token="+p.key, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct {
		Result struct {
			Code int    `json:"code"`
			URL  string `json:"url"`
		} `json:"result"`
		Error json.RawMessage   `json:"error"`
		Calls []json.RawMessage `json:"calls"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || out.Result.Code != 200 || !strings.HasSuffix(out.Result.URL, "/anything/x?q=1") || len(out.Calls) != 1 {
		t.Fatalf("POST /v1/run = %d %+v (error %s)", res.StatusCode, out, out.Error)
	}
}
