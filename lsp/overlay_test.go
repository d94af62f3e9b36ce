package lsp

import (
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
)

// TestOverlayOpenTextWins: an editor's unsaved text is what every
// session of the server reads in place of the file (the workspace's
// overlay): references, rename, a configuration file's code lens and
// documentInfo asked by another session see it, and the file again once
// the editor closes it. Before, each session applied only its own
// documents to the project index they share, putting the other's back
// to the disk.
func TestOverlayOpenTextWins(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"config/application.yml": "scriptservice:\n  api:\n    - serviceId: crm\n      url: https://crm.example.com\n    - serviceId: billing\n      url: https://billing.example.com\n",
		"a.js":                   "api.rest.v1.get(\"billing\", {}, {});\n",
		"b.js":                   "api.rest.v1.get(\"crm\", {}, {});\n",
		"c.js":                   "return 1;\n",
	}
	writeFiles(t, dir, files)
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}})
	yes := true
	plain := protocol.ClientCapabilities{Window: &protocol.WindowClientCapabilities{WorkDoneProgress: &yes}}
	editor := connect(t, srv, clientOptions{root: dir})
	other := connect(t, srv, clientOptions{root: dir, caps: plain})
	a, b, c := uri.File(filepath.Join(dir, "a.js")), uri.File(filepath.Join(dir, "b.js")), uri.File(filepath.Join(dir, "c.js"))
	cfg := uri.File(filepath.Join(dir, "config/application.yml"))

	other.open(b, files["b.js"])
	onDisk := []string{"b.js:1:18", "config/application.yml:3:18"}
	if got := refsOf(t, other, dir, b); !slices.Equal(got, onDisk) {
		t.Fatalf("references before the edit: %q, want %q", got, onDisk)
	}

	// The editor calls crm from a.js without saving, and c.js becomes a
	// script task; its own answer first, so its didOpens are in.
	editor.open(a, "api.rest.v1.get(\"crm\", {}, {});\n")
	editor.open(c, "// restls-kind: scriptTask\nreturn 1;\n")
	unsaved := []string{"a.js:1:18", "b.js:1:18", "config/application.yml:3:18"}
	if got := refsOf(t, editor, dir, a); !slices.Equal(got, unsaved) {
		t.Fatalf("the editor's references: %q, want %q", got, unsaved)
	}

	if got := refsOf(t, other, dir, b); !slices.Equal(got, unsaved) {
		t.Errorf("references asked by another session: %q, want %q (the editor's unsaved a.js)", got, unsaved)
	}

	var we protocol.WorkspaceEdit
	if err := other.call(protocol.MethodTextDocumentRename, &protocol.RenameParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: b}, Position: protocol.Position{Character: 18}},
		NewName:                    "crm2",
	}, &we); err != nil {
		t.Fatal(err)
	}
	var renamed []string
	for u, edits := range we.Changes {
		for _, e := range edits {
			renamed = append(renamed, locString(dir, u, e.Range.Start))
		}
	}
	sort.Strings(renamed)
	if !slices.Equal(renamed, unsaved) {
		t.Errorf("rename asked by another session edits %q, want %q", renamed, unsaved)
	}

	other.open(cfg, files["config/application.yml"])
	var lenses []protocol.CodeLens
	if err := other.call(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: cfg}}, &lenses); err != nil {
		t.Fatal(err)
	}
	if len(lenses) == 0 || lenses[0].Command.Title != "2 scripts call this" {
		t.Errorf("crm's code lens for another session: %+v, want \"2 scripts call this\"", lenses)
	}

	var info *DocumentInfo
	if err := other.call(MethodDocumentInfo, &DocumentInfoParams{TextDocument: protocol.TextDocumentIdentifier{URI: c}}, &info); err != nil {
		t.Fatal(err)
	}
	if info == nil || info.Kind.Kind != config.ScriptTask {
		t.Errorf("documentInfo of c.js asked by another session: %+v, want the editor's scriptTask", info)
	}

	// Closed unsaved: the file again, for every session.
	editor.notify(protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: a}})
	refsOf(t, editor, dir, b) // the close is in
	if got := refsOf(t, other, dir, b); !slices.Equal(got, onDisk) {
		t.Errorf("references after the editor closed a.js: %q, want %q", got, onDisk)
	}
}

// TestOverlayNotFromDesigners: a session that may not use the server's
// files (a designer's, over /lsp) keeps its documents to itself: naming
// a script's path does not change what an editor's session reads.
func TestOverlayNotFromDesigners(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, watchedProject)
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}})
	designer := connect(t, srv, clientOptions{root: dir, session: &SessionOptions{}})
	editor := connect(t, srv, clientOptions{root: dir})
	a, b := uri.File(filepath.Join(dir, "a.js")), uri.File(filepath.Join(dir, "b.js"))
	designer.open(b, "api.rest.v1.get(\"crm\", {}, {});\n")
	designer.completion(b, protocol.Position{}) // its didOpen is in
	editor.open(a, watchedProject["a.js"])
	if got, want := refsOf(t, editor, dir, a), []string{"a.js:1:18", "config/application.yml:3:18"}; !slices.Equal(got, want) {
		t.Errorf("references %q, want %q: a designer's document is not the editor's", got, want)
	}
}
