package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/faults"
	"github.com/restls/restls/hints"
	"github.com/restls/restls/workspace"
)

// The quick fixes of a fault warning (faults_diagnostics.go): add a
// failing outcome as a case of the script's test file (code_action.go
// asks).

// faultCaseActions are the quick fixes of a fault warning: per failing
// outcome of its call site, add the case of that outcome (faults.CaseOf)
// to the script's test file (NAME.test.yaml beside it), created if
// absent. A case of the same name already there is not added again.
func (s *session) faultCaseActions(v view, d hints.Diagnostic, diag protocol.Diagnostic) []protocol.CommandOrCodeAction {
	e := s.exploredOf(v.d)
	if e == nil || v.d.path == "" || s.opts.ShowPath != nil {
		return nil
	}
	site := -1
	for i, r := range placeSites(v.d.doc, v.d.m, e.rep) {
		if r == d.Range {
			site = i
		}
	}
	if site < 0 {
		return nil
	}
	file := workspace.TestFileOf(v.d.path)
	if workspace.TestFileWritable(v.d.path, file) != nil {
		return nil
	}
	u := hostPaths.fileURI(cleanAbs(file))
	var old []byte
	if td := s.document(u); td != nil {
		old = []byte(td.doc.Text())
	} else {
		var err error
		if old, err = workspace.TestFileText(v.d.path, file); err != nil {
			return nil
		}
	}
	if old == nil && !s.caps.documentChanges {
		return nil
	}
	kind := protocol.CodeActionKindQuickFix
	var out []protocol.CommandOrCodeAction
	for _, f := range e.rep.Findings {
		if f.Site != site || !e.rep.Fails(f) {
			continue
		}
		c := faults.CaseOf(e.rep, f)
		if old != nil && bytes.Contains(old, []byte(fmt.Sprintf("%q", c.Name))) {
			continue
		}
		we, ok := addCase(u, old, filepath.Base(v.d.path), fixturesKey(file, e.fixtures), c, e.input)
		if !ok {
			continue
		}
		out = append(out, &protocol.CodeAction{Title: fmt.Sprintf("Add a test case: %s answers %s (%s)", site0(e.rep, site), f.Outcome, filepath.Base(file)),
			Kind: &kind, Diagnostics: []protocol.Diagnostic{diag}, Edit: we})
	}
	return out
}

func site0(rep *faults.Report, i int) string {
	s := rep.Sites[i]
	return s.Method + " " + s.ServiceID
}

// addCase is the edit that adds c to the test file u (text old, nil when
// it does not exist: then it is created naming script); false when old
// is a test file whose cases list it cannot find (a file that is one
// case: its author makes it a list first).
func addCase(u uri.URI, old []byte, script, fixtures string, c faults.Case, input json.RawMessage) (*protocol.WorkspaceEdit, bool) {
	if old == nil {
		yes := true
		text := fmt.Sprintf("# Tests of %s (restls test, docs/ci.md); the faults cases came from the editor's exploration:\n# confirm or correct what each expects.\nscript: %s\n%scases:\n%s", script, script, fixtures, c.YAML("  ", input))
		return &protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{
			&protocol.CreateFile{Kind: "create", URI: u, Options: &protocol.CreateFileOptions{IgnoreIfExists: &yes}},
			&protocol.TextDocumentEdit{TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}},
				Edits: []protocol.TextDocumentEditElement{&protocol.TextEdit{NewText: text}}},
		}}, true
	}
	at, indent, ok := casesEnd(old)
	if !ok {
		return nil, false
	}
	text := c.YAML(indent, input)
	if at == len(old) && len(old) > 0 && old[len(old)-1] != '\n' {
		text = "\n" + text
	}
	m := newFileMapper(string(old))
	pos := m.position(at)
	if at == len(old) {
		pos = endPosition(old)
	}
	return &protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{u: {{Range: protocol.Range{Start: pos, End: pos}, NewText: text}}}}, true
}

// fixturesKey is the fixtures line of a new test file (test) whose
// cases' other calls the fixtures file answers, as the exploration's
// were: "" when there is none.
func fixturesKey(test, fixtures string) string {
	if fixtures == "" {
		return ""
	}
	rel, err := filepath.Rel(filepath.Dir(test), fixtures)
	if err != nil {
		return ""
	}
	return "fixtures: " + strconv.Quote(filepath.ToSlash(rel)) + "\n"
}

// casesEnd is the byte offset where a new item of the top-level cases
// list goes (the start of the line after its last item: the next
// top-level key, else the end), and the indent of its items.
func casesEnd(text []byte) (at int, indent string, ok bool) {
	lines := bytes.SplitAfter(text, []byte("\n"))
	off, in := 0, false
	indent = "  "
	seenItem := false
	for _, l := range lines {
		trim := bytes.TrimRight(l, "\r\n")
		switch {
		case !in && bytes.HasPrefix(trim, []byte("cases:")) && len(bytes.TrimSpace(trim[len("cases:"):])) == 0:
			in = true
		case in && len(trim) > 0 && trim[0] != ' ' && trim[0] != '#' && trim[0] != '-':
			return off, indent, seenItem
		case in && !seenItem:
			t := bytes.TrimLeft(trim, " ")
			if bytes.HasPrefix(t, []byte("- ")) || bytes.Equal(t, []byte("-")) {
				indent, seenItem = string(trim[:len(trim)-len(t)]), true
			}
		}
		off += len(l)
	}
	return len(text), indent, in && seenItem
}
