package lsp

import (
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/textpos"
)

// The diagnostics of a test file (testfile.go): the problem that makes
// restls test fail it, published with the other documents'
// (session_diagnostics.go), again when a file it names comes or goes.

// testFilesMayHaveChanged diagnoses the open test files again: a file
// one names (its script, its fixtures) may have appeared or gone.
func (s *session) testFilesMayHaveChanged() {
	if !s.testFiles() {
		return
	}
	var tests []uri.URI
	for _, u := range s.openURIs() {
		if isTestDocument(hostPaths.fsPath(u)) {
			tests = append(tests, u)
		}
	}
	if len(tests) > 0 {
		s.markDirty(tests...)
	}
}

// testDiagnostics diagnoses an open test file: the problem that makes
// restls test fail it, at its line and, when known, the word at its
// column.
func (s *session) testDiagnostics(d *document) []protocol.Diagnostic {
	out := []protocol.Diagnostic{}
	if !s.testFiles() {
		return out
	}
	o := s.srv.opts.Tests.Outline(d.path, []byte(d.doc.Text()))
	if o.Problem == nil {
		return out
	}
	return append(out, protocol.Diagnostic{
		Range:    problemRange(d.m, o.Problem),
		Severity: protocol.DiagnosticSeverityError,
		Source:   protocol.NewOptional("restls"),
		Code:     protocol.String("test-file"),
		Message:  protocol.String(o.Problem.Message),
	})
}

// problemRange is the word at the problem's 1-based line and column (a
// key, a file name), else the line without its indentation.
func problemRange(m *mapper, p *TestProblem) protocol.Range {
	r := m.lineRange(p.Line)
	start, end := m.fromRange(r)
	line := m.Text()[start:end]
	from := len(line) - len(strings.TrimLeft(line, " \t-"))
	if p.Column > 0 && p.Line >= 1 && p.Line <= m.Lines() {
		if off := int(m.OffsetOfRunes(textpos.RunePos{Line: p.Line, Col: p.Column})); off < end {
			from = off - start
		}
	}
	to := from
	for to < len(line) && !strings.ContainsRune(" \t:,{}[]#", rune(line[to])) {
		to++
	}
	if to == from {
		to = len(strings.TrimRight(line, " \t"))
	}
	return protocol.Range{Start: m.position(start + from), End: m.position(start + max(to, from))}
}
