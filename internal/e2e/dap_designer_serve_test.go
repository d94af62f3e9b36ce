package e2e_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/restls/restls/web"
)

// TestDesignerDebugLimitedRunnerThroughServe: through the binary, a
// runner limited to the serviceId "orders,eu" (a comma in it) debugs a
// live script on /dap of restls serve --http --allow-run: its restls
// dap child stops at the breakpoint, continues and ends; the child lets
// the run call "orders,eu" and not "orders", as the gate and a dry run
// compare the id; the session's audit line names the outcome and the
// calls the child reported; and the child logs at the server's
// --log-level (debug), its lines in the server's log at their own level.
func TestDesignerDebugLimitedRunnerThroughServe(t *testing.T) {
	t.Parallel()
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"word":"answered"}`))
	}))
	t.Cleanup(svc.Close)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "config/application.yml", "scriptservice:\n  api:\n"+
		"    - serviceId: orders\n      url: "+svc.URL+"/orders\n"+
		"    - serviceId: \"orders,eu\"\n      url: "+svc.URL+"/eu\n")
	project := writeFile(t, dir, "restls.yaml", "configRoot: config\nroles:\n  default: viewer\n  groups:\n    ops-eu: {role: runner, services: [\"orders,eu\"]}\n")
	audit := filepath.Join(dir, "audit.jsonl")
	p := startHTTP(t, nil, "--auth", "proxy", "--trusted-proxy", "127.0.0.1/32", "--project", project, "--allow-run",
		"--audit", audit, "--log-level", "debug")

	d := dialDesignerDAPWith(t, p.base, http.Header{web.DefaultUserHeader: {"ron"}, web.DefaultGroupsHeader: {"ops-eu"}})
	const name = "/designer/scriptService/limited.js"
	d.send("initialize", map[string]any{"adapterID": "restls"})
	d.until("initialize", "")
	d.send("launch", map[string]any{"program": name, "live": true, "text": "var out = [];\n" +
		"[\"orders\", \"orders,eu\"].forEach(function (id) {\n" +
		"  try { out.push(id + \" \" + api.rest.v1.get(id, {}, {}).body.word); }\n" +
		"  catch (e) { out.push(id + \" \" + e.code); }\n" +
		"});\n" +
		"return out.join(\"; \");\n"})
	if m := d.until("launch", ""); !m.Success {
		t.Fatalf("launch refused: %s", m.Message)
	}
	d.send("setBreakpoints", map[string]any{"source": map[string]any{"path": name}, "breakpoints": []map[string]any{{"line": 6}}})
	d.until("setBreakpoints", "")
	d.send("configurationDone", nil)
	d.until("", "stopped")
	d.send("evaluate", map[string]any{"expression": "out.length", "frameId": 1, "context": "repl"})
	var ev struct{ Result string }
	_ = json.Unmarshal(d.until("evaluate", "").Body, &ev)
	if ev.Result != "2" {
		t.Errorf("out.length at the breakpoint = %q, want 2", ev.Result)
	}
	d.send("continue", map[string]any{"threadId": 1})
	var result string
	for {
		_, data, err := d.c.Read(d.ctx)
		if err != nil {
			t.Fatalf("reading /dap until the run ends: %v", err)
		}
		var m designerMsg
		_ = json.Unmarshal(data, &m)
		if m.Event == "output" {
			var o struct{ Output string }
			_ = json.Unmarshal(m.Body, &o)
			if r, ok := strings.CutPrefix(o.Output, "result: "); ok {
				result = strings.TrimSpace(r)
			}
		}
		if m.Event == "terminated" {
			break
		}
	}
	if want := `"orders service-not-allowed; orders,eu answered"`; result != want {
		t.Errorf("the limited runner's debug run returned %s, want %s", result, want)
	}
	d.send("disconnect", nil)
	d.until("disconnect", "")

	// The audit line is written before the disconnect is answered.
	b, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	var rec web.AuditRecord
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r web.AuditRecord
		if json.Unmarshal([]byte(line), &r) == nil && r.Via == "dap" {
			rec = r
		}
	}
	if rec.Outcome != "returned" || rec.User != "ron" || rec.Mode != "live" || len(rec.Calls) != 2 ||
		rec.Calls[0].ServiceID != "orders" || rec.Calls[0].Code != "service-not-allowed" || rec.Calls[1].ServiceID != "orders,eu" || rec.Calls[1].Status != 200 {
		t.Errorf("the debug session's audit line: %+v\naudit file:\n%s", rec, b)
	}

	p.kill(syscall.SIGTERM)
	select {
	case <-p.wait:
	case <-time.After(time.Minute):
		t.Fatal("restls serve still runs a minute after SIGTERM")
	}
	found := false
	for _, line := range strings.Split(p.stderr.String(), "\n") {
		found = found || (strings.Contains(line, "\tdebug\t") && strings.Contains(line, "restls dap (the designer's debugger)") && strings.Contains(line, "dry run"))
	}
	if !found {
		t.Errorf("no debug line of the debug child in the log of restls serve --log-level debug:\n%s", p.stderr.String())
	}
}

// TestDesignerDebugIdleThroughServe: restls serve --debug-idle is the
// idle limit of a designer debug session, before its launch (the /dap
// socket of a page that says nothing is closed) and after it (the
// restls dap child, given it as --idle, ends a paused run whose page
// went silent).
func TestDesignerDebugIdleThroughServe(t *testing.T) {
	t.Parallel()
	cmd := restlsCommand(t, "serve", "--http", "127.0.0.1:0", "--allow-run", "--debug-idle", "1500ms")
	cmd.Dir = dapProject(t)
	p := startHTTPCmd(t, cmd)

	silent := dialDesignerDAP(t, p.base, p.key)
	for {
		if _, _, err := silent.c.Read(silent.ctx); err != nil {
			if !strings.Contains(err.Error(), "--debug-idle") {
				t.Errorf("the silent /dap socket ended with %v, want closed naming --debug-idle", err)
			}
			break
		}
	}

	// Until its run stands paused, the page keeps talking (as an
	// editor's debugger asks for threads): how long a loaded machine
	// takes to start the child and reach the breakpoint is no part of the
	// idle limit, which counts from the page's last message after that.
	d := dialDesignerDAP(t, p.base, p.key)
	quiet := keepTalking(d, 250*time.Millisecond)
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
	quiet()
	var out strings.Builder
	for {
		_, data, err := d.c.Read(d.ctx)
		if err != nil {
			t.Fatalf("reading /dap of a silent paused session: %v\n%s", err, out.String())
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
	if !strings.Contains(out.String(), "sent nothing for 1.5s") {
		t.Errorf("the paused session's end said:\n%s\nwant the child's idle limit of 1.5s", out.String())
	}
}

// keepTalking sends a threads request on d every period, as an editor's
// debugger asks while it waits on a run, until the function it returns
// is called (which returns once the last is sent): the session's idle
// limit then counts from the page's last message after that, however
// long the machine took to get there. d's context bounds it all.
func keepTalking(d *designerDAP, period time.Duration) (quiet func()) {
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for seq := 1 << 20; ; seq++ {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			b, _ := json.Marshal(map[string]any{"seq": seq, "type": "request", "command": "threads"})
			if d.c.Write(d.ctx, websocket.MessageText, b) != nil {
				return
			}
		}
	}()
	return func() { close(done); <-exited }
}

// TestDesignerDebugRunsInTheServersDecision: the environment and the
// kind of a designer debug run are decided once, by the server (for its
// gate and audit), and its restls dap child runs in them: the project
// file changed after the server read it (another default environment,
// another kind for the script) changes nothing of the run, where the
// child read the file again and ran elsewhere.
func TestDesignerDebugRunsInTheServersDecision(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, env := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(dir, env), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, env+"/application.yml", "scriptservice:\n  api:\n    - serviceId: only-"+env+"\n      url: https://"+env+".example.com/api\n")
	}
	const project = "environments:\n  a: {configRoot: a}\n  b: {configRoot: b}\ndefaultEnvironment: %s\nscriptKinds:\n  \"**/kinds/**\": %s\n"
	file := writeFile(t, dir, "restls.yaml", fmt.Sprintf(project, "a", "scriptService"))
	audit := filepath.Join(dir, "audit.jsonl")
	cmd := restlsCommand(t, "serve", "--http", "127.0.0.1:0", "--allow-run", "--project", file, "--audit", audit)
	cmd.Dir = dir
	p := startHTTPCmd(t, cmd)
	// The server has read the file; the child, started at the launch,
	// would read this one.
	writeFile(t, dir, "restls.yaml", fmt.Sprintf(project, "b", "validationScript"))

	d := dialDesignerDAP(t, p.base, p.key)
	d.send("initialize", map[string]any{"adapterID": "restls"})
	d.until("initialize", "")
	d.send("launch", map[string]any{"program": "/designer/kinds/which.js",
		"fixturesText": "fixtures:\n  - {serviceId: only-a, method: GET, path: x, body: {}}\n  - {serviceId: only-b, method: GET, path: x, body: {}}\n",
		"text": "var out = [];\n" +
			"[\"only-a\", \"only-b\"].forEach(function (id) {\n" +
			"  try { api.rest.v1.get(id, {pathParams: [\"x\"]}, {}); out.push(id + \" answered\"); }\n" +
			"  catch (e) { out.push(id + \" \" + e.code); }\n" +
			"});\n" +
			"return out.join(\"; \");\n"})
	if m := d.until("launch", ""); !m.Success {
		t.Fatalf("launch refused: %s", m.Message)
	}
	d.send("configurationDone", nil)
	var out strings.Builder
	for {
		_, data, err := d.c.Read(d.ctx)
		if err != nil {
			t.Fatalf("reading /dap until the run ends: %v\n%s", err, out.String())
		}
		var m designerMsg
		_ = json.Unmarshal(data, &m)
		if m.Event == "output" {
			var o struct{ Output string }
			_ = json.Unmarshal(m.Body, &o)
			out.WriteString(o.Output)
		}
		if m.Event == "terminated" {
			break
		}
	}
	if !strings.Contains(out.String(), `result: "only-a answered; only-b `) {
		t.Errorf("the debug run did not run in the server's environment a:\n%s", out.String())
	}
	d.send("disconnect", nil)
	d.until("disconnect", "")
	b, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	var rec web.AuditRecord
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r web.AuditRecord
		if json.Unmarshal([]byte(line), &r) == nil && r.Via == "dap" {
			rec = r
		}
	}
	if rec.Environment != "a" || rec.Kind != "scriptService" || rec.Outcome != "returned" {
		t.Errorf("audit of the debug run: environment %q, kind %q, outcome %q; want a, scriptService, returned\n%s", rec.Environment, rec.Kind, rec.Outcome, b)
	}
}

