package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
)

// TestDocumentInfo: restls/documentInfo answers for an open script and
// for a script file on disk the editor has not opened, with the kind the
// diagnostics use and why, the fixture files a dry run looks for (and the
// one it would read), and the path relative to the workspace root; a
// session with ShowPath is shown only ShowPath's names; anything else is
// null.
func TestDocumentInfo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	task := write("tasks/nightly.js", "return 1;\n")
	write("tasks/nightly.mock.json", "[]\n")
	closed := write("closed.js", "// restls-kind: validationScript\nreturn 1;\n")
	srv := newTestServer(t, Options{})
	c := connect(t, srv, clientOptions{root: dir, initOptions: map[string]any{"scriptKinds": map[string]string{"tasks/**": "scriptTask"}}})
	c.open(uri.File(task), "return 1;\n")
	info := func(c *testClient, u uri.URI) *DocumentInfo {
		t.Helper()
		var out *DocumentInfo
		if err := c.call(MethodDocumentInfo, &DocumentInfoParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}

	got := info(c, uri.File(task))
	base := strings.TrimSuffix(task, ".js")
	if got == nil || got.Kind != (config.KindDecision{Kind: config.ScriptTask, Source: config.KindFromMap, Glob: "tasks/**"}) ||
		!slices.Equal(got.Fixtures, []string{base + ".mock.yaml", base + ".mock.json"}) || got.MockFile != base+".mock.json" ||
		got.DisplayPath != "tasks/nightly.js" {
		t.Errorf("open task: %+v", got)
	}
	got = info(c, uri.File(closed))
	if got == nil || got.Kind != (config.KindDecision{Kind: config.ValidationScript, Source: config.KindFromDirective}) || got.MockFile != "" || got.DisplayPath != "closed.js" {
		t.Errorf("closed file with a directive: %+v", got)
	}
	if got := info(c, uri.File(filepath.Join(dir, "absent.js"))); got != nil {
		t.Errorf("a file that does not exist: %+v, want null", got)
	}
	if got := info(c, uri.URI("untitled:Untitled-1")); got != nil {
		t.Errorf("an unopened untitled document: %+v, want null", got)
	}
	c.open(uri.URI("untitled:Untitled-2"), "// restls-kind: scriptTask\n")
	if got := info(c, uri.URI("untitled:Untitled-2")); got == nil || got.Kind.Kind != config.ScriptTask || len(got.Fixtures) != 0 {
		t.Errorf("an open untitled document: %+v", got)
	}
	if err := c.call(MethodDocumentInfo, map[string]any{}, new(any)); err == nil {
		t.Error("no textDocument.uri: want InvalidParams")
	}

	show := func(p string) string { return "shown:" + filepath.Base(p) }
	d := connect(t, srv, clientOptions{session: &SessionOptions{ShowPath: show}})
	d.open(uri.File(task), "return 1;\n")
	got = info(d, uri.File(task))
	if got == nil || got.DisplayPath != "shown:nightly.js" || got.MockFile != "shown:nightly.mock.json" ||
		!slices.Equal(got.Fixtures, []string{"shown:nightly.mock.yaml", "shown:nightly.mock.json"}) {
		t.Errorf("a session with ShowPath: %+v", got)
	}
}
