package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/workspace"
)

// The navigation markers (issue 26), checked by checkNavMarker:
//
//	//@refs(pos, decl|nodecl, "file:line:col", ...)  references at pos (with or without declarations) are exactly these; none = no answer
//	//@rename(pos, "new", "file:line", "text", ...) rename at pos to new: each named line (1-based) reads text afterwards;
//	                                               configuration edits are annotated as needing confirmation, script edits not
//	//@renamefail(pos, "new", "substring")          rename at pos to new is refused with a message holding substring
//	//@symbols(pos, "line", ...)                    the document's symbols, one per line, children indented by two spaces
//	//@wsymbols(pos, "query", "name | container", ...) workspace symbols for query are exactly these, in order
//	//@lens(pos, "title")                           a code lens on pos's line has this title
//	//@inlay(pos, "label")                          an inlay hint at pos has this label; none = no hint on the line
//	//@addentry(pos, "file", "line", ...)          the quick fix "Add serviceId ..." at pos edits file (created when absent)
//	                                               so that it holds each line; its command opens file at the url
//
// file is relative to the archive; col is 1-based in UTF-16 units.

func checkNavMarker(t *testing.T, c *testClient, s *script, m marker, pos protocol.Position, off int) bool {
	t.Helper()
	td := protocol.TextDocumentIdentifier{URI: s.u}
	tdp := protocol.TextDocumentPositionParams{TextDocument: td, Position: pos}
	dir := archiveDir(s)
	rest := m.args[1:]
	switch m.name {
	case "refs":
		var locs []protocol.Location
		if err := c.call(protocol.MethodTextDocumentReferences, &protocol.ReferenceParams{TextDocumentPositionParams: tdp,
			Context: protocol.ReferenceContext{IncludeDeclaration: rest[0] == "decl"}}, &locs); err != nil {
			t.Errorf("%s: references: %v", m.where, err)
			return true
		}
		var got []string
		for _, l := range locs {
			got = append(got, locString(dir, l.URI, l.Range.Start))
		}
		want := slices.Clone(rest[1:])
		if len(want) == 1 && want[0] == "none" {
			want = nil
		}
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: references\n\t%q\nwant\n\t%q", m.where, got, want)
		}
	case "rename", "renamefail":
		var raw json.RawMessage
		err := c.call(protocol.MethodTextDocumentRename, &protocol.RenameParams{TextDocumentPositionParams: tdp, NewName: rest[0]}, &raw)
		if m.name == "renamefail" {
			if err == nil || !strings.Contains(err.Error(), rest[1]) {
				t.Errorf("%s: rename to %q: %v (%s), want a refusal holding %q", m.where, rest[0], err, raw, rest[1])
			}
			return true
		}
		if err != nil {
			t.Errorf("%s: rename: %v", m.where, err)
			return true
		}
		var we protocol.WorkspaceEdit
		if err := protocol.Unmarshal(raw, &we); err != nil {
			t.Errorf("%s: bad workspace edit %s: %v", m.where, raw, err)
			return true
		}
		after := applyWorkspaceEdit(t, m.where, dir, &we)
		for i := 1; i+1 < len(rest); i += 2 {
			file, line, _ := strings.Cut(rest[i], ":")
			var n int
			fmt.Sscan(line, &n)
			text, ok := after[file]
			if !ok {
				t.Errorf("%s: rename did not edit %s", m.where, file)
				continue
			}
			lines := strings.Split(text, "\n")
			if n < 1 || n > len(lines) || codePart(lines[n-1]) != rest[i+1] {
				got := ""
				if n >= 1 && n <= len(lines) {
					got = codePart(lines[n-1])
				}
				t.Errorf("%s: after the rename %s reads\n\t%q\nwant\n\t%q", m.where, rest[i], got, rest[i+1])
			}
		}
	case "symbols":
		var syms []protocol.DocumentSymbol
		if err := c.call(protocol.MethodTextDocumentDocumentSymbol, &protocol.DocumentSymbolParams{TextDocument: td}, &syms); err != nil {
			t.Errorf("%s: documentSymbol: %v", m.where, err)
			return true
		}
		var got []string
		var walk func([]protocol.DocumentSymbol, string)
		walk = func(list []protocol.DocumentSymbol, indent string) {
			for _, sym := range list {
				got = append(got, indent+sym.Name)
				walk(sym.Children, indent+"  ")
			}
		}
		walk(syms, "")
		if !slices.Equal(got, rest) {
			t.Errorf("%s: symbols\n\t%q\nwant\n\t%q", m.where, got, rest)
		}
	case "wsymbols":
		var syms []protocol.WorkspaceSymbol
		if err := c.call(protocol.MethodWorkspaceSymbol, &protocol.WorkspaceSymbolParams{Query: rest[0]}, &syms); err != nil {
			t.Errorf("%s: workspace/symbol: %v", m.where, err)
			return true
		}
		var got []string
		for _, sym := range syms {
			container := ""
			if sym.ContainerName != nil {
				container = *sym.ContainerName
			}
			got = append(got, sym.Name+" | "+container)
		}
		if !slices.Equal(got, rest[1:]) {
			t.Errorf("%s: workspace symbols\n\t%q\nwant\n\t%q", m.where, got, rest[1:])
		}
	case "lens":
		var lenses []protocol.CodeLens
		if err := c.call(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: td}, &lenses); err != nil {
			t.Errorf("%s: codeLens: %v", m.where, err)
			return true
		}
		var titles []string
		for _, l := range lenses {
			if l.Range.Start.Line == pos.Line {
				titles = append(titles, l.Command.Title)
			}
		}
		if !slices.Equal(titles, rest) {
			t.Errorf("%s: code lens on line %d: %q, want %q", m.where, pos.Line+1, titles, rest)
		}
	case "inlay":
		var hs []protocol.InlayHint
		line := protocol.Range{Start: protocol.Position{Line: pos.Line}, End: protocol.Position{Line: pos.Line + 1}}
		if err := c.call(protocol.MethodTextDocumentInlayHint, &protocol.InlayHintParams{TextDocument: td, Range: line}, &hs); err != nil {
			t.Errorf("%s: inlayHint: %v", m.where, err)
			return true
		}
		var got []string
		for _, h := range hs {
			label, _ := h.Label.(protocol.String)
			if h.Position == pos || rest[0] == "none" {
				got = append(got, string(label))
			}
		}
		want := rest
		if rest[0] == "none" {
			want = nil
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: inlay hints at %d:%d: %q, want %q", m.where, pos.Line+1, pos.Character+1, got, want)
		}
	case "addentry":
		checkAddEntry(t, c, s, m, pos)
	default:
		return false
	}
	return true
}

