package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/restls/restls/web"
)

// designerDAP is the designer's side of /dap on a restls serve --http.
type designerDAP struct {
	t   *testing.T
	ctx context.Context
	c   *websocket.Conn
	seq int
}

func dialDesignerDAP(t *testing.T, base, key string) *designerDAP {
	t.Helper()
	return dialDesignerDAPWith(t, base, bearer(key))
}

// dialDesignerDAPWith dials /dap with the request headers h.
func dialDesignerDAPWith(t *testing.T, base string, h http.Header) *designerDAP {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	url := "ws" + strings.TrimPrefix(base, "http") + "/dap"
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: h, Subprotocols: []string{web.DAPProtocol}})
	if err != nil {
		t.Fatalf("dial /dap: %v", err)
	}
	c.SetReadLimit(8 << 20)
	t.Cleanup(func() { _ = c.CloseNow() })
	return &designerDAP{t: t, ctx: ctx, c: c}
}

func (d *designerDAP) send(command string, args any) {
	d.t.Helper()
	d.seq++
	b, _ := json.Marshal(map[string]any{"seq": d.seq, "type": "request", "command": command, "arguments": args})
	if err := d.c.Write(d.ctx, websocket.MessageText, b); err != nil {
		d.t.Fatal(err)
	}
}

type designerMsg struct {
	Type, Command, Event, Message string
	Success                       bool
	Body                          json.RawMessage
}

// until reads until the response to command or the event named.
func (d *designerDAP) until(command, event string) designerMsg {
	d.t.Helper()
	for {
		_, data, err := d.c.Read(d.ctx)
		if err != nil {
			d.t.Fatalf("reading /dap waiting for %q/%q: %v", command, event, err)
		}
		var m designerMsg
		if err := json.Unmarshal(data, &m); err != nil {
			d.t.Fatalf("not a DAP message: %s", data)
		}
		if (command != "" && m.Type == "response" && m.Command == command) || (event != "" && m.Event == event) {
			return m
		}
	}
}

// dapChildren are the processes of pid's children running restls dap.
func dapChildren(t *testing.T, pid int) []int {
	t.Helper()
	tasks, err := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, field := range strings.Fields(string(b)) {
			c, _ := strconv.Atoi(field)
			cmdline, _ := os.ReadFile("/proc/" + field + "/cmdline")
			if args := bytes.Split(cmdline, []byte{0}); len(args) > 1 && string(args[1]) == "dap" {
				out = append(out, c)
			}
		}
	}
	return out
}

// TestDesignerDebugChild: through the binary, a designer's debug
// session runs in a restls dap child of restls serve and holds one of
// its --max-runs slots while it stands paused, so a dry run beyond it is
// refused as busy; paused past the dry runs' --run-timeout it is still
// paused and answers; disconnecting kills the child and frees the slot
// by the time the answer arrives.
func TestDesignerDebugChild(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("reads a process's children from /proc (Linux)")
	}
	t.Parallel()
	root := dapProject(t)
	cmd := restlsCommand(t, "serve", "--http", "127.0.0.1:0", "--allow-run", "--max-runs", "1", "--run-timeout", "1s", "--shutdown-grace", "1s")
	cmd.Dir = root
	p := startHTTPCmd(t, cmd)
	d, child := pausedDesignerSession(t, p)
	paused := time.Now()
	if code, body := send(t, http.MethodPost, p.base+"/v1/run", runBody("return 1", ""), bearer(p.key)); code != http.StatusTooManyRequests {
		t.Errorf("a dry run while the paused debug session holds the only slot: %d %s, want 429", code, body)
	}

	// Past the dry runs' time limit (1 s): a paused run is not a run
	// that takes too long; the session's idle limit ends it.
	<-time.After(time.Until(paused.Add(1500 * time.Millisecond)))
	d.send("stackTrace", map[string]any{"threadId": 1})
	var st struct{ StackFrames []struct{ ID, Line int } }
	_ = json.Unmarshal(d.until("stackTrace", "").Body, &st)
	if len(st.StackFrames) == 0 || st.StackFrames[0].Line != 2 {
		t.Fatalf("stack %+v past the run timeout, want stopped on line 2", st)
	}
	d.send("scopes", map[string]any{"frameId": st.StackFrames[0].ID})
	var scopes struct {
		Scopes []struct{ VariablesReference int }
	}
	_ = json.Unmarshal(d.until("scopes", "").Body, &scopes)
	if len(scopes.Scopes) == 0 {
		t.Fatal("no scopes past the run timeout")
	}
	d.send("variables", map[string]any{"variablesReference": scopes.Scopes[0].VariablesReference})
	var vars struct {
		Variables []struct{ Name, Value string }
	}
	_ = json.Unmarshal(d.until("variables", "").Body, &vars)
	if len(vars.Variables) == 0 || vars.Variables[0].Name != "a" || vars.Variables[0].Value != "1" {
		t.Errorf("variables past the run timeout: %+v, want a = 1", vars.Variables)
	}
	if got := dapChildren(t, p.pid); len(got) != 1 || got[0] != child {
		t.Errorf("restls dap children %v past the run timeout, want %d still", got, child)
	}

	d.send("disconnect", nil)
	d.until("disconnect", "")
	if processExists(child) {
		t.Errorf("the debug session's child %d still exists after its disconnect was answered", child)
	}
	if code, body := send(t, http.MethodPost, p.base+"/v1/run", runBody("return 1", ""), bearer(p.key)); code != http.StatusOK {
		t.Errorf("a dry run after the debug session ended: %d %s, want 200 (the slot freed)", code, body)
	}

	// A designer that goes (its socket closed) ends its session too.
	d, child = pausedDesignerSession(t, p)
	_ = d.c.CloseNow()
	if !gone(child) {
		t.Fatalf("the child %d of a session whose socket closed still exists after 30 s", child)
	}
	if code, body := send(t, http.MethodPost, p.base+"/v1/run", runBody("return 1", ""), bearer(p.key)); code != http.StatusOK {
		t.Errorf("a dry run after the socket closed: %d %s, want 200 (the slot freed)", code, body)
	}

	// And so does the server's shutdown, once its grace is over.
	_, child = pausedDesignerSession(t, p)
	p.kill(syscall.SIGTERM)
	select {
	case <-p.wait:
	case <-time.After(time.Minute):
		t.Fatal("restls serve still runs a minute after SIGTERM with a paused debug session")
	}
	if !gone(child) {
		t.Errorf("the child %d of a paused debug session outlived restls serve by 30 s", child)
	}
}

