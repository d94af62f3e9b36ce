//go:build unix

// Unix only: a FIFO and /dev/zero as config files.

package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

// TestSettingsNameDevZero is the repro of issue #13 finding 6 through the
// language server: the editor setting properties: ["/dev/zero"] (or a
// FIFO in a cloned workspace) gives a diagnostic on that path, and the
// server keeps answering, instead of reading forever.
func TestSettingsNameDevZero(t *testing.T) {
	// Not in parallel: it bounds the wall time, which tests beside it would stretch.
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "application.yml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: dir}})
	c := connect(t, srv, clientOptions{})
	start := time.Now()
	got := c.diagnostics(uri.File(fifo), 0, 0)
	if len(got) != 1 || got[0].Code != protocol.String(config.CodeNotRegularFile) {
		t.Fatalf("diagnostics on the FIFO: %+v", got)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("FIFO diagnostic after %v, want within 1s", d)
	}

	since := c.now()
	start = time.Now()
	c.notify(protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{
		Settings: []byte(`{"restls": {"properties": ["/dev/zero"]}}`),
	})
	got = c.diagnostics(uri.File("/dev/zero"), 0, since)
	if len(got) != 1 || got[0].Code != protocol.String(config.CodeNotRegularFile) {
		t.Fatalf("diagnostics on /dev/zero: %+v", got)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("/dev/zero diagnostic after %v, want within 1s", d)
	}
}

// TestFixtureBesideLinkOut: a fixture file beside a script that is a
// symbolic link out of the script's repository is not the dry run's
// mock (it would read a file of the machine as fixtures), and record
// "auto" refuses to replace it (issue 23).
func TestFixtureBesideLinkOut(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	repo, outside := filepath.Join(base, "repo"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(repo, ".git"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "x.yaml"), []byte("[]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(repo, "a.js")
	if err := os.Symlink("../outside/x.yaml", filepath.Join(repo, "a.mock.yaml")); err != nil {
		t.Fatal(err)
	}
	if got := workspace.MockFileBeside(script); got != "" {
		t.Errorf("MockFileBeside = %q, want none", got)
	}
	_, _, err := fixtureFiles(script, auto, auto)
	if err == nil || !strings.Contains(err.Error(), "outside the repository root") {
		t.Errorf("record auto through a link out: %v", err)
	}
	// A link that stays inside is followed.
	if err := os.WriteFile(filepath.Join(repo, "b.yaml"), []byte("[]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(repo, "a.mock.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("b.yaml", filepath.Join(repo, "a.mock.yaml")); err != nil {
		t.Fatal(err)
	}
	if got := workspace.MockFileBeside(script); got != filepath.Join(repo, "a.mock.yaml") {
		t.Errorf("MockFileBeside = %q, want the link inside the repository", got)
	}
}

// TestAddFixtureActionDanglingLink (issue 33, point 9): "Add a fixture
// for this call" beside a fixture file that is a link to nothing outside
// the repository offered to create it, and the editor created the link's
// target outside. The action is not offered (workspace.FixtureWritable,
// record "auto"'s rule); once the link is gone it is.
func TestAddFixtureActionDanglingLink(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "repo")
	writeFiles(t, dir, map[string]string{
		".git/HEAD":              "ref: refs/heads/main\n",
		"config/application.yml": "scriptservice:\n  api:\n    - serviceId: shop\n      url: https://shop.example.test/api\n",
		"shop.json":              actionDescription,
	})
	link := filepath.Join(dir, "orders.mock.yaml")
	if err := os.Symlink("../outside/planted.yaml", link); err != nil {
		t.Fatal(err)
	}
	src := []workspace.APISource{{ServiceID: "shop", Location: filepath.Join(dir, "shop.json")}}
	srv := newTestServer(t, Options{PollInterval: -1, Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}, OpenAPI: src})
	srv.ws.AnswerDescriptions().SetDelay(0)
	srv.ws.Descriptions().SetDelay(0)
	c := connect(t, srv, clientOptions{root: dir})
	u := uri.File(filepath.Join(dir, "orders.js"))
	text := "var o = api.rest.v1.get(\"shop\", {pathParams: [\"orders\", \"1\"]}, {});\n"
	c.open(u, text)
	for _, store := range []*workspace.Descriptions{srv.ws.AnswerDescriptions(), srv.ws.Descriptions()} {
		if err := store.Wait(context.Background(), src); err != nil {
			t.Fatal(err)
		}
	}
	pos := newMapper(text).position(strings.Index(text, "pathParams"))
	if got := fixtureActionsAt(t, c, u, pos); len(got) != 0 {
		t.Errorf("offered to create the fixture file through a link to nothing outside the repository: %v", got)
	}
	if _, _, err := fixtureFiles(filepath.Join(dir, "orders.js"), auto, auto); err == nil || !strings.Contains(err.Error(), "which does not exist") {
		t.Errorf("record auto through a link to nothing: %v", err)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if got := fixtureActionsAt(t, c, u, pos); len(got) != 1 {
		t.Errorf("without the link: %v, want the action", got)
	}
}
