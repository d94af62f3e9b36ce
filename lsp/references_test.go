package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
)

// refsOf returns the references (declarations included) of the serviceId
// literal at line 0, character 17 of u, as archive-relative locations.
func refsOf(t *testing.T, c *testClient, dir string, u uri.URI) []string {
	t.Helper()
	var locs []protocol.Location
	if err := c.call(protocol.MethodTextDocumentReferences, &protocol.ReferenceParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Character: 18}},
		Context:                    protocol.ReferenceContext{IncludeDeclaration: true},
	}, &locs); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range locs {
		out = append(out, locString(dir, l.URI, l.Range.Start))
	}
	sort.Strings(out)
	return out
}

var watchedProject = map[string]string{
	"config/application.yml": "scriptservice:\n  api:\n    - serviceId: crm\n      url: https://crm.example.com\n",
	"a.js":                   "api.rest.v1.get(\"crm\", {}, {});\n",
}

// TestReferencesFollowWatchedFiles: scripts created, changed and deleted
// outside the editor and reported by workspace/didChangeWatchedFiles are
// in the next answer; a configuration change is too.
func TestReferencesFollowWatchedFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, watchedProject)
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}})
	c := connect(t, srv, clientOptions{root: dir})
	a := uri.File(filepath.Join(dir, "a.js"))
	c.open(a, watchedProject["a.js"])
	if got, want := refsOf(t, c, dir, a), []string{"a.js:1:18", "config/application.yml:3:18"}; !slices.Equal(got, want) {
		t.Fatalf("references %q, want %q", got, want)
	}
	report := func(files ...string) {
		var ev []protocol.FileEvent
		for _, f := range files {
			ev = append(ev, protocol.FileEvent{URI: uri.File(filepath.Join(dir, f)), Type: protocol.FileChangeTypeChanged})
		}
		c.notify(protocol.MethodWorkspaceDidChangeWatchedFiles, &protocol.DidChangeWatchedFilesParams{Changes: ev})
	}
	writeFiles(t, dir, map[string]string{"sub/b.js": "\napi.rest.v1.get(\"crm\", {}, {});\n"})
	report("sub/b.js")
	if got, want := refsOf(t, c, dir, a), []string{"a.js:1:18", "config/application.yml:3:18", "sub/b.js:2:18"}; !slices.Equal(got, want) {
		t.Errorf("after a create: %q, want %q", got, want)
	}
	if err := os.RemoveAll(filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"config/application.yml": "scriptservice:\n  api:\n    - serviceId: other\n      url: https://o.example.com\n    - serviceId: crm\n      url: https://crm.example.com\n"})
	report("sub", "config/application.yml")
	if got, want := refsOf(t, c, dir, a), []string{"a.js:1:18", "config/application.yml:5:18"}; !slices.Equal(got, want) {
		t.Errorf("after a delete and a configuration change: %q, want %q", got, want)
	}
}

// TestReferencesFollowPolling: without a client that watches files, the
// polling watcher brings a created script into the index.
func TestReferencesFollowPolling(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, watchedProject)
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}, PollInterval: 10 * time.Millisecond})
	c := connect(t, srv, clientOptions{root: dir})
	a := uri.File(filepath.Join(dir, "a.js"))
	c.open(a, watchedProject["a.js"])
	refsOf(t, c, dir, a) // the index is built
	writeFiles(t, dir, map[string]string{"c.js": "api.rest.v1.get(\"crm\", {}, {});\n"})
	want := []string{"a.js:1:18", "c.js:1:18", "config/application.yml:3:18"}
	deadline := time.Now().Add(10 * time.Second)
	for got := refsOf(t, c, dir, a); !slices.Equal(got, want); got = refsOf(t, c, dir, a) {
		if time.Now().After(deadline) {
			t.Fatalf("references %q, want %q", got, want)
		}
	}
}

// TestRenameWithoutDocumentChanges: a client that does not announce
// workspaceEdit.documentChanges gets plain changes, configuration ones
// included (it has no way to be asked).
func TestRenameWithoutDocumentChanges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, watchedProject)
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}})
	yes := true
	c := connect(t, srv, clientOptions{root: dir, caps: protocol.ClientCapabilities{Window: &protocol.WindowClientCapabilities{WorkDoneProgress: &yes}}})
	a := uri.File(filepath.Join(dir, "a.js"))
	c.open(a, watchedProject["a.js"])
	var we protocol.WorkspaceEdit
	if err := c.call(protocol.MethodTextDocumentRename, &protocol.RenameParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: a}, Position: protocol.Position{Character: 18}},
		NewName:                    "crm2",
	}, &we); err != nil {
		t.Fatal(err)
	}
	var got []string
	for u, edits := range we.Changes {
		for _, e := range edits {
			got = append(got, locString(dir, u, e.Range.Start)+" "+e.NewText)
		}
	}
	sort.Strings(got)
	if want := []string{"a.js:1:18 crm2", "config/application.yml:3:18 crm2"}; !slices.Equal(got, want) || len(we.DocumentChanges) > 0 {
		t.Errorf("changes %q (documentChanges %d), want %q", got, len(we.DocumentChanges), want)
	}
}
