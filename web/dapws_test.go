package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	godap "github.com/google/go-dap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/dap"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/lsp"
	"github.com/restls/restls/workspace"
)

// newDAPServer serves /dap with --auth proxy trusting loopback, the roles
// of rolesYAML, an audit into the returned buffer and a real in-process
// engine for the debug runs.
func newDAPServer(t *testing.T) (url string, audit *syncWriter) {
	t.Helper()
	return newDAPServerWith(t, GateOptions{}, nil)
}

// newDAPServerWith is newDAPServer with more of the gate's options and
// of the server's.
func newDAPServerWith(t *testing.T, g GateOptions, mod func(*Options)) (url string, audit *syncWriter) {
	t.Helper()
	p := workspace.ParseProject("restls.yaml", []byte(rolesYAML))
	buf := &syncWriter{&sync.Mutex{}, &bytes.Buffer{}}
	a, err := OpenAudit(AuditOptions{File: "-", Stderr: buf})
	if err != nil {
		t.Fatal(err)
	}
	g.AllowRun, g.Audit = true, a
	gate := NewGate(g)
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.LSP = lsp.NewServer(lsp.Options{Sources: config.Sources{ConfigRoot: exampleRoot}, PollInterval: -1})
		o.Gate, o.Debug = gate, debugInProcess(t, nil, 0)
		o.Auth = AuthOptions{Mode: AuthProxy, TrustedProxies: []string{"127.0.0.0/8", "::1"}, Roles: p.Roles}
		if mod != nil {
			mod(o)
		}
	})
	return "ws" + strings.TrimPrefix(hs.URL, "http") + "/dap", buf
}

// debugInProcess stands in for restls dap's child: a session of package
// dap over pipes, with its runs in this process, reported as restls
// serve's child reports them; started reports each one's allowed
// services (nil: not told); idle is the session's idle limit (0: the
// default).
func debugInProcess(t *testing.T, started func(allow []string), idle time.Duration) func(context.Context, workspace.Snapshot, []string) (*DebugChild, error) {
	eng := engine.New(engine.Options{Isolation: engine.InProcess, MaxRuns: 4})
	session := workspace.NewSession(workspace.SessionOptions{Sources: config.Sources{ConfigRoot: exampleRoot}})
	return func(ctx context.Context, _ workspace.Snapshot, allow []string) (*DebugChild, error) {
		if started != nil {
			started(allow)
		}
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = dap.Serve(ctx, inR, outW, dap.Options{
				Snapshot:      func(_ context.Context, env string) (workspace.Snapshot, error) { return session.SnapshotIn(env) },
				Run:           eng.Run,
				AllowServices: allow,
				ReportRuns:    true,
				Idle:          idle,
			})
			_ = outW.Close()
		}()
		stop := func() string {
			cancel()
			_ = inR.Close()
			<-done
			return ""
		}
		t.Cleanup(func() { stop() })
		return &DebugChild{In: inW, Out: outR, Stop: stop}, nil
	}
}

// dapSocket is a DAP client over /dap: one message per text frame.
type dapSocket struct {
	t   *testing.T
	ctx context.Context
	c   *websocket.Conn
	seq int
}

func dialDAP(t *testing.T, url, user, groups string, h http.Header) *dapSocket {
	t.Helper()
	if h == nil {
		h = http.Header{}
	}
	h.Set(DefaultUserHeader, user)
	h.Set(DefaultGroupsHeader, groups)
	ctx := testCtx(t)
	c, res, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: h, Subprotocols: []string{DAPProtocol}})
	if err != nil {
		status := 0
		if res != nil {
			status = res.StatusCode
		}
		t.Fatalf("dial /dap: %v (HTTP %d)", err, status)
	}
	t.Cleanup(func() { _ = c.CloseNow() })
	return &dapSocket{t: t, ctx: ctx, c: c}
}

func (d *dapSocket) send(command string, args any) {
	d.t.Helper()
	d.seq++
	b, _ := json.Marshal(map[string]any{"seq": d.seq, "type": "request", "command": command, "arguments": args})
	if err := d.c.Write(d.ctx, websocket.MessageText, b); err != nil {
		d.t.Fatal(err)
	}
}

type dapMsg struct {
	Type, Command, Event, Message string
	Success                       bool
	Body                          json.RawMessage
}

