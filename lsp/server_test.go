package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// writeFiles writes name -> content below dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const twoServices = `scriptservice:
  api:
    - serviceId: crm
      url: https://crm.example.com/api
      description: CRM
    - serviceId: geo
      url: https://geo.example.com
`

func codeOf(err error) jsonrpc2.Code {
	var e *jsonrpc2.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// echoRunner returns what runScript handed it, so tests can see the text the
// server holds and the kind the engine decides on the snapshot it was
// given (the one named, else the snapshot's kind rule on the path).
func echoRunner(_ context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
	kind := req.Kind
	if kind == "" {
		kind = snap.Kind(filepath.ToSlash(req.Path), req.Text).Kind
	}
	raw, err := json.Marshal(map[string]any{"text": req.Text, "kind": kind, "input": string(req.Input)})
	return &dryrun.Result{Result: raw, Kind: kind}, err
}

type echoed struct {
	Text  string      `json:"text"`
	Kind  config.Kind `json:"kind"`
	Input string      `json:"input"`
}

func (c *testClient) run(u uri.URI) (echoed, error) {
	var res struct {
		Result echoed `json:"result"`
	}
	arg, _ := json.Marshal(map[string]string{"uri": string(u)})
	err := c.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: CommandRunScript, Arguments: []protocol.LSPAny{arg}}, &res)
	return res.Result, err
}

func TestLifecycle(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, Options{})
	c := connect(t, srv, clientOptions{skipInit: true})

	err := c.call(protocol.MethodTextDocumentHover, &protocol.HoverParams{}, nil)
	if codeOf(err) != jsonrpc2.ServerNotInitialized {
		t.Fatalf("hover before initialize: got %v, want ServerNotInitialized", err)
	}
	var res protocol.InitializeResult
	if err := c.call(protocol.MethodInitialize, &protocol.InitializeParams{}, &res); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if res.ServerInfo.Name != "restls" || res.Capabilities.CompletionProvider == nil {
		t.Errorf("unexpected initialize result: %+v", res)
	}
	if err := c.call(protocol.MethodInitialize, &protocol.InitializeParams{}, nil); codeOf(err) != jsonrpc2.InvalidRequest {
		t.Errorf("second initialize: got %v, want InvalidRequest", err)
	}
	c.notify(protocol.MethodInitialized, &protocol.InitializedParams{})
	if err := c.call("textDocument/noSuchThing", map[string]int{"x": 1}, nil); codeOf(err) != jsonrpc2.MethodNotFound {
		t.Errorf("unknown method: got %v, want MethodNotFound", err)
	}
	c.notify("$/noSuchNotification", map[string]int{"x": 1})
	c.notify("custom/unknown", nil)
	// Bad params on a notification must not drop the connection.
	c.notify(protocol.MethodTextDocumentDidOpen, map[string]any{"textDocument": 42})
	if err := c.call("workspace/executeCommand", map[string]any{"command": CommandServices}, nil); err != nil {
		t.Errorf("connection unusable after bad notifications: %v", err)
	}
	if err := c.call(protocol.MethodShutdown, nil, nil); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if err := c.call(protocol.MethodTextDocumentHover, &protocol.HoverParams{}, nil); codeOf(err) != jsonrpc2.InvalidRequest {
		t.Errorf("request after shutdown: got %v, want InvalidRequest", err)
	}
	c.notify(protocol.MethodExit, nil)
	select {
	case err := <-c.done:
		if err != nil {
			t.Errorf("ServeStream after shutdown+exit = %v, want nil", err)
		}
		c.done <- err
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStream did not return after exit")
	}
}

func TestExitWithoutShutdown(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, Options{})
	c := connect(t, srv, clientOptions{})
	c.notify(protocol.MethodExit, nil)
	err := <-c.done
	c.done <- err
	if !errors.Is(err, ErrNoShutdown) {
		t.Fatalf("ServeStream = %v, want ErrNoShutdown", err)
	}
}

// TestDidChangeOrdering sends many incremental edits, non-ASCII and astral
// characters included, back to back, then asks for the text: every edit
// must have been applied in order.
func TestDidChangeOrdering(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, Options{Runner: echoRunner})
	c := connect(t, srv, clientOptions{})
	u := uri.File("/ws/order.js")
	c.open(u, "")
	want := ""
	pieces := []string{"a", "é", "😀", "\n", "Привет", "\r\n", "x", "𝄞"}
	line, col := uint32(0), uint32(0)
	for i := 0; i < 200; i++ {
		p := pieces[i%len(pieces)]
		c.change(u, &protocol.TextDocumentContentChangePartial{
			Range: protocol.Range{Start: protocol.Position{Line: line, Character: col}, End: protocol.Position{Line: line, Character: col}},
			Text:  p,
		})
		want += p
		switch p {
		case "\n", "\r\n":
			line, col = line+1, 0
		default:
			for _, r := range p {
				col++
				if r >= 0x10000 {
					col++
				}
			}
		}
	}
	// Replace a range that spans a surrogate pair and a line break.
	c.change(u, &protocol.TextDocumentContentChangePartial{
		Range: protocol.Range{Start: protocol.Position{Line: 0, Character: 2}, End: protocol.Position{Line: 1, Character: 1}},
		Text:  "<>",
	})
	want = want[:len("aé")] + "<>" + want[len("aé😀\nП"):]
	// A whole-document change followed by a partial one in the same notification.
	c.change(u, &protocol.TextDocumentContentChangeWholeDocument{Text: want},
		&protocol.TextDocumentContentChangePartial{Range: protocol.Range{Start: protocol.Position{}, End: protocol.Position{Character: 1}}, Text: "Z"})
	want = "Z" + want[1:]
	got, err := c.run(u)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != want {
		t.Fatalf("server text differs:\n got %q\nwant %q", got.Text, want)
	}
}

func TestCancelAnswersRequestCancelled(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	srv := newTestServer(t, Options{Runner: func(ctx context.Context, _ workspace.Snapshot, _ engine.Request) (*dryrun.Result, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}})
	c := connect(t, srv, clientOptions{})
	u := uri.File("/ws/slow.js")
	c.open(u, "api.rest.v1.get('crm', {}, {});\n")
	errc := make(chan error, 1)
	go func() { _, err := c.run(u); errc <- err }()
	<-started
	// initialize was call 1, runScript is call 2 on this client.
	c.notify(protocol.MethodCancelRequest, &protocol.CancelParams{ID: protocol.Integer(2)})
	err := <-errc
	if codeOf(err) != protocol.CodeRequestCancelled {
		t.Fatalf("cancelled runScript answered %v, want code -32800", err)
	}
	// The session still works.
	if err := c.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: CommandServices}, nil); err != nil {
		t.Fatalf("session unusable after a cancel: %v", err)
	}
}

func TestRunnerPanicIsAnsweredAndSurvived(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := newTestServer(t, Options{Runner: func(context.Context, workspace.Snapshot, engine.Request) (*dryrun.Result, error) {
		if calls.Add(1) == 1 {
			panic("boom")
		}
		return &dryrun.Result{Result: json.RawMessage(`"ok"`)}, nil
	}})
	c := connect(t, srv, clientOptions{})
	u := uri.File("/ws/p.js")
	c.open(u, "x")
	if _, err := c.run(u); codeOf(err) != jsonrpc2.InternalError {
		t.Fatalf("panicking run answered %v, want InternalError", err)
	}
	var res struct {
		Result string `json:"result"`
	}
	arg, _ := json.Marshal(map[string]string{"uri": string(u)})
	if err := c.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: CommandRunScript, Arguments: []protocol.LSPAny{arg}}, &res); err != nil || res.Result != "ok" {
		t.Fatalf("second run: %q, %v", res.Result, err)
	}
}

func TestRunScriptWithoutRunner(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, Options{})
	c := connect(t, srv, clientOptions{})
	u := uri.File("/ws/a.js")
	c.open(u, "x")
	_, err := c.run(u)
	if err == nil || !strings.Contains(err.Error(), "not available") {
		t.Fatalf("run without runner: %v", err)
	}
	if _, err := c.run(uri.File("/ws/not-open.js")); codeOf(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), "not open") {
		t.Fatalf("run of a closed document: %v", err)
	}
}

func TestRunScriptProgressAndKind(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, Options{Runner: func(_ context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
		req.Progress("calling crm")
		return echoRunner(context.Background(), snap, req)
	}})
	c := connect(t, srv, clientOptions{initOptions: map[string]any{
		"scriptKinds": map[string]string{"**/tasks/*.js": "scriptTask", "*.validator.js": "validationScript"},
	}})
	cases := []struct {
		path, text string
		want       config.Kind
	}{
		{"/ws/tasks/nightly.js", "x", config.ScriptTask},
		{"/ws/forms/check.validator.js", "x", config.ValidationScript},
		{"/ws/plain.js", "x", config.ScriptService},
		{"/ws/tasks/marked.js", "// restls-kind: validationScript\nx", config.ValidationScript},
	}
	for _, tc := range cases {
		u := uri.File(tc.path)
		c.open(u, tc.text)
		got, err := c.run(u)
		if err != nil {
			t.Fatal(err)
		}
		if got.Kind != tc.want {
			t.Errorf("%s: kind %q, want %q", tc.path, got.Kind, tc.want)
		}
	}
	c.waitFor("progress begin/report/end", func() bool {
		var b, r, e bool
		for _, p := range c.progress {
			b = b || strings.Contains(p, `"begin"`)
			r = r || strings.Contains(p, "calling crm")
			e = e || strings.Contains(p, `"end"`)
		}
		return b && r && e
	})
}

func TestServicesCommandAndStatus(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"application.yml": twoServices})
	srv := newTestServer(t, Options{})
	c := connect(t, srv, clientOptions{initOptions: map[string]any{"restls": map[string]any{"configRoot": dir}}})
	var m map[string]config.HintsEntry
	if err := c.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: CommandServices}, &m); err != nil {
		t.Fatal(err)
	}
	if len(m) != 2 || m["crm"].URL != "https://crm.example.com/api" {
		t.Fatalf("services = %v", m)
	}
	c.waitFor("status", func() bool { return len(c.statuses) > 0 })
	st := c.lastStatus()
	if st.Kinds[0].Kind != config.ScriptService || st.Kinds[0].Services != 2 || !st.Kinds[0].Hints || st.Kinds[0].Message != "2 services" {
		t.Errorf("status = %+v", st)
	}
}

func TestFailedRegistryStatusSaysWhy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"application.yml": "scriptservice:\n  api: [\n"})
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: dir}})
	c := connect(t, srv, clientOptions{})
	c.waitFor("status", func() bool { return len(c.statuses) > 0 })
	st := c.lastStatus()
	k := st.Kinds[0]
	if k.Hints || k.Services != 0 || !strings.Contains(k.Message, "no serviceId hints") || !strings.Contains(k.Message, "application.yml") {
		t.Errorf("status for a broken config = %+v", k)
	}
	// The YAML file itself carries the diagnostic.
	yml := uri.File(filepath.Join(dir, "application.yml"))
	ds := c.diagnostics(yml, 0, 0)
	if len(ds) == 0 || ds[0].Code != protocol.String(config.CodeSyntax) {
		t.Errorf("diagnostics on application.yml = %+v", ds)
	}
}

// TestReloadOnFileChange changes a config file on disk: the polling watcher
// reloads, the status and the services change, the restart message comes
// once, and config diagnostics follow the file.
func TestReloadOnFileChange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"application.yml": twoServices})
	core, logs := observer.New(zap.DebugLevel)
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: dir}, PollInterval: 10 * time.Millisecond, Logger: zap.New(core)})
	c := connect(t, srv, clientOptions{})
	c.waitFor("first status", func() bool { return len(c.statuses) > 0 && c.statuses[0].Kinds[0].Services == 2 })

	writeFiles(t, dir, map[string]string{"application.yml": twoServices + `    - serviceId: billing
      url: https://billing.example.com
    - serviceId: broken
