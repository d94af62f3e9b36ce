package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"
)

// CommandShowReferences is the command of a configuration entry's code
// lens: arguments are the entry's URI and position, as VS Code's
// editor.action.findReferences takes them; the client maps it to its own
// references view, which asks textDocument/references there. The calls'
// locations are not sent: a file of 10,000 entries would carry them all
// in one answer.
const CommandShowReferences = "restls.showReferences"

// codeLens puts on each api entry of a configuration file how many
// scripts of the kinds that read the file call it ("3 scripts call this",
// which opens them) or that none does.
func (s *session) codeLens(ctx context.Context, p *protocol.CodeLensParams, m *mapper) (any, error) {
	out := []protocol.CodeLens{}
	if isTestDocument(hostPaths.fsPath(p.TextDocument.URI)) {
		return s.testLenses(p.TextDocument.URI), nil // testfile_lens.go
	}
	if !isConfigDocument(hostPaths.fsPath(p.TextDocument.URI)) {
		if lenses := s.faultLenses(p.TextDocument.URI); lenses != nil {
			return lenses, nil // faults_lens.go
		}
		return out, nil
	}
	if m == nil {
		return out, nil
	}
	ni := s.navIndexFor(ctx)
	if ni == nil {
		return out, nil
	}
	for _, e := range entriesOf(ni, hostPaths.fsPath(p.TextDocument.URI)) {
		if e.OAuth || e.ID == "" {
			continue
		}
		r := entryRange(m, e.IDSpan, e.IDAt)
		lens := protocol.CodeLens{Range: r}
		switch n := ni.Index().Callers(e.ID, e.Kinds); n {
		case 0:
			lens.Command = protocol.Command{Title: "not called by any script"}
		case 1:
			lens.Command = protocol.Command{Title: "1 script calls this", Command: CommandShowReferences}
		default:
			lens.Command = protocol.Command{Title: fmt.Sprintf("%d scripts call this", n), Command: CommandShowReferences}
		}
		if lens.Command.Command != "" {
			lens.Command.Arguments = lspArgs(p.TextDocument.URI, r.Start)
		}
		out = append(out, lens)
	}
	return out, nil
}

// lspArgs encodes command arguments; one that does not encode is left
// out (none of restls' does not).
func lspArgs(args ...any) []protocol.LSPAny {
	out := make([]protocol.LSPAny, 0, len(args))
	for _, a := range args {
		if v, err := protocol.Marshal(a); err == nil {
			out = append(out, protocol.LSPAny(v))
		}
	}
	return out
}
