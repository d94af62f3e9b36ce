package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/restls/restls/hints"
)

// CheckOut is the check tool's answer.
type CheckOut struct {
	// Path is the script's path relative to the root ("" for text only).
	Path string `json:"path,omitempty"`
	// Kind is the kind the script was checked as, KindReason why.
	Kind       string `json:"kind"`
	KindReason string `json:"kindReason"`
	// Errors and Warnings count the diagnostics of those severities.
	Errors      int          `json:"errors"`
	Warnings    int          `json:"warnings"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Diagnostic is one problem in a script, as the editor shows it.
type Diagnostic struct {
	// Code is stable, documented in docs/diagnostics.md.
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Range    Span   `json:"range"`
	// Fixes are the quick fixes the editor offers: apply one's edits to
	// the text checked, from the last to the first.
	Fixes []Fix `json:"fixes,omitempty"`
}

// Fix is a quick fix: edits to the script's text.
type Fix struct {
	Title     string `json:"title"`
	Preferred bool   `json:"preferred,omitempty"`
	Edits     []Edit `json:"edits"`
}

// Edit replaces Range of the text checked with NewText.
type Edit struct {
	Range   Span   `json:"range"`
	NewText string `json:"newText"`
}

func (s *Server) check(ctx context.Context, _ *sdk.CallToolRequest, in ScriptArg) (*sdk.CallToolResult, CheckOut, error) {
	sc, err := s.script(ctx, in)
	if err != nil {
		return nil, CheckOut{}, err
	}
	out := CheckOut{Kind: string(sc.kind), KindReason: sc.reason, Diagnostics: []Diagnostic{}}
	if in.Path != "" {
		out.Path = s.rel(sc.abs)
	}
	for _, d := range hints.Diagnose(sc.doc, sc.reg, s.display(sc.snap, sc, sc.reg)) {
		e := Diagnostic{Code: d.Code, Severity: severity(d.Severity), Message: d.Message, Range: sc.span(d.Range)}
		for _, f := range d.Fixes {
			fx := Fix{Title: f.Title, Preferred: f.Preferred, Edits: []Edit{}}
			for _, ed := range f.Edits {
				fx.Edits = append(fx.Edits, Edit{Range: sc.span(ed.Range), NewText: ed.NewText})
			}
			e.Fixes = append(e.Fixes, fx)
		}
		switch d.Severity {
		case hints.SeverityError:
			out.Errors++
		case hints.SeverityWarning:
			out.Warnings++
		}
		out.Diagnostics = append(out.Diagnostics, e)
	}
	return nil, out, nil
}

func severity(s hints.Severity) string {
	switch s {
	case hints.SeverityError:
		return "error"
	case hints.SeverityWarning:
		return "warning"
	case hints.SeverityInfo:
		return "info"
	}
	return "hint"
}