// archiveDir is the directory the archive was written to.
func archiveDir(s *script) string {
	p := s.u.FsPath()
	for range strings.Count(s.name, "/") + 1 {
		p = filepath.Dir(p)
	}
	return p
}

func locString(dir string, u uri.URI, p protocol.Position) string {
	rel, err := filepath.Rel(dir, u.FsPath())
	if err != nil {
		rel = string(u)
	}
	return fmt.Sprintf("%s:%d:%d", filepath.ToSlash(rel), p.Line+1, p.Character+1)
}

// applyWorkspaceEdit applies documentChanges to the files on disk (as
// read, not written back) and returns the texts by archive name. It
// checks that configuration edits, and only they, need confirmation.
func applyWorkspaceEdit(t *testing.T, where, dir string, we *protocol.WorkspaceEdit) map[string]string {
	out := map[string]string{}
	for _, dc := range we.DocumentChanges {
		td, ok := dc.(*protocol.TextDocumentEdit)
		if !ok {
			t.Errorf("%s: document change %T", where, dc)
			continue
		}
		name := strings.Split(locString(dir, td.TextDocument.URI, protocol.Position{}), ":")[0]
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", where, err)
			continue
		}
		sc := &script{text: string(data), m: newMapper(string(data))}
		var edits []protocol.TextEdit
		for _, e := range td.Edits {
			switch e := e.(type) {
			case *protocol.AnnotatedTextEdit:
				a, ok := we.ChangeAnnotations[e.AnnotationID]
				if !isConfigDocument(name) || isDataFile(name) || !ok || a.NeedsConfirmation == nil || !*a.NeedsConfirmation {
					t.Errorf("%s: edit of %s annotated %q (%+v)", where, name, e.AnnotationID, a)
				}
				edits = append(edits, e.TextEdit)
			case *protocol.TextEdit:
				if isConfigDocument(name) && !isDataFile(name) {
					t.Errorf("%s: configuration edit of %s without an annotation", where, name)
				}
				edits = append(edits, *e)
			}
		}
		out[name] = applyEdits(sc, edits)
	}
	return out
}

// isDataFile reports whether name is a fixtures or test file: edited by
// a rename without asking, as scripts are. The archives keep the fixtures
// files that test files name under fixtures/.
func isDataFile(name string) bool {
	if workspace.IsTestFile(name) || strings.HasPrefix(name, "fixtures/") {
		return true
	}
	for _, suf := range workspace.MockSuffixes {
		if strings.HasSuffix(name, suf) {
			return true
		}
	}
	return false
}
