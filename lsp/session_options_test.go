package lsp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// TestSessionWithoutPermissions: the zero SessionOptions may edit and get
// hints, but restls.runScript and restls.reload answer Refused; stdio
// sessions (ServeStream) may do both.
func TestSessionWithoutPermissions(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	srv := newTestServer(t, Options{Runner: func(context.Context, workspace.Snapshot, engine.Request) (*dryrun.Result, error) {
		runs.Add(1)
		return &dryrun.Result{Result: json.RawMessage("1")}, nil
	}})
	const why = "open the page with its key"
	u := uri.File("/ws/a.js")
	exec := func(c *testClient, cmd string, arg any) error {
		var out any
		return c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": cmd, "arguments": []any{arg}}, &out)
	}
	limited := connect(t, srv, clientOptions{session: &SessionOptions{Refused: why}})
	limited.open(u, "return 1")
	for _, cmd := range []string{CommandRunScript, CommandReload} {
		err := exec(limited, cmd, map[string]any{"uri": string(u)})
		if err == nil || !strings.Contains(err.Error(), cmd+": "+why) {
			t.Errorf("%s in a session without permissions: %v", cmd, err)
		}
	}
	if runs.Load() != 0 {
		t.Fatal("the script ran")
	}
	if l := limited.completion(u, protocol.Position{Line: 0, Character: 0}); l == nil {
		t.Error("no hints in a session without permissions")
	}
	full := connect(t, srv, clientOptions{})
	full.open(u, "return 1")
	for _, cmd := range []string{CommandRunScript, CommandReload} {
		if err := exec(full, cmd, map[string]any{"uri": string(u)}); err != nil {
			t.Errorf("%s over ServeStream: %v", cmd, err)
		}
	}
	if runs.Load() != 1 {
		t.Errorf("runs = %d, want 1", runs.Load())
	}
}

// TestSessionShowPath: a session with ShowPath sees configuration paths as
// it says, in restls/status, and gets no diagnostics on the configuration
// files' own URIs.
func TestSessionShowPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"application.yml": "scriptservice:\n  api: [\n"})
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: dir}})
	show := func(p string) string { return "shown:" + filepath.Base(p) }
	c := connect(t, srv, clientOptions{session: &SessionOptions{ShowPath: show}})
	c.waitFor("status", func() bool { return len(c.statuses) > 0 })
	st := c.lastStatus()
	if st.Sources.ConfigRoot != show(dir) || !strings.Contains(st.Kinds[0].Message, "shown:application.yml") || strings.Contains(st.Kinds[0].Message, dir) {
		t.Errorf("status = %+v", st)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for u := range c.diags {
		t.Errorf("diagnostics published on %s", u)
	}
}

// TestSessionSourcesRefused: a session whose SessionOptions refuse sources
// gets, for settings that name other sources, a registry with no serviceId
// hints and the refusal, and nothing those settings name is loaded; the
// server's own sources still load, and a session without the refusal may
// choose.
func TestSessionSourcesRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"application.yml": "scriptservice:\n  api:\n    - serviceId: mine\n      url: https://svc.example.com\n"})
	var loaded sync.Map // sources loaded, by ConfigRoot
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: dir}, Load: func(src config.Sources) *config.Snapshot {
		loaded.Store(src.ConfigRoot, true)
		return config.Load(src)
	}})
	refusal := config.Diagnostic{Severity: config.SeverityError, Code: "sources-refused-here", Message: "settings may not choose sources here"}
	other := t.TempDir()
	c := connect(t, srv, clientOptions{session: &SessionOptions{SourcesRefused: &refusal}, initOptions: map[string]any{"configRoot": other}})
	c.waitFor("status", func() bool { return len(c.statuses) > 0 })
	st := c.lastStatus()
	if st.Kinds[0].Hints || !strings.Contains(st.Kinds[0].Message, refusal.Message) {
		t.Errorf("status with refused sources = %+v", st.Kinds[0])
	}
	if _, ok := loaded.Load(other); ok {
		t.Error("the refused configRoot was loaded")
	}
	// The server's sources, named or not, are not refused.
	same := connect(t, srv, clientOptions{session: &SessionOptions{SourcesRefused: &refusal}, initOptions: map[string]any{"configRoot": dir}})
	same.waitFor("status", func() bool { return len(same.statuses) > 0 })
	if st := same.lastStatus(); !st.Kinds[0].Hints || st.Kinds[0].Services != 1 {
		t.Errorf("status with the server's sources = %+v", st.Kinds[0])
	}
	// Without the refusal (stdio), settings choose.
	free := connect(t, srv, clientOptions{initOptions: map[string]any{"configRoot": other}})
	free.waitFor("status", func() bool { return len(free.statuses) > 0 })
	if st := free.lastStatus(); strings.Contains(st.Kinds[0].Message, refusal.Message) {
		t.Errorf("status of a session that may choose = %+v", st.Kinds[0])
	}
	if _, ok := loaded.Load(other); !ok {
		t.Error("a session that may choose did not load its configRoot")
	}
}
