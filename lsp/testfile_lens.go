package lsp

import (
	"fmt"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// The code lenses of a test file (testfile.go): "Run test" above each
// case and "Run all tests" above a file of several (code_lens.go asks).

// testLenses are a test file's lenses: "Run test" above each case, and
// "Run all tests" above the first line of a file of several.
func (s *session) testLenses(u uri.URI) []protocol.CodeLens {
	out := []protocol.CodeLens{}
	d := s.document(u)
	if d == nil || !s.testFiles() {
		return out
	}
	o := s.srv.opts.Tests.Outline(d.path, []byte(d.doc.Text()))
	if o.Problem != nil {
		return out
	}
	m := d.m
	if len(o.Cases) > 1 {
		r := m.lineRange(1)
		r.End = r.Start
		out = append(out, protocol.CodeLens{Range: r, Command: protocol.Command{
			Title: fmt.Sprintf("Run all %d tests", len(o.Cases)), Command: CommandRunTests,
			Arguments: lspArgs(TestArgs{URI: string(u), Show: true}),
		}})
	}
	for _, c := range o.Cases {
		r := m.lineRange(c.Line)
		r.End = r.Start
		out = append(out, protocol.CodeLens{Range: r, Command: protocol.Command{
			Title: "Run test", Command: CommandRunTests,
			Arguments: lspArgs(TestArgs{URI: string(u), Name: c.Name, Show: true}),
		}})
	}
	return out
}
