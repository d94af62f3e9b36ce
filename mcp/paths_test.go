package mcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// TestPathsConfined: every path a tool reads or names stays below the
// project root, its links followed; what is refused says so and shows
// nothing of the file.
func TestPathsConfined(t *testing.T) {
	root := testProject(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.js")
	if err := os.WriteFile(secret, []byte("var leaked = 'outside-the-root';\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(root, "scripts", "link.js")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "scripts", "out")); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"secret.test.yaml": "script: secret.js\nresult: outside-the-root\n", "secret.mock.yaml": "- {serviceId: outside-the-root}\n"} {
		if err := os.WriteFile(filepath.Join(outside, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(outside, "secret.test.yaml"), filepath.Join(root, "scripts", "link.test.yaml")); err != nil {
		t.Fatal(err)
	}
	o := testOptions(t, root)
	o.Tests = func(context.Context, workspace.Snapshot, engine.Request) (*dryrun.Result, error) {
		t.Error("a run started for a path outside the root")
		return nil, errors.New("no run")
	}
	cs := connect(t, o)
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"parent", "check", map[string]any{"path": "../" + filepath.Base(outside) + "/secret.js"}, "outside the project root"},
		{"absolute", "check", map[string]any{"path": secret}, "outside the project root"},
		{"link to a file", "check", map[string]any{"path": "scripts/link.js"}, "outside the project root"},
		{"link to a directory", "complete", map[string]any{"path": "scripts/out/secret.js", "line": 1, "column": 1}, "outside the project root"},
		{"unsaved text named outside", "check", map[string]any{"path": "scripts/out/new.js", "text": "api.rest.v1.get('orders', {}, {});"}, "outside the project root"},
		{"fixtures beside a link", "fixtures", map[string]any{"path": "scripts/out/new.js", "text": "api.rest.v1.get('orders', {}, {});"}, "outside the project root"},
		{"test file through a link", "test", map[string]any{"path": "scripts/link.test.yaml"}, "outside the project root"},
		{"test file in a linked directory", "test", map[string]any{"path": "scripts/out/secret.test.yaml"}, "outside the project root"},
		{"faults of a script through a link", "faults", map[string]any{"path": "scripts/link.js"}, "outside the project root"},
		{"faults' fixtures in a linked directory", "faults", map[string]any{"path": "scripts/status.js", "fixturesFile": "scripts/out/secret.mock.yaml"}, "outside the project root"},
		{"faults' fixtures beside a linked script", "faults", map[string]any{"path": "scripts/out/secret.js", "text": "return 1"}, "outside the project root"},
		{"missing", "check", map[string]any{"path": "scripts/nothing.js"}, "does not exist"},
		{"directory", "check", map[string]any{"path": "scripts"}, "not a regular file"},
		{"long path", "check", map[string]any{"path": strings.Repeat("a/", 3000)}, "above the 4096 limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, cs, tc.tool, tc.args, nil)
			msg := errorText(res)
			if !res.IsError || !strings.Contains(msg, tc.want) {
				t.Fatalf("IsError %v, %q; want an error with %q", res.IsError, msg, tc.want)
			}
			if strings.Contains(msg, "outside-the-root") {
				t.Errorf("the refusal shows the file: %s", msg)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(outside, "new.mock.yaml")); err == nil {
		t.Errorf("a file was written outside the root")
	}
}

// TestInputsBounded: an argument past its limit is refused, naming the
// limit, before anything is parsed.
func TestInputsBounded(t *testing.T) {
	o := testOptions(t, testProject(t))
	o.Limits.Text = 1 << 10
	cs := connect(t, o)
	big := strings.Repeat("// x\n", 1000)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"check", map[string]any{"text": big}, "above the 1024 limit"},
		{"complete", map[string]any{"text": big, "line": 1, "column": 1}, "above the 1024 limit"},
		{"curl", map[string]any{"curl": "curl https://orders.example.com/api/" + strings.Repeat("a", 1<<20)}, "above the 1048576 limit"},
		{"complete", map[string]any{"text": "x", "line": 9, "column": 1}, "not in the script"},
		{"services", map[string]any{"kind": "shellScript"}, "shellScript"},
		{"contract", map[string]any{"serviceId": "orders", "method": "TRACE"}, "GET, DELETE, POST, PUT or PATCH"},
	} {
		res := call(t, cs, tc.tool, tc.args, nil)
		if msg := errorText(res); !res.IsError || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: IsError %v, %q; want an error with %q", tc.tool, res.IsError, cut(msg, 300), tc.want)
		}
	}
}

// TestFloodRefused: a call past Limits.Calls is refused at once, saying
// to retry, while the others go on; after them, calls are answered again.
func TestFloodRefused(t *testing.T) {
	o := testOptions(t, testProject(t))
	o.Limits.Calls = 1
	entered, release := make(chan struct{}), make(chan struct{})
	o.Run = func(ctx context.Context, _ workspace.Snapshot, _ engine.Request) (*dryrun.Result, error) {
		close(entered)
		<-release
		return &dryrun.Result{Result: []byte("1")}, nil
	}
	cs := connect(t, o)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "run", Arguments: map[string]any{"text": "return 1", "fixtures": "fixtures: []"}})
		done <- err
	}()
	<-entered
	_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "services", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "call again when one of yours has answered") {
		t.Errorf("a call past the limit: %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("the call in flight: %v", err)
	}
	if res := call(t, cs, "services", map[string]any{}, nil); res.IsError {
		t.Errorf("a call after the flood: %s", errorText(res))
	}
}

// TestRemoteHidesRoot: a remote client (/mcp) is never shown where the
// server keeps the project.
func TestRemoteHidesRoot(t *testing.T) {
	root := testProject(t)
	o := testOptions(t, root)
	o.Remote = true
	cs := connect(t, o)
	for _, args := range []map[string]any{{"path": "../elsewhere.js"}, {"path": "scripts/missing.js"}, {"path": filepath.Join(root, "scripts")}} {
		res := call(t, cs, "check", args, nil)
		if msg := errorText(res); !res.IsError || strings.Contains(msg, root) {
			t.Errorf("%v: %q", args, msg)
		}
	}
	res := call(t, cs, "contract", map[string]any{"serviceId": "orders"}, nil)
	if data := mustJSON(t, res); strings.Contains(string(data), root) {
		t.Errorf("contract shows the root: %s", data)
	}
}
