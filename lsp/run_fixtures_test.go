package lsp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/engine"
	"github.com/restls/restls/internal/goldentest"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// fileRunner records the fixture files of each run it is handed.
type fileRunner struct {
	mu   sync.Mutex
	last engine.Request
}

func (f *fileRunner) run(_ context.Context, _ workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
	f.mu.Lock()
	f.last = req
	f.mu.Unlock()
	return &dryrun.Result{Result: json.RawMessage("1")}, nil
}

func (f *fileRunner) files() (string, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last.Fixtures.File, f.last.Fixtures.Record
}

func execRun(c *testClient, arg map[string]any) error {
	var out any
	return c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": CommandRunScript, "arguments": []any{arg}}, &out)
}

// TestRunScriptFixtureFiles: mock and record name the files the runner
// is handed, "auto" meaning the file beside the script; relative paths
// are the script's directory's.
func TestRunScriptFixtureFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	other := t.TempDir()
	for _, f := range []string{"orders.mock.yaml", "both.mock.yaml", "both.mock.json", "json.mock.json", "fixtures/a.yaml"} {
		p := filepath.Join(dir, f)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("fixtures: []\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(other, "x.json"), []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	fr := &fileRunner{}
	srv := newTestServer(t, Options{Runner: fr.run})
	c := connect(t, srv, clientOptions{})
	script := func(name string) uri.URI {
		u := uri.File(filepath.Join(dir, name))
		c.open(u, "return 1")
		return u
	}
	in := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		name, script      string
		mock, record      any
		wantMock, wantRec string
	}{
		{"no arguments", "orders.js", nil, nil, "", ""},
		{"mock false", "orders.js", false, nil, "", ""},
		{"mock auto, file present", "orders.js", "auto", nil, in("orders.mock.yaml"), ""},
		{"mock auto, file absent", "live.js", "auto", nil, "", ""},
		{"mock auto, only JSON", "json.js", "auto", nil, in("json.mock.json"), ""},
		{"mock auto, YAML before JSON", "both.js", "auto", nil, in("both.mock.yaml"), ""},
		{"mock relative path", "orders.js", "fixtures/a.yaml", nil, in("fixtures/a.yaml"), ""},
		{"mock absolute path outside the workspace", "orders.js", filepath.Join(other, "x.json"), nil, filepath.Join(other, "x.json"), ""},
		{"record auto, no file yet", "new.js", nil, "auto", "", in("new.mock.yaml")},
		{"record auto, file present", "json.js", nil, "auto", "", in("json.mock.json")},
		{"record relative path", "orders.js", nil, "rec/out.json", "", in("rec/out.json")},
		{"fill in", "orders.js", "auto", "auto", in("orders.mock.yaml"), in("orders.mock.yaml")},
	} {
		u := script(tc.script)
		arg := map[string]any{"uri": string(u)}
		if tc.mock != nil {
			arg["mock"] = tc.mock
		}
		if tc.record != nil {
			arg["record"] = tc.record
		}
		if err := execRun(c, arg); err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if m, r := fr.files(); m != tc.wantMock || r != tc.wantRec {
			t.Errorf("%s: runner got mock %q record %q, want %q %q", tc.name, m, r, tc.wantMock, tc.wantRec)
		}
	}
}

// TestRunScriptFixtureErrors: what a bad mock or record argument, or a
// session that may not name files, answers.
func TestRunScriptFixtureErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fr := &fileRunner{}
	srv := newTestServer(t, Options{Runner: fr.run})
	full := connect(t, srv, clientOptions{})
	limited := connect(t, srv, clientOptions{session: &SessionOptions{MayRun: true, MayReload: true}})
	file := uri.File(filepath.Join(dir, "orders.js"))
	untitled := uri.URI("untitled:Untitled-1")
	for _, c := range []*testClient{full, limited} {
		c.open(file, "return 1")
		c.open(untitled, "return 1")
	}
	var b strings.Builder
	for _, tc := range []struct {
		name string
		c    *testClient
		arg  map[string]any
	}{
		{"mock is a number", full, map[string]any{"uri": string(file), "mock": 1}},
		{"mock is true", full, map[string]any{"uri": string(file), "mock": true}},
		{"mock file missing", full, map[string]any{"uri": string(file), "mock": "missing.mock.yaml"}},
		{"mock names the script", full, map[string]any{"uri": string(file), "mock": "orders.js"}},
		{"record names the script", full, map[string]any{"uri": string(file), "record": "orders.js"}},
		{"record auto, untitled", full, map[string]any{"uri": string(untitled), "record": "auto"}},
		{"relative mock, untitled", full, map[string]any{"uri": string(untitled), "mock": "a.mock.yaml"}},
		{"mock auto, session without files", limited, map[string]any{"uri": string(file), "mock": "auto"}},
		{"record path, session without files", limited, map[string]any{"uri": string(file), "record": "/etc/x.yaml"}},
	} {
		err := execRun(tc.c, tc.arg)
		msg := "<no error>"
		if err != nil {
			msg = strings.ReplaceAll(err.Error(), dir, "$DIR")
		}
		b.WriteString(tc.name + ":\n  " + msg + "\n")
	}
	goldentest.Check(t, filepath.Join("testdata", "golden", "runscript", "fixture_errors.golden"), b.String())
	// Mock "auto" on an untitled document runs live; mock false in a
	// session without files runs too.
	for _, tc := range []struct {
		c   *testClient
		arg map[string]any
	}{
		{full, map[string]any{"uri": string(untitled), "mock": "auto"}},
		{limited, map[string]any{"uri": string(file), "mock": false}},
	} {
		if err := execRun(tc.c, tc.arg); err != nil {
			t.Errorf("%v: %v", tc.arg, err)
		} else if m, r := fr.files(); m != "" || r != "" {
			t.Errorf("%v: files %q %q", tc.arg, m, r)
		}
	}
}