// until reads messages until one is the response to command or the
// event named (one of them ""), collecting the output events' text.
func (d *dapSocket) until(command, event string, output *strings.Builder) dapMsg {
	d.t.Helper()
	for {
		_, data, err := d.c.Read(d.ctx)
		if err != nil {
			d.t.Fatalf("reading /dap waiting for %q/%q: %v", command, event, err)
		}
		var m dapMsg
		if err := json.Unmarshal(data, &m); err != nil {
			d.t.Fatalf("not a DAP message: %s", data)
		}
		if m.Event == "output" && output != nil {
			var o struct{ Output string }
			_ = json.Unmarshal(m.Body, &o)
			output.WriteString(o.Output)
		}
		if (command != "" && m.Type == "response" && m.Command == command) || (event != "" && m.Event == event) {
			return m
		}
	}
}

// TestDesignerDebugSession: a mocker debugs the script's text over /dap:
// the breakpoint is verified and hit, the locals read, the run continues
// to its result and is audited as the user's run.
func TestDesignerDebugSession(t *testing.T) {
	t.Parallel()
	url, audit := newDAPServer(t)
	d := dialDAP(t, url, "ann", "authors", nil)
	const name = "/designer/scriptService/script.js"
	d.send("initialize", map[string]any{"adapterID": "restls"})
	d.until("initialize", "", nil)
	d.send("launch", map[string]any{"program": name, "text": "var a = 1;\nvar b = a + 1;\nreturn b;\n", "kind": "scriptService"})
	if m := d.until("launch", "", nil); !m.Success {
		t.Fatalf("launch refused: %s", m.Message)
	}
	d.send("setBreakpoints", map[string]any{"source": map[string]any{"path": name}, "breakpoints": []map[string]any{{"line": 2}}})
	var bps struct{ Breakpoints []struct{ Verified bool } }
	_ = json.Unmarshal(d.until("setBreakpoints", "", nil).Body, &bps)
	if len(bps.Breakpoints) != 1 || !bps.Breakpoints[0].Verified {
		t.Errorf("breakpoints: %+v, want line 2 verified", bps)
	}
	d.send("configurationDone", nil)
	var out strings.Builder
	d.until("", "stopped", &out)
	d.send("stackTrace", map[string]any{"threadId": 1})
	var st struct{ StackFrames []struct{ ID int } }
	_ = json.Unmarshal(d.until("stackTrace", "", &out).Body, &st)
	if len(st.StackFrames) == 0 {
		t.Fatal("no stack where the run stopped")
	}
	d.send("scopes", map[string]any{"frameId": st.StackFrames[0].ID})
	var scopes struct {
		Scopes []struct {
			Name               string
			VariablesReference int
		}
	}
	_ = json.Unmarshal(d.until("scopes", "", &out).Body, &scopes)
	if len(scopes.Scopes) == 0 || scopes.Scopes[0].Name != "Locals" {
		t.Fatalf("scopes %+v, want Locals first", scopes)
	}
	d.send("variables", map[string]any{"variablesReference": scopes.Scopes[0].VariablesReference})
	var vars struct {
		Variables []struct{ Name, Value string }
	}
	_ = json.Unmarshal(d.until("variables", "", &out).Body, &vars)
	if got := vars.Variables; len(got) < 1 || got[0].Name != "a" || got[0].Value != "1" {
		t.Errorf("locals at line 2: %+v, want a = 1 first", got)
	}
	d.send("continue", map[string]any{"threadId": 1})
	d.until("", "terminated", &out)
	if !strings.Contains(out.String(), "result: 2") {
		t.Errorf("the output lacks the result:\n%s", out.String())
	}
	d.send("disconnect", nil)
	d.until("disconnect", "", nil)
	if a := audit.String(); !strings.Contains(a, `"user":"ann"`) || !strings.Contains(a, `"mode":"mock"`) || !strings.Contains(a, `"outcome":"returned"`) || !strings.Contains(a, `"via":"dap"`) {
		t.Errorf("the debug run is not audited as ann's mock run:\n%s", a)
	}
}

