package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// CommandShowReferences is the command of a configuration entry's code
// lens: arguments are the entry's URI and position and the locations of
// its calls, as VS Code's editor.action.showReferences takes them; the
// client maps it to its own references view.
const CommandShowReferences = "restls.showReferences"

// codeLens puts on each api entry of a configuration file how many
// scripts of the kinds that read the file call it ("3 scripts call this",
// which opens them) or that none does.
func (s *session) codeLens(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p protocol.CodeLensParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	m := s.navMapper(p.TextDocument.URI)
	ctx, done := s.detach(ctx, req)
	defer done()
	out := []protocol.CodeLens{}
	if m == nil || !isConfigDocument(hostPaths.fsPath(p.TextDocument.URI)) {
		return cancelled(ctx, out, nil)
	}
	ni := s.navIndexFor(ctx)
	if ni == nil {
		return cancelled(ctx, out, nil)
	}
	ms := s.newMappers()
	for _, e := range entriesOf(ni, hostPaths.fsPath(p.TextDocument.URI)) {
		if e.OAuth || e.ID == "" {
			continue
		}
		r := entryRange(m, e.IDSpan, e.IDAt)
		refs := ni.ix.References(e.ID, e.Kinds)
		scripts := map[string]bool{}
		locs := make([]protocol.Location, 0, len(refs.Calls))
		for _, ref := range refs.Calls {
			scripts[ref.Script.Path] = true
			c := ref.Site()
			locs = append(locs, navLocation(ref.Script.Path, ms.script(ref.Script), c.IDRange.Start, c.IDRange.End))
		}
		lens := protocol.CodeLens{Range: r}
		switch n := len(scripts); n {
		case 0:
			lens.Command = protocol.Command{Title: "not called by any script"}
		case 1:
			lens.Command = protocol.Command{Title: "1 script calls this", Command: CommandShowReferences}
		default:
			lens.Command = protocol.Command{Title: fmt.Sprintf("%d scripts call this", n), Command: CommandShowReferences}
		}
		if len(locs) > 0 {
			lens.Command.Arguments = lspArgs(p.TextDocument.URI, r.Start, locs)
		}
		out = append(out, lens)
	}
	return cancelled(ctx, out, nil)
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