`})
	c.waitFor("status with 3 services", func() bool {
		return len(c.statuses) > 0 && c.statuses[len(c.statuses)-1].Kinds[0].Services == 3
	})
	yml := uri.File(filepath.Join(dir, "application.yml"))
	ds := c.diagnostics(yml, 0, 0)
	if len(ds) != 1 || ds[0].Code != protocol.String(config.CodeMissingURL) || ds[0].Range.Start.Line != 9 {
		t.Errorf("config diagnostics after reload = %+v", ds)
	}
	writeFiles(t, dir, map[string]string{"application.yml": twoServices})
	c.waitFor("status back to 2", func() bool {
		return c.statuses[len(c.statuses)-1].Kinds[0].Services == 2
	})
	c.waitFor("cleared config diagnostics", func() bool {
		p := c.diags[yml]
		return len(p.params.Diagnostics) == 0
	})
	c.mu.Lock()
	n := 0
	for _, m := range c.messages {
		if strings.Contains(m.Message, "webforms-rest") {
			n++
		}
	}
	c.mu.Unlock()
	if n != 1 {
		t.Errorf("restart message shown %d times, want once", n)
	}
	// Every load is logged with what it found and how long it took.
	loads := logs.FilterMessage("configuration loaded").All()
	if len(loads) < 3 {
		t.Fatalf("%d loads logged, want the first and two reloads", len(loads))
	}
	if f := loads[len(loads)-1].ContextMap(); f["scriptServiceIds"] != int64(2) || f["took"] == nil {
		t.Errorf("last load logged as %v", f)
	}
}

// TestClientWatchesFiles: a client with dynamic registration gets watchers
// for the config files, and its didChangeWatchedFiles reloads.
func TestClientWatchesFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"application.yml": twoServices})
	yes := true
	caps := defaultCaps()
	caps.Workspace = &protocol.WorkspaceClientCapabilities{DidChangeWatchedFiles: &protocol.DidChangeWatchedFilesClientCapabilities{DynamicRegistration: &yes}}
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: dir}, PollInterval: time.Hour})
	c := connect(t, srv, clientOptions{caps: caps})
	c.waitFor("watcher registration", func() bool { return len(c.regs) > 0 })
	c.mu.Lock()
	reg := c.regs[0]
	c.mu.Unlock()
	if reg.Method != protocol.MethodWorkspaceDidChangeWatchedFiles || !strings.Contains(string(reg.RegisterOptions), "application.yml") {
		t.Errorf("registration = %+v (%s)", reg, reg.RegisterOptions)
	}
	c.waitFor("first status", func() bool { return len(c.statuses) > 0 })
	writeFiles(t, dir, map[string]string{"application.yml": twoServices + "    - serviceId: hr\n      url: https://hr.example.com\n"})
	c.notify(protocol.MethodWorkspaceDidChangeWatchedFiles, &protocol.DidChangeWatchedFilesParams{Changes: []protocol.FileEvent{
		{URI: uri.File(filepath.Join(dir, "application.yml")), Type: protocol.FileChangeTypeChanged},
	}})
	c.waitFor("status with 3 services", func() bool { return c.statuses[len(c.statuses)-1].Kinds[0].Services == 3 })

	// Pushed settings that change the sources re-register the watchers
	// (a call to the client made while the push is being handled).
	other := t.TempDir()
	writeFiles(t, other, map[string]string{"application.yml": "scriptservice:\n  api:\n    - serviceId: solo\n      url: https://solo.example.com\n"})
	c.notify(protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{
		Settings: []byte(`{"restls": {"configRoot": "` + other + `"}}`),
	})
	c.waitFor("registration for the new files", func() bool {
		return len(c.regs) >= 2 && strings.Contains(string(c.regs[len(c.regs)-1].RegisterOptions), other)
	})
	c.waitFor("status with the new services", func() bool { return c.statuses[len(c.statuses)-1].Kinds[0].Services == 1 })
}

// TestEmptyListSettingsKeepInitializationOptions: Neovim answers
// workspace/configuration with [] for an empty Lua table; that is "nothing
// configured in the editor", not a bad setting that drops the
// initializationOptions.
func TestEmptyListSettingsKeepInitializationOptions(t *testing.T) {
	t.Parallel()
	initDir, editorDir := t.TempDir(), t.TempDir()
	writeFiles(t, initDir, map[string]string{"application.yml": twoServices})
	writeFiles(t, editorDir, map[string]string{"application.yml": "scriptservice:\n  api:\n    - serviceId: only\n      url: https://only.example.com\n"})
	srv := newTestServer(t, Options{})
	yes := true
	caps := defaultCaps()
	caps.Workspace = &protocol.WorkspaceClientCapabilities{Configuration: &yes}
	c := connect(t, srv, clientOptions{caps: caps, settings: json.RawMessage(`[]`),
		initOptions: map[string]any{"restls": map[string]any{"configRoot": initDir}}})
	c.waitFor("the initializationOptions' two services", func() bool {
		return len(c.statuses) > 0 && c.statuses[len(c.statuses)-1].Kinds[0].Services == 2
	})
	// Pulls are applied one at a time: once the next one is, the first is.
	c.mu.Lock()
	c.settings, _ = json.Marshal(map[string]any{"configRoot": editorDir})
	c.mu.Unlock()
	c.notify(protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: []byte("null")})
	c.waitFor("the editor's one service", func() bool { return c.statuses[len(c.statuses)-1].Kinds[0].Services == 1 })
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.messages {
		if strings.Contains(m.Message, "settings") {
			t.Errorf("[] settings gave a message: %s", m.Message)
		}
	}
}

// TestSettingsPullAndMultipleSessions: workspace/configuration overrides the
// flags for one session; Server.Reload re-publishes in every session.
func TestSettingsPullAndMultipleSessions(t *testing.T) {
	t.Parallel()
	flagsDir, editorDir := t.TempDir(), t.TempDir()
	writeFiles(t, flagsDir, map[string]string{"application.yml": twoServices})
	writeFiles(t, editorDir, map[string]string{"application.yml": "scriptservice:\n  api:\n    - serviceId: only\n      url: https://only.example.com\n"})
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: flagsDir}})
	yes := true
	caps := defaultCaps()
	caps.Workspace = &protocol.WorkspaceClientCapabilities{Configuration: &yes}
	a := connect(t, srv, clientOptions{caps: caps, settings: map[string]any{"configRoot": "cfg"}, root: filepath.Dir(editorDir)})
	// Relative configRoot resolves against the workspace root.
	rel, _ := filepath.Rel(filepath.Dir(editorDir), editorDir)
	a.mu.Lock()
	a.settings, _ = json.Marshal(map[string]any{"configRoot": rel})
	a.mu.Unlock()
	a.notify(protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: []byte("null")})
	b := connect(t, srv, clientOptions{})
	a.waitFor("editor settings applied", func() bool {
		return len(a.statuses) > 0 && a.statuses[len(a.statuses)-1].Kinds[0].Services == 1
	})
	b.waitFor("flags config", func() bool { return len(b.statuses) > 0 && b.statuses[0].Kinds[0].Services == 2 })
	if got := srv.Session().Registry().Get().For(config.ScriptService).Len(); got != 2 {
		t.Errorf("Server.Snapshot has %d services, want the flags' 2", got)
	}
	a.mu.Lock()
	na := len(a.statuses)
	a.mu.Unlock()
	b.mu.Lock()
	nb := len(b.statuses)
	b.mu.Unlock()
	writeFiles(t, flagsDir, map[string]string{"application.yml": twoServices + "    - serviceId: hr\n      url: https://hr.example.com\n"})
	srv.Session().Reload()
	a.waitFor("status after reload in a", func() bool { return len(a.statuses) > na })
	b.waitFor("status after reload in b", func() bool { return len(b.statuses) > nb && b.statuses[len(b.statuses)-1].Kinds[0].Services == 3 })
	if got := a.lastStatus().Kinds[0].Services; got != 1 {
		t.Errorf("session with its own settings has %d services after reload, want 1", got)
	}
}

func TestParseSettings(t *testing.T) {
	t.Parallel()
	set, problems := parseSettings([]byte(`{"restls":{"configRoot":"c","properties":"p.yml","scriptKinds":{"b/**":"scriptTask","a/*.js":"validationScript","x":"nope"}}}`))
	if set.ConfigRoot != "c" || len(set.Properties) != 1 || set.Properties[0] != "p.yml" {
		t.Errorf("settings = %+v", set)
	}
	if len(set.ScriptKinds) != 2 || set.ScriptKinds[0].Glob.String() != "b/**" || set.ScriptKinds[1].Kind != config.ValidationScript {
		t.Errorf("scriptKinds lost their order: %+v", set.ScriptKinds)
	}
	if len(problems) != 1 || !strings.Contains(problems[0], `"x"`) {
		t.Errorf("problems = %q", problems)
	}
	// A glob that cannot compile is a problem, not a glob that silently
	// never matches.
	set, problems = parseSettings([]byte(`{"restls":{"scriptKinds":{"tasks/[x/*.js":"scriptTask","*.js":"validationScript"}}}`))
	if len(set.ScriptKinds) != 1 || set.ScriptKinds[0].Glob.String() != "*.js" ||
		len(problems) != 1 || !strings.Contains(problems[0], `"tasks/[x/*.js": bad pattern "[x"`) {
		t.Errorf("bad glob: scriptKinds %+v, problems %q", set.ScriptKinds, problems)
	}
	if s, p := parseSettings([]byte(`[1]`)); len(p) != 1 || s.ConfigRoot != "" {
		t.Errorf("non-object settings: %+v %q", s, p)
	}
	// An empty Lua table is encoded as [] by Neovim (init_options = {},
	// settings = { restls = {} }): no settings, not a problem.
	for _, empty := range []string{`[]`, ` [ ] `, `{"restls":[]}`, `{}`} {
		if s, p := parseSettings([]byte(empty)); len(p) != 0 || s.ConfigRoot != "" {
			t.Errorf("parseSettings(%s) = %+v %q, want no settings and no problem", empty, s, p)
		}
	}
}

// TestDocumentsDropTheirSyntaxTree: after diagnostics a document keeps its
// text and the diagnostics (for code actions), not its syntax tree, and
// goes on taking edits.
func TestDocumentsDropTheirSyntaxTree(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, Options{Runner: echoRunner})
	c := connect(t, srv, clientOptions{})
	n := 12
	var uris []uri.URI
	for i := range n {
		u := uri.File(fmt.Sprintf("/ws/s%02d.js", i))
		uris = append(uris, u)
		c.open(u, fmt.Sprintf("var x%d = context.api(\"crm\");\n", i))
	}
	for _, u := range uris {
		if ds := c.diagnostics(u, 1, 0); len(ds) != 1 {
			t.Fatalf("%s: diagnostics %+v", u, ds)
		}
	}
	ses := srv.sessionList()[0]
	for _, u := range uris {
		if c, ok := ses.diagnostics.cached(u); !ok || c.d != ses.document(u) || len(c.diags) != 1 {
			t.Errorf("%s: no cached diagnostics for the current document", u)
		}
	}
	// A document without its tree still takes edits and is diagnosed again.
	v := c.change(uris[0], &protocol.TextDocumentContentChangePartial{
		Range: protocol.Range{Start: protocol.Position{Line: 0, Character: 9}, End: protocol.Position{Line: 0, Character: 20}},
		Text:  "api.rest.v1.get",
	})
	if ds := c.diagnostics(uris[0], v, 0); len(ds) != 1 || ds[0].Code != protocol.String("missing-argument") {
		t.Errorf("diagnostics after editing an evicted document: %+v", ds)
	}
	got, err := c.run(uris[0])
	if err != nil || got.Text != "var x0 = api.rest.v1.get(\"crm\");\n" {
		t.Errorf("text after edit = %q, %v", got.Text, err)
	}
}

// vscodeCaps are the completion capabilities VS Code announces: lazy
// documentation through resolve and item defaults.
func vscodeCaps() protocol.ClientCapabilities {
	caps := defaultCaps()
	caps.TextDocument.Completion.CompletionItem.ResolveSupport.Properties = []string{"documentation", "detail", "additionalTextEdits"}
	caps.TextDocument.Completion.CompletionList = &protocol.CompletionListCapabilities{ItemDefaults: []string{"commitCharacters", "editRange", "insertTextFormat", "data"}}
	return caps
}

func TestCompletionResolveAndItemDefaults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"application.yml": twoServices})
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: dir}})
	c := connect(t, srv, clientOptions{caps: vscodeCaps()})
	u := uri.File("/ws/a.js")
	c.open(u, "api.rest.v1.get(\"\", {}, {});\n")
	l := c.completion(u, protocol.Position{Line: 0, Character: 17})
	if len(l.Items) != 2 {
		t.Fatalf("items = %q", labels(l))
	}
	r, ok := l.ItemDefaults.EditRange.(*protocol.Range)
	if !ok || *r != (protocol.Range{Start: protocol.Position{Character: 17}, End: protocol.Position{Character: 17}}) {
		t.Errorf("itemDefaults.editRange = %#v", l.ItemDefaults)
	}
	crm := l.Items[0]
	if crm.Label != "crm" || crm.TextEdit != nil || crm.Documentation != nil || crm.InsertTextFormat != 0 || len(crm.Data) != 0 || len(l.ItemDefaults.Data) == 0 {
		t.Fatalf("lazy item = %+v, defaults %+v", crm, l.ItemDefaults)
	}
	// The client applies the default data, as the specification says.
	crm.Data = l.ItemDefaults.Data
	var resolved protocol.CompletionItem
	if err := c.call(protocol.MethodCompletionItemResolve, &crm, &resolved); err != nil {
		t.Fatal(err)
	}
	doc, _ := resolved.Documentation.(*protocol.MarkupContent)
	if doc == nil || !strings.Contains(doc.Value, "CRM") || resolved.Label != "crm" {
		t.Errorf("resolved = %+v", resolved)
	}
	// An item of an older answer resolves to itself.
	c.completion(u, protocol.Position{Line: 0, Character: 17})
	var stale protocol.CompletionItem
	if err := c.call(protocol.MethodCompletionItemResolve, &crm, &stale); err != nil || stale.Documentation != nil {
		t.Errorf("stale resolve = %+v, %v", stale, err)
	}
}

// A client that resolves documentation but takes no default data gets a
// reference in each item.
func TestCompletionResolveWithoutDefaultData(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"application.yml": twoServices})
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: dir}})
	caps := vscodeCaps()
	caps.TextDocument.Completion.CompletionList = nil
	c := connect(t, srv, clientOptions{caps: caps})
	u := uri.File("/ws/a.js")
	c.open(u, "api.rest.v1.get(\"\", {}, {});\n")
	l := c.completion(u, protocol.Position{Line: 0, Character: 17})
	if len(l.Items) != 2 || l.ItemDefaults != nil {
		t.Fatalf("items = %q, defaults %+v", labels(l), l.ItemDefaults)
	}
	for i, it := range l.Items {
		te, _ := it.TextEdit.(*protocol.TextEdit)
		if te == nil || te.NewText != it.Label || te.Range.Start.Character != 17 || it.Documentation != nil || len(it.Data) == 0 {
			t.Fatalf("item %d = %+v", i, it)
		}
		var resolved protocol.CompletionItem
		if err := c.call(protocol.MethodCompletionItemResolve, &it, &resolved); err != nil {
			t.Fatal(err)
		}
		doc, _ := resolved.Documentation.(*protocol.MarkupContent)
		if doc == nil || !strings.Contains(doc.Value, "URL: `") || resolved.Label != it.Label {
			t.Errorf("resolved %d = %+v", i, resolved)
		}
	}
	// A reference to an item that is not there resolves to the item.
	odd := l.Items[0]
	odd.Data = []byte("[1,99]")
	var same protocol.CompletionItem
	if err := c.call(protocol.MethodCompletionItemResolve, &odd, &same); err != nil || same.Documentation != nil {
		t.Errorf("resolve of a bad reference = %+v, %v", same, err)
	}
}

func TestRunScriptKindAndInputArguments(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, Options{Runner: echoRunner})
	c := connect(t, srv, clientOptions{})
	u := uri.File("/ws/a.js")
	c.open(u, "return context.input.a;")
	arg, _ := json.Marshal(map[string]any{"uri": string(u), "kind": "scriptTask", "input": map[string]int{"a": 1}})
	var out struct {
		Result echoed `json:"result"`
	}
	if err := c.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: CommandRunScript, Arguments: []protocol.LSPAny{arg}}, &out); err != nil {
		t.Fatal(err)
	}
	if res := out.Result; res.Kind != config.ScriptTask || res.Input != `{"a":1}` {
		t.Errorf("runner got kind %q input %q", res.Kind, res.Input)
	}
	bad, _ := json.Marshal(map[string]any{"uri": string(u), "kind": "nope"})
	err := c.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: CommandRunScript, Arguments: []protocol.LSPAny{bad}}, nil)
	if codeOf(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), "nope") {
		t.Errorf("bad kind: %v", err)
	}
	if err := c.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: "restls.nothing"}, nil); codeOf(err) != jsonrpc2.InvalidParams {
		t.Errorf("unknown command: %v", err)
	}
}