func (w syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestDesignerDebugRefusals: a launch the roles do not allow, or one
// that names a path instead of sending the text, is refused before
// anything runs or is read, with what to do.
func TestDesignerDebugRefusals(t *testing.T) {
	t.Parallel()
	url, audit := newDAPServer(t)
	for _, tc := range []struct {
		name, user, groups string
		args               map[string]any
		want               string
	}{
		{"viewer", "vera", "", map[string]any{"text": "return 1"}, "need the role mocker"},
		{"mocker live", "ann", "authors", map[string]any{"text": "return 1", "live": true}, "needs the role runner"},
		{"a path", "ron", "ops-all", map[string]any{"program": "/etc/passwd"}, `give its text as "text"`},
		{"a fixtures file", "ron", "ops-all", map[string]any{"text": "return 1", "fixtures": "/etc/passwd"}, "fixtures files, test files and replays are for restls dap"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := dialDAP(t, url, tc.user, tc.groups, nil)
			d.send("launch", tc.args)
			m := d.until("launch", "", nil)
			if m.Success || !strings.Contains(m.Message, tc.want) {
				t.Errorf("launch answered success=%v %q, want a refusal saying %q", m.Success, m.Message, tc.want)
			}
		})
	}
	// A runner's live debug launch is accepted.
	d := dialDAP(t, url, "ron", "ops-all", nil)
	d.send("launch", map[string]any{"text": "return 1", "live": true})
	if m := d.until("launch", "", nil); !m.Success {
		t.Errorf("a runner's live launch was refused: %s", m.Message)
	}
	if strings.Contains(audit.String(), `"outcome":"returned"`) {
		t.Errorf("a refused launch ran:\n%s", audit.String())
	}
	// The two launches the roles refused are in the audit trail, as a
	// refused dry run is, naming the user, the door and the reason.
	for _, want := range []string{`"user":"vera"`, `"user":"ann"`} {
		found := false
		for _, line := range strings.Split(audit.String(), "\n") {
			if strings.Contains(line, want) && strings.Contains(line, `"outcome":"refused"`) && strings.Contains(line, `"via":"dap"`) && strings.Contains(line, `"code":"role"`) {
				found = true
			}
		}
		if !found {
			t.Errorf("no refused /dap launch audited for %s:\n%s", want, audit.String())
		}
	}
}

// TestDesignerDebugForeignOrigin: /dap is behind the same Origin rule as
// /lsp: a page of another origin cannot open it.
func TestDesignerDebugForeignOrigin(t *testing.T) {
	t.Parallel()
	url, _ := newDAPServer(t)
	h := http.Header{}
	h.Set("Origin", "https://evil.example")
	h.Set(DefaultUserHeader, "ron")
	h.Set(DefaultGroupsHeader, "ops-all")
	_, res, err := websocket.Dial(testCtx(t), url, &websocket.DialOptions{HTTPHeader: h, Subprotocols: []string{DAPProtocol}})
	if err == nil || res == nil || res.StatusCode != http.StatusForbidden {
		status := 0
		if res != nil {
			status = res.StatusCode
		}
		t.Errorf("a foreign origin opened /dap: %v (HTTP %d), want 403", err, status)
	}
}

// pauseAt launches text as user with a breakpoint on line and waits
// until the run stands stopped there.
func (d *dapSocket) pauseAt(text string, line int, extra map[string]any) {
	d.t.Helper()
	const name = "/designer/scriptService/script.js"
	d.send("initialize", map[string]any{"adapterID": "restls"})
	d.until("initialize", "", nil)
	args := map[string]any{"program": name, "text": text, "kind": "scriptService"}
	for k, v := range extra {
		args[k] = v
	}
	d.send("launch", args)
	if m := d.until("launch", "", nil); !m.Success {
		d.t.Fatalf("launch refused: %s", m.Message)
	}
	d.send("setBreakpoints", map[string]any{"source": map[string]any{"path": name}, "breakpoints": []map[string]any{{"line": line}}})
	d.until("setBreakpoints", "", nil)
	d.send("configurationDone", nil)
	d.until("", "stopped", nil)
}

