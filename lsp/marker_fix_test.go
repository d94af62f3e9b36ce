package lsp

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
)

// checkAddEntry checks the addentry marker (marker_nav_test.go): the
// quick fix that adds a skeleton entry for an unknown serviceId to the
// XML file of the script's kind.
func checkAddEntry(t *testing.T, c *testClient, s *script, m marker, pos protocol.Position) {
	t.Helper()
	rest := m.args[1:]
	var actions []json.RawMessage
	if err := c.call(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: s.u}, Range: protocol.Range{Start: pos, End: pos},
	}, &actions); err != nil {
		t.Errorf("%s: codeAction: %v", m.where, err)
		return
	}
	dir := archiveDir(s)
	want := uri.File(filepath.Join(dir, filepath.FromSlash(rest[0])))
	var titles []string
	for _, raw := range actions {
		var a protocol.CodeAction
		if err := protocol.Unmarshal(raw, &a); err != nil {
			t.Errorf("%s: bad code action %s: %v", m.where, raw, err)
			return
		}
		titles = append(titles, a.Title)
		if !strings.HasPrefix(a.Title, "Add serviceId") {
			continue
		}
		if a.Edit == nil {
			t.Errorf("%s: %q has no edit", m.where, a.Title)
			return
		}
		text, created := "", false
		var edits []protocol.TextEdit
		for _, dc := range a.Edit.DocumentChanges {
			switch dc := dc.(type) {
			case *protocol.CreateFile:
				created = dc.URI == want
			case *protocol.TextDocumentEdit:
				if dc.TextDocument.URI != want {
					t.Errorf("%s: edit of %s, want %s", m.where, dc.TextDocument.URI, want)
				}
				for _, e := range dc.Edits {
					if e, ok := e.(*protocol.TextEdit); ok {
						edits = append(edits, *e)
					}
				}
			}
		}
		data, err := os.ReadFile(want.FsPath())
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if !created {
				t.Errorf("%s: %s does not exist and the edit does not create it", m.where, rest[0])
			}
		case err != nil:
			t.Fatal(err)
		default:
			text = string(data)
			if created {
				t.Errorf("%s: the edit creates %s, which exists", m.where, rest[0])
			}
		}
		got := applyEdits(&script{text: text, m: newMapper(text)}, edits)
		for _, line := range rest[1:] {
			if !strings.Contains(got, line) {
				t.Errorf("%s: after %q, %s lacks %q:\n%s", m.where, a.Title, rest[0], line, got)
			}
		}
		// Its command opens the file on the url to fill in.
		var args ShowEntryArgs
		if a.Command.Command != CommandShowEntry || len(a.Command.Arguments) != 1 || json.Unmarshal([]byte(a.Command.Arguments[0]), &args) != nil || args.URI != want {
			t.Errorf("%s: command %+v, want %s on %s", m.where, a.Command, CommandShowEntry, want)
			return
		}
		gm := newMapper(got)
		if start, end := gm.fromRange(args.Range); got[start:end] != config.SkeletonURL {
			t.Errorf("%s: %s selects %q, want the url", m.where, CommandShowEntry, got[start:end])
		}
		return
	}
	t.Errorf("%s: no action \"Add serviceId ...\"; got %q", m.where, titles)
}
