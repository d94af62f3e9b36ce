package lsp

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/workspace"
)

// TestProjectFileDiagnostics: an open restls.yaml gets its problems as it
// is typed, as every command reports them: an unknown key at its place
// with the nearest known one; fixed, the diagnostics clear.
func TestProjectFileDiagnostics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := newTestServer(t, Options{PollInterval: -1})
	c := connect(t, srv, clientOptions{root: dir})
	u := uri.File(filepath.Join(dir, workspace.FileName))
	c.open(u, "configRoot: config\ncheck:\n  exlude: [\"**/skip/**\"]\n")
	diags := c.diagnostics(u, 1, 0)
	if len(diags) != 1 {
		t.Fatalf("diagnostics = %+v, want the unknown key", diags)
	}
	d := diags[0]
	if d.Code != protocol.String(workspace.CodeUnknownKey) || d.Range.Start.Line != 2 || d.Range.Start.Character != 2 ||
		!strings.Contains(fmt.Sprint(d.Message), `"exclude"`) {
		t.Errorf("diagnostic = %+v, want project-unknown-key at 3:3 naming exclude", d)
	}
	v := c.change(u, &protocol.TextDocumentContentChangeWholeDocument{Text: "configRoot: config\ncheck:\n  exclude: [\"**/skip/**\"]\n"})
	if got := c.diagnostics(u, v, 0); len(got) != 0 {
		t.Errorf("after the fix: %+v", got)
	}
}
