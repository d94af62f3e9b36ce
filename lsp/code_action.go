package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/hints"
)

// codeAction offers the quick fixes of the diagnostics that touch the
// requested range.
func (s *session) codeAction(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p protocol.CodeActionParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	v, ok := s.viewOf(p.TextDocument.URI)
	s.touch(p.TextDocument.URI) // it will hold a parsed AST
	ctx, done := s.detach(ctx, req)
	defer done()
	out := []protocol.CommandOrCodeAction{}
	if !ok || !wantsQuickFix(p.Context.Only) {
		return out, nil
	}
	start, end := v.d.m.fromRange(p.Range)
	kind := protocol.CodeActionKindQuickFix
	for _, d := range hints.Diagnose(v.d.doc, v.reg) {
		if len(d.Fixes) == 0 || d.Range.End < start || d.Range.Start > end {
			continue
		}
		diag := toDiagnostic(v.d.m, d)
		for _, f := range d.Fixes {
			edits := make([]protocol.TextEdit, 0, len(f.Edits))
			for _, e := range f.Edits {
				edits = append(edits, protocol.TextEdit{Range: v.d.m.toRange(e.Range), NewText: e.NewText})
			}
			preferred := f.Preferred
			out = append(out, &protocol.CodeAction{
				Title:       f.Title,
				Kind:        &kind,
				Diagnostics: []protocol.Diagnostic{diag},
				IsPreferred: &preferred,
				Edit:        &protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{v.d.uri: edits}},
			})
		}
	}
	return cancelled(ctx, out, nil)
}

func wantsQuickFix(only []protocol.CodeActionKind) bool {
	if len(only) == 0 {
		return true
	}
	for _, k := range only {
		if k == protocol.CodeActionKindQuickFix || k == "" {
			return true
		}
	}
	return false
}
