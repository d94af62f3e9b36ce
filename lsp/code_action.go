package lsp

import (
	"context"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/hints"
)

// codeAction offers the quick fixes of the diagnostics that touch the
// requested range.
func (s *session) codeAction(ctx context.Context, p *protocol.CodeActionParams, t viewed) (any, error) {
	v, ok := t.view, t.ok
	out := []protocol.CommandOrCodeAction{}
	if !ok || !wantsQuickFix(p.Context.Only) {
		return out, nil
	}
	start, end := v.d.m.fromRange(p.Range)
	kind := protocol.CodeActionKindQuickFix
	for _, d := range withFaults(s.diagnosticsOf(v), s.faultDiagnostics(v.d)) {
		if len(d.Fixes) == 0 && d.Code != hints.CodeUnknownService && d.Code != CodeFault || d.Range.End < start || d.Range.Start > end {
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
		if d.Code == CodeFault {
			out = append(out, s.faultCaseActions(v, d, diag)...)
		}
		if a := s.skeletonAction(v, d, diag); a != nil {
			out = append(out, a)
		}
	}
	out = append(out, s.fixtureActions(v, start, end)...)
	return out, nil
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

// diagnosticsOf returns the diagnostics of the view's document: the ones
// last published when they are for this text and registry (the usual case:
// editors ask for code actions as the cursor moves), else computed on a
// throwaway document so no syntax tree stays behind.
func (s *session) diagnosticsOf(v view) []hints.Diagnostic {
	c, ok := s.diagnostics.cached(v.d.uri)
	if ok && c.reg == v.reg && c.d.version == v.d.version && c.d.doc.Text() == v.d.doc.Text() {
		return c.diags
	}
	release, err := s.srv.parsing(s.ctx, len(v.d.doc.Text()))
	if err != nil {
		return nil
	}
	defer release()
	return hints.Diagnose(hints.NewDocument(v.d.doc.Text()), v.reg, s.displayFor(v))
}

// withFaults is diags with the fault warnings of the document's last
// exploration in place of any they hold: those come from the
// exploration, not the text, and a cached publish may predate it.
func withFaults(diags, fault []hints.Diagnostic) []hints.Diagnostic {
	out := make([]hints.Diagnostic, 0, len(diags)+len(fault))
	for _, d := range diags {
		if d.Code != CodeFault {
			out = append(out, d)
		}
	}
	return append(out, fault...)
}
