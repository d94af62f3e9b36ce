package lsp

import (
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// The "Faults" code lens of fault exploration (faults.go): one above
// each call site of a script explored as it is (code_lens.go asks).

// faultLenses are the "Faults" lenses of a script explored as it is.
func (s *session) faultLenses(u uri.URI) []protocol.CodeLens {
	d := s.document(u)
	if d == nil {
		return nil
	}
	e := s.exploredOf(d)
	if e == nil {
		return nil
	}
	out := []protocol.CodeLens{}
	for i, r := range placeSites(d.doc, d.m, e.rep) {
		title := "Faults: " + tally(e.rep, i)
		if len(e.rep.Findings) == 0 {
			title = "Faults: not explored (--max-runs)"
		}
		pr := d.m.toRange(r)
		out = append(out, protocol.CodeLens{Range: pr, Command: protocol.Command{
			Title: title, Command: CommandExploreFaults, Arguments: lspArgs(map[string]string{"uri": string(u)}),
		}})
	}
	return out
}