// TestDesignerDebugChildReadsNoProjectFile: the project file's engine
// level (and time limits) a designer debug run has are the server's,
// given to its restls dap child with the environment: the file changed
// after the server read it (no engine level; then a broken file) changes
// nothing of the run, where the child read the file again and ran a
// script the server's level refuses (and, the file broken, did not
// start).
func TestDesignerDebugChildReadsNoProjectFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "config/application.yml", "scriptservice:\n  api:\n    - serviceId: orders\n      url: https://orders.example.com/api\n")
	file := writeFile(t, dir, "restls.yaml", "configRoot: config\nengine: es5.1\ntimeLimits:\n  scriptService: 5000\n")
	cmd := restlsCommand(t, "serve", "--http", "127.0.0.1:0", "--allow-run", "--project", file)
	cmd.Dir = dir
	p := startHTTPCmd(t, cmd)
	for _, later := range []string{
		"configRoot: config\n",                 // another engine level (latest), and no time limits
		"configRoot: config\nengine: es9999\n", // a file restls refuses to read
	} {
		// The server has read the file; the child, started at the
		// launch, would read this one.
		writeFile(t, dir, "restls.yaml", later)
		d := dialDesignerDAP(t, p.base, p.key)
		d.send("initialize", map[string]any{"adapterID": "restls"})
		d.until("initialize", "")
		d.send("launch", map[string]any{"program": "/designer/scriptService/arrow.js", "text": "var f = () => 1;\nreturn f();\n"})
		if m := d.until("launch", ""); !m.Success {
			t.Fatalf("launch refused: %s", m.Message)
		}
		d.send("configurationDone", nil)
		out := designerOutput(t, d)
		if !strings.Contains(out, "arrow functions came in es2015, after the platform's engine level es5.1") || strings.Contains(out, "result:") {
			t.Errorf("with restls.yaml now\n%s\nthe debug run did not keep the server's engine level es5.1:\n%s", later, out)
		}
		d.send("disconnect", nil)
		d.until("disconnect", "")
	}
}

// designerOutput reads d until its session's run ends (terminated) and
// returns what its output events said.
func designerOutput(t *testing.T, d *designerDAP) string {
	t.Helper()
	var out strings.Builder
	for {
		_, data, err := d.c.Read(d.ctx)
		if err != nil {
			t.Fatalf("reading /dap until the run ends: %v\n%s", err, out.String())
		}
		var m designerMsg
		_ = json.Unmarshal(data, &m)
		if m.Event == "output" {
			var o struct{ Output string }
			_ = json.Unmarshal(m.Body, &o)
			out.WriteString(o.Output)
		}
		if m.Event == "terminated" {
			return out.String()
		}
	}
}