// keepTalking sends a threads request on d every period, as an editor's
// debugger asks while it waits on a run, until the function it returns
// is called (which returns once the last is sent). d's context bounds
// it all.
func (d *dapSocket) keepTalking(period time.Duration) (quiet func()) {
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

// TestDesignerDebugHoldsARunSlot: a debug session paused at a
// breakpoint holds one of the run engine's slots (--max-runs, the one
// admission limit dry runs take), so paused sessions cannot run past
// it: a run beyond it is refused as busy, a second debug launch too,
// saying why. Disconnecting frees the slot by the time the answer
// arrives.
func TestDesignerDebugHoldsARunSlot(t *testing.T) {
	t.Parallel()
	eng := engine.New(engine.Options{Isolation: engine.InProcess, MaxRuns: 1})
	url, audit := newDAPServerWith(t, GateOptions{}, func(o *Options) { o.Admit = eng.Admit })
	d := dialDAP(t, url, "ann", "authors", nil)
	d.pauseAt("var a = 1;\nvar b = a + 1;\nreturn b;\n", 2, nil)
	if slot, ok := eng.Admit(); ok {
		slot.Release()
		t.Fatal("a run was admitted while a debug session stood paused holding the only slot (--max-runs 1)")
	}
	second := dialDAP(t, url, "ron", "ops-all", nil)
	second.send("launch", map[string]any{"text": "return 1"})
	if m := second.until("launch", "", nil); m.Success || !strings.Contains(m.Message, "--max-runs") {
		t.Errorf("a second debug launch past the slots answered success=%v %q, want refused naming --max-runs", m.Success, m.Message)
	}
	d.send("disconnect", nil)
	d.until("disconnect", "", nil)
	slot, ok := eng.Admit()
	if !ok {
		t.Fatal("the slot is still held after the debug session was disconnected")
	}
	slot.Release()
	if a := audit.String(); !strings.Contains(a, `"user":"ron"`) || !strings.Contains(a, `"outcome":"busy"`) {
		t.Errorf("the launch refused as busy is not audited:\n%s", a)
	}
}

// TestDesignerDebugLimitedRunner: a runner whose role allows some
// services only debugs live with those only, as its dry runs do: the
// debugger's process is told them.
func TestDesignerDebugLimitedRunner(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got [][]string
	url, _ := newDAPServerWith(t, GateOptions{Environment: "test"}, func(o *Options) {
		o.Debug = debugInProcess(t, func(allow []string) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, allow)
		}, 0)
	})
	d := dialDAP(t, url, "tess", "ops-test", nil)
	d.send("launch", map[string]any{"text": "return 1", "live": true})
	if m := d.until("launch", "", nil); !m.Success {
		t.Fatalf("launch refused: %s", m.Message)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || strings.Join(got[0], ",") != "crm-customers" {
		t.Errorf("the debugger's process was allowed %q, want [crm-customers] alone", got)
	}
}

// TestDesignerDebugIdleFreesTheSlot: a paused session whose designer
// sends nothing past the idle limit ends: its process ends, the socket
// closes, and its slot is free by then.
func TestDesignerDebugIdleFreesTheSlot(t *testing.T) {
	t.Parallel()
	eng := engine.New(engine.Options{Isolation: engine.InProcess, MaxRuns: 1})
	url, _ := newDAPServerWith(t, GateOptions{}, func(o *Options) {
		o.Admit, o.Debug = eng.Admit, debugInProcess(t, nil, 300*time.Millisecond)
	})
	d := dialDAP(t, url, "ann", "authors", nil)
	// Until the run stands paused the page keeps talking: how long a
	// loaded machine takes to reach the breakpoint is no part of the
	// idle limit, which counts from the page's last message after that.
	quiet := d.keepTalking(50 * time.Millisecond)
	d.pauseAt("var a = 1;\nvar b = a + 1;\nreturn b;\n", 2, nil)
	quiet()
	var out strings.Builder
	d.until("", "terminated", &out)
	if !strings.Contains(out.String(), "idle limit") {
		t.Errorf("the session ended without saying why:\n%s", out.String())
	}
	for {
		if _, _, err := d.c.Read(d.ctx); err != nil {
			break // the server closed the socket
		}
	}
	slot, ok := eng.Admit()
	if !ok {
		t.Fatal("the slot is still held after the idle session ended")
	}
	slot.Release()
}

