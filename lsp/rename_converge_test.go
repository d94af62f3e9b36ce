package lsp

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
)

// TestRenameConverges: after an editor applies a rename (the open script
// edited in the buffer, the other script and the configuration written on
// disk, both reported as watched files), the open script's diagnostics
// and the references of the new id follow: no unknown-service, both
// scripts call it.
func TestRenameConverges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config/application.yml": "scriptservice:\n  api:\n    - serviceId: geo\n      url: https://geo.example.com\n",
		"a.js":                   "api.rest.v1.get(\"geo\", {}, {});\n",
		"b.js":                   "api.rest.v1.get(\"geo\", {}, {});\n",
	})
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}})
	c := connect(t, srv, clientOptions{root: dir})
	a := uri.File(filepath.Join(dir, "a.js"))
	c.open(a, "api.rest.v1.get(\"geo\", {}, {});\n")
	if d := c.diagnostics(a, 1, 0); len(d) != 0 {
		t.Fatalf("before: %+v", d)
	}
	refs := func(u uri.URI, line, char uint32) []string {
		var locs []protocol.Location
		if err := c.call(protocol.MethodTextDocumentReferences, &protocol.ReferenceParams{
			TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: line, Character: char}},
			Context:                    protocol.ReferenceContext{IncludeDeclaration: false},
		}, &locs); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range locs {
			out = append(out, filepath.Base(string(l.URI)))
		}
		slices.Sort(out)
		return out
	}
	if got := refs(a, 0, 18); !slices.Equal(got, []string{"a.js", "b.js"}) {
		t.Fatalf("references of geo before: %v", got)
	}
	// The rename, as VS Code applies it: b.js opened for the edit, edited,
	// saved and closed; a.js edited in its buffer; the configuration
	// written.
	b := uri.File(filepath.Join(dir, "b.js"))
	c.open(b, "api.rest.v1.get(\"geo\", {}, {});\n")
	c.change(b, &protocol.TextDocumentContentChangeWholeDocument{Text: "api.rest.v1.get(\"geo-v2\", {}, {});\n"})
	v := c.change(a, &protocol.TextDocumentContentChangeWholeDocument{Text: "api.rest.v1.get(\"geo-v2\", {}, {});\n"})
	writeFiles(t, dir, map[string]string{
		"config/application.yml": "scriptservice:\n  api:\n    - serviceId: geo-v2\n      url: https://geo.example.com\n",
		"b.js":                   "api.rest.v1.get(\"geo-v2\", {}, {});\n",
	})
	c.notify(protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: b}})
	c.notify(protocol.MethodWorkspaceDidChangeWatchedFiles, &protocol.DidChangeWatchedFilesParams{Changes: []protocol.FileEvent{
		{URI: uri.File(filepath.Join(dir, "b.js")), Type: protocol.FileChangeTypeChanged},
		{URI: uri.File(filepath.Join(dir, "config", "application.yml")), Type: protocol.FileChangeTypeChanged},
	}})
	c.waitFor("a.js diagnosed against the new configuration", func() bool {
		p, ok := c.diags[a]
		if got, vok := p.params.Version.Get(); !ok || !vok || got != v {
			return false
		}
		for _, d := range p.params.Diagnostics {
			if strings.Contains(fmt.Sprint(d.Code), "unknown-service") {
				return false
			}
		}
		return true
	})
	if got := refs(a, 0, 18); !slices.Equal(got, []string{"a.js", "b.js"}) {
		t.Errorf("references of geo-v2 after the rename: %v, want both scripts", got)
	}
}