// pausedDesignerSession launches a script on p's /dap and stops it at
// its line 2; the session's restls dap child is the one process of p
// running restls dap.
func pausedDesignerSession(t *testing.T, p *httpProcess) (*designerDAP, int) {
	t.Helper()
	d := dialDesignerDAP(t, p.base, p.key)
	const name = "/designer/scriptService/script.js"
	d.send("initialize", map[string]any{"adapterID": "restls"})
	d.until("initialize", "")
	d.send("launch", map[string]any{"program": name, "text": "var a = 1;\nvar b = a + 1;\nreturn b;\n"})
	if m := d.until("launch", ""); !m.Success {
		t.Fatalf("launch refused: %s", m.Message)
	}
	d.send("setBreakpoints", map[string]any{"source": map[string]any{"path": name}, "breakpoints": []map[string]any{{"line": 2}}})
	d.until("setBreakpoints", "")
	d.send("configurationDone", nil)
	d.until("", "stopped")
	children := dapChildren(t, p.pid)
	if len(children) != 1 {
		t.Fatalf("restls serve has %d restls dap children while a designer session stands paused, want 1 (stderr:\n%s)", len(children), p.stderr)
	}
	return d, children[0]
}

// gone waits until process pid is gone (reaped), at most 30 s; false
// when it is still there.
func gone(pid int) bool {
	for deadline := time.Now().Add(30 * time.Second); processExists(pid); {
		if time.Now().After(deadline) {
			return false
		}
		<-time.After(10 * time.Millisecond)
	}
	return true
}

// processExists reports whether process pid exists (a zombie counts:
// its parent has not reaped it).
func processExists(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil
}

// TestDesignerDebugMemoryLimit: a designer's debug run is bounded by
// the server's --max-memory as its dry runs are: the run is stopped
// saying so, and the session's process is gone.
func TestDesignerDebugMemoryLimit(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("reads a process's children from /proc (Linux)")
	}
	t.Parallel()
	root := dapProject(t)
	cmd := restlsCommand(t, "serve", "--http", "127.0.0.1:0", "--allow-run", "--max-memory", "32MiB")
	cmd.Dir = root
	p := startHTTPCmd(t, cmd)
	d := dialDesignerDAP(t, p.base, p.key)
	d.send("initialize", map[string]any{"adapterID": "restls"})
	d.until("initialize", "")
	d.send("launch", map[string]any{"program": "/designer/scriptService/grow.js", "text": "var keep = [];\nwhile (true) {\n  keep.push(new Array(100000).fill(7));\n}\n"})
	if m := d.until("launch", ""); !m.Success {
		t.Fatalf("launch refused: %s", m.Message)
	}
	children := dapChildren(t, p.pid)
	if len(children) != 1 {
		t.Fatalf("%d restls dap children, want 1", len(children))
	}
	d.send("configurationDone", nil)
	var out strings.Builder
	for {
		_, data, err := d.c.Read(d.ctx)
		if err != nil {
			t.Fatalf("reading /dap: %v\n%s", err, out.String())
		}
		var m struct {
			Event string
			Body  struct{ Output string }
		}
		_ = json.Unmarshal(data, &m)
		out.WriteString(m.Body.Output)
		if m.Event == "terminated" {
			break
		}
	}
	if !strings.Contains(out.String(), "memory") || !strings.Contains(out.String(), "32MiB") {
		t.Errorf("the debug run past --max-memory ended saying:\n%s\nwant its memory limit named", out.String())
	}
	d.send("disconnect", nil)
	d.until("disconnect", "")
	if processExists(children[0]) {
		t.Errorf("the child %d still exists after its disconnect was answered", children[0])
	}
}

