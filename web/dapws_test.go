package web

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/lsp"
	"github.com/restls/restls/workspace"
)

// newDAPServer serves /dap with --auth proxy trusting loopback, the roles
// of rolesYAML, an audit into the returned buffer and a real in-process
// engine for the debug runs.
func newDAPServer(t *testing.T) (url string, audit *syncWriter) {
	t.Helper()
	p := workspace.ParseProject("restls.yaml", []byte(rolesYAML))
	buf := &syncWriter{&sync.Mutex{}, &bytes.Buffer{}}
	a, err := OpenAudit(AuditOptions{File: "-", Stderr: buf})
	if err != nil {
		t.Fatal(err)
	}
	gate := NewGate(GateOptions{AllowRun: true, Audit: a})
	eng := engine.New(engine.Options{Isolation: engine.InProcess, MaxRuns: 4})
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.LSP = lsp.NewServer(lsp.Options{Sources: config.Sources{ConfigRoot: exampleRoot}, PollInterval: -1})
		o.Gate, o.DebugRunner = gate, eng.Run
		o.Auth = AuthOptions{Mode: AuthProxy, TrustedProxies: []string{"127.0.0.0/8", "::1"}, Roles: p.Roles}
	})
	return "ws" + strings.TrimPrefix(hs.URL, "http") + "/dap", buf
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