// TestDesignerDebugChildEndsEarly: a debugger's process that ends by
// itself before it answers the launch (its memory limit, a crash) has
// the launch answered with why, and gives its slot back.
func TestDesignerDebugChildEndsEarly(t *testing.T) {
	t.Parallel()
	eng := engine.New(engine.Options{Isolation: engine.InProcess, MaxRuns: 1})
	url, _ := newDAPServerWith(t, GateOptions{}, func(o *Options) {
		o.Admit = eng.Admit
		o.Debug = func(context.Context, workspace.Snapshot, []string) (*DebugChild, error) {
			// A process already gone: it reads nothing and wrote nothing.
			return &DebugChild{In: io.Discard, Out: strings.NewReader(""), Stop: func() string { return "restls dap: killed at its memory limit" }}, nil
		}
	})
	d := dialDAP(t, url, "ann", "authors", nil)
	d.send("launch", map[string]any{"text": "return 1"})
	if m := d.until("launch", "", nil); m.Success || !strings.Contains(m.Message, "memory limit") {
		t.Errorf("launch answered success=%v %q, want refused saying why the process ended", m.Success, m.Message)
	}
	for {
		if _, _, err := d.c.Read(d.ctx); err != nil {
			break // the server closed the socket
		}
	}
	slot, ok := eng.Admit()
	if !ok {
		t.Fatal("the slot is still held after the debugger's process ended")
	}
	slot.Release()
}

// TestDesignerDebugFlood: a page that sends requests faster than its
// debugger's process reads them (here one that reads none) ends its
// session, saying why, and its slot is free: the relay never waits on
// the process with both pipes full.
func TestDesignerDebugFlood(t *testing.T) {
	t.Parallel()
	floodDebugger(t, func(d *dapSocket) {
		for range maxQueuedRequests + 10 {
			d.send("threads", nil)
		}
	})
}

// TestDesignerDebugFloodOfBytes: a few requests of megabytes each,
// far fewer than maxQueuedRequests but more bytes than maxQueuedBytes,
// end the session as a flood of requests does.
func TestDesignerDebugFloodOfBytes(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 3<<20)
	floodDebugger(t, func(d *dapSocket) {
		for range maxQueuedBytes/len(big) + 2 {
			d.send("evaluate", map[string]any{"expression": big})
		}
	})
}

// floodDebugger launches a session whose debugger's process reads
// nothing, floods it with flood, and checks that the session ends
// saying why and frees its slot.
func floodDebugger(t *testing.T, flood func(*dapSocket)) {
	eng := engine.New(engine.Options{Isolation: engine.InProcess, MaxRuns: 1})
	url, _ := newDAPServerWith(t, GateOptions{}, func(o *Options) {
		o.Admit = eng.Admit
		o.Debug = func(ctx context.Context, _ workspace.Snapshot, _ []string) (*DebugChild, error) {
			inR, inW := io.Pipe() // nobody reads it
			outR, outW := io.Pipe()
			stop := func() string {
				_ = inR.Close()
				_ = outW.Close()
				return ""
			}
			t.Cleanup(func() { stop() })
			return &DebugChild{In: inW, Out: outR, Stop: stop}, nil
		}
	})
	d := dialDAP(t, url, "ann", "authors", nil)
	d.send("launch", map[string]any{"text": "return 1"})
	flood(d)
	var out strings.Builder
	d.until("", "terminated", &out)
	if !strings.Contains(out.String(), "had not read yet") {
		t.Errorf("the flooded session ended saying %q, want why", out.String())
	}
	for {
		if _, _, err := d.c.Read(d.ctx); err != nil {
			break // the server closed the socket
		}
	}
	slot, ok := eng.Admit()
	if !ok {
		t.Fatal("the slot is still held after the flooded session ended")
	}
	slot.Release()
}

// TestDesignerDebugStartFailure: a launch admitted whose debugger's
// process does not start is answered so, gives its slot back, and is
// audited failed, as a dry run whose child does not start is.
func TestDesignerDebugStartFailure(t *testing.T) {
	t.Parallel()
	eng := engine.New(engine.Options{Isolation: engine.InProcess, MaxRuns: 1})
	url, audit := newDAPServerWith(t, GateOptions{}, func(o *Options) {
		o.Admit = eng.Admit
		o.Debug = func(context.Context, workspace.Snapshot, []string) (*DebugChild, error) {
			return nil, errors.New("start restls: no such file")
		}
	})
	d := dialDAP(t, url, "ann", "authors", nil)
	d.send("launch", map[string]any{"text": "return 1"})
	if m := d.until("launch", "", nil); m.Success || !strings.Contains(m.Message, "server log") {
		t.Errorf("launch answered success=%v %q, want refused pointing at the server log", m.Success, m.Message)
	}
	slot, ok := eng.Admit()
	if !ok {
		t.Fatal("the slot is still held after the debugger's process failed to start")
	}
	slot.Release()
	if a := audit.String(); !strings.Contains(a, `"user":"ann"`) || !strings.Contains(a, `"outcome":"failed"`) || !strings.Contains(a, `"via":"dap"`) {
		t.Errorf("the launch whose process did not start is not audited failed:\n%s", a)
	}
}