// TestDesignerDebugRegistryURL: a restls serve whose services come from
// --registry-url debugs a designer's script against that registry: its
// restls dap child is given the services the server reads (it refused
// the launch before), so a script calling a serviceId only the registry
// backend has stops after the call with the loopback service's answer
// in its variables. The backend's --registry-token and the server's own
// access key (RESTLS_HTTP_TOKEN) are in neither the child's command line
// nor its environment.
func TestDesignerDebugRegistryURL(t *testing.T) {
	t.Parallel()
	called := make(chan struct{}, 1)
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		select {
		case called <- struct{}{}:
		default:
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"word":"from-loopback"}`))
	}))
	t.Cleanup(svc.Close)
	cfg := t.TempDir()
	writeFile(t, cfg, "application.yml", "scriptservice:\n  api:\n    - serviceId: only-upstream\n      url: "+svc.URL+"\n")
	const token = "registry-token-never-shown"
	upstream := startHTTP(t, nil, "--config-root", cfg, "--token", token)

	cmd := restlsCommand(t, "serve", "--http", "127.0.0.1:0", "--registry-url", upstream.base, "--registry-token", token, "--allow-run")
	cmd.Dir = t.TempDir() // no configuration file: the registry is the only source
	const key = "designer-access-key-never-inherited"
	cmd.Env = append(os.Environ(), "RESTLS_HTTP_TOKEN="+key)
	p := startHTTPCmd(t, cmd)
	p.key = key // given, so not printed
	// The server has read the registry once GET /v1/services lists it.
	for deadline := time.Now().Add(time.Minute); ; {
		code, body := send(t, http.MethodGet, p.base+"/v1/services?kind=scriptService", "", bearer(p.key))
		if code == http.StatusOK && strings.Contains(body, "only-upstream") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("restls serve --registry-url lists no only-upstream after a minute: %d %.300s", code, body)
		}
		<-time.After(50 * time.Millisecond)
	}

	d := dialDesignerDAP(t, p.base, p.key)
	const name = "/designer/scriptService/remote.js"
	d.send("initialize", map[string]any{"adapterID": "restls"})
	d.until("initialize", "")
	d.send("launch", map[string]any{"program": name, "live": true,
		"text": "var word = api.rest.v1.get(\"only-upstream\", {}, {}).body.word;\nreturn word;\n"})
	if m := d.until("launch", ""); !m.Success {
		t.Fatalf("launch on a server reading --registry-url refused: %s", m.Message)
	}
	d.send("setBreakpoints", map[string]any{"source": map[string]any{"path": name}, "breakpoints": []map[string]any{{"line": 2}}})
	d.until("setBreakpoints", "")
	d.send("configurationDone", nil)
	d.until("", "stopped")
	select {
	case <-called:
	default:
		t.Fatal("stopped after the call, but the loopback service was not called")
	}
	if _, err := os.Stat("/proc/self/environ"); err == nil {
		children := dapChildren(t, p.pid)
		if len(children) != 1 {
			t.Fatalf("%d restls dap children of a paused session, want 1", len(children))
		}
		for _, f := range []string{"cmdline", "environ"} {
			b, err := os.ReadFile("/proc/" + strconv.Itoa(children[0]) + "/" + f)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b, []byte(token)) {
				t.Errorf("the debug child's %s holds --registry-token: %q", f, b)
			}
			if bytes.Contains(b, []byte(key)) {
				t.Errorf("the debug child's %s holds the server's access key: %q", f, b)
			}
		}
	}
	d.send("stackTrace", map[string]any{"threadId": 1})
	var st struct{ StackFrames []struct{ ID, Line int } }
	_ = json.Unmarshal(d.until("stackTrace", "").Body, &st)
	if len(st.StackFrames) == 0 || st.StackFrames[0].Line != 2 {
		t.Fatalf("stack %+v, want stopped on line 2", st)
	}
	d.send("scopes", map[string]any{"frameId": st.StackFrames[0].ID})
	var scopes struct {
		Scopes []struct{ VariablesReference int }
	}
	_ = json.Unmarshal(d.until("scopes", "").Body, &scopes)
	if len(scopes.Scopes) == 0 {
		t.Fatal("no scopes")
	}
	d.send("variables", map[string]any{"variablesReference": scopes.Scopes[0].VariablesReference})
	var vars struct {
		Variables []struct{ Name, Value string }
	}
	_ = json.Unmarshal(d.until("variables", "").Body, &vars)
	found := false
	for _, v := range vars.Variables {
		found = found || (v.Name == "word" && strings.Contains(v.Value, "from-loopback"))
	}
	if !found {
		t.Errorf("variables %+v, want word = the loopback service's \"from-loopback\"", vars.Variables)
	}
	d.send("disconnect", nil)
	d.until("disconnect", "")
}