// TestDesignerDebugIdleBeforeLaunch: a /dap socket whose page sends
// nothing for Options.DebugIdle (restls serve --debug-idle) before it
// launches is told so and closed, whether it said nothing at all or
// stopped after initialize (it stayed open for as long as the page kept
// it, holding one of --max-sessions).
func TestDesignerDebugIdleBeforeLaunch(t *testing.T) {
	t.Parallel()
	url, _ := newDAPServerWith(t, GateOptions{}, func(o *Options) {
		o.DebugIdle = 200 * time.Millisecond
	})
	for _, initialize := range []bool{false, true} {
		d := dialDAP(t, url, "ann", "authors", nil)
		if initialize {
			d.send("initialize", map[string]any{"adapterID": "restls"})
			d.until("initialize", "", nil)
		}
		ctx, cancel := context.WithTimeout(d.ctx, 30*time.Second)
		var out strings.Builder
		terminated := false
		var err error
		for {
			var data []byte
			if _, data, err = d.c.Read(ctx); err != nil {
				break
			}
			var m dapMsg
			_ = json.Unmarshal(data, &m)
			if m.Event == "output" {
				var o struct{ Output string }
				_ = json.Unmarshal(m.Body, &o)
				out.WriteString(o.Output)
			}
			terminated = terminated || m.Event == "terminated"
		}
		cancel()
		if websocket.CloseStatus(err) != websocket.StatusNormalClosure || !strings.Contains(err.Error(), "--debug-idle") {
			t.Fatalf("initialize %v: the silent socket ended with %v, want closed naming --debug-idle", initialize, err)
		}
		if !terminated || !strings.Contains(out.String(), "sent nothing for 200ms") {
			t.Errorf("initialize %v: the page was not told (terminated %v):\n%s", initialize, terminated, out.String())
		}
	}
}

// TestDesignerDebugChildHearsTheServersDecision: the launch a debug
// session's child hears names the kind the server decided (here from
// the script's own kind line, the launch naming none) and the
// environment of the snapshot the server gave the child, so that the
// child decides neither again (it decided the kind from its own reading
// of the project).
func TestDesignerDebugChildHearsTheServersDecision(t *testing.T) {
	t.Parallel()
	heard := &syncWriter{&sync.Mutex{}, &bytes.Buffer{}}
	inner := debugInProcess(t, nil, 0)
	var mu sync.Mutex
	var env string
	url, _ := newDAPServerWith(t, GateOptions{}, func(o *Options) {
		o.Debug = func(ctx context.Context, snap workspace.Snapshot, allow []string) (*DebugChild, error) {
			c, err := inner(ctx, snap, allow)
			if err != nil {
				return nil, err
			}
			mu.Lock()
			env = snap.Environment
			mu.Unlock()
			c.In = io.MultiWriter(c.In, heard)
			return c, nil
		}
	})
	d := dialDAP(t, url, "ann", "authors", nil)
	d.send("initialize", map[string]any{"adapterID": "restls"})
	d.until("initialize", "", nil)
	d.send("launch", map[string]any{"program": "/designer/which.js", "text": "// restls-kind: scriptTask\nreturn 1;\n"})
	if m := d.until("launch", "", nil); !m.Success {
		t.Fatalf("launch refused: %s", m.Message)
	}
	d.send("disconnect", nil)
	d.until("disconnect", "", nil)
	var launch struct {
		Arguments struct{ Kind, Env string }
	}
	br := bufio.NewReader(strings.NewReader(heard.String()))
	for {
		data, err := godap.ReadBaseMessage(br)
		if err != nil {
			t.Fatalf("the child heard no launch: %v\n%s", err, heard.String())
		}
		var m dapRequest
		if json.Unmarshal(data, &m) == nil && m.Command == "launch" {
			_ = json.Unmarshal(data, &launch)
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if launch.Arguments.Kind != "scriptTask" || launch.Arguments.Env != env {
		t.Errorf("the child's launch names kind %q and environment %q, want scriptTask and the snapshot's %q", launch.Arguments.Kind, launch.Arguments.Env, env)
	}
}
