package mcp

import (
	"context"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/restls/restls/hints"
)

// CompleteIn is the complete tool's input.
type CompleteIn struct {
	ScriptArg
	Line   int `json:"line" jsonschema:"the cursor's line, from 1"`
	Column int `json:"column" jsonschema:"the cursor's column, from 1, in characters: the completion is for the text before it"`
	Limit  int `json:"limit,omitempty" jsonschema:"at most this many items (default and maximum 500)"`
}

// CompleteOut is the complete tool's answer.
type CompleteOut struct {
	Items []CompletionItem `json:"items"`
	// Incomplete: typing more may offer items not listed; Truncated:
	// the limit left some out.
	Incomplete bool `json:"incomplete,omitempty"`
	Truncated  bool `json:"truncated,omitempty"`
}

// CompletionItem is what the editor offers at a position.
type CompletionItem struct {
	Label  string `json:"label"`
	Kind   string `json:"kind"`
	Detail string `json:"detail,omitempty"`
	// InsertText replaces Replace; Snippet: it has $1 / ${1:name}
	// placeholders.
	InsertText    string `json:"insertText"`
	Snippet       bool   `json:"snippet,omitempty"`
	Replace       Span   `json:"replace"`
	Documentation string `json:"documentation,omitempty"`
}

// maxDoc bounds an item's documentation.
const maxDoc = 2000

func (s *Server) complete(ctx context.Context, _ *sdk.CallToolRequest, in CompleteIn) (*sdk.CallToolResult, CompleteOut, error) {
	sc, err := s.script(ctx, in.ScriptArg)
	if err != nil {
		return nil, CompleteOut{}, err
	}
	off, err := sc.offset(Pos{Line: in.Line, Column: in.Column})
	if err != nil {
		return nil, CompleteOut{}, err
	}
	c := hints.AppendCompletion(nil, sc.doc, off, sc.reg, hints.CompleteOptions{Display: s.display(sc.snap, sc, sc.reg)})
	out := CompleteOut{Items: []CompletionItem{}, Incomplete: c.Incomplete}
	limit := s.limit(in.Limit)
	for _, it := range c.Items {
		if len(out.Items) == limit {
			out.Truncated = true
			break
		}
		ins := it.InsertText
		if ins == "" {
			ins = it.Label
		}
		doc := it.Documentation
		doc = cut(doc, maxDoc)
		out.Items = append(out.Items, CompletionItem{Label: it.Label, Kind: itemKind(it.Kind), Detail: it.Detail, InsertText: ins, Snippet: it.Snippet,
			Replace: sc.span(it.Replace), Documentation: doc})
	}
	return nil, out, nil
}

func itemKind(k hints.ItemKind) string {
	switch k {
	case hints.ItemFunction:
		return "function"
	case hints.ItemModule:
		return "module"
	case hints.ItemField:
		return "field"
	case hints.ItemValue:
		return "value"
	case hints.ItemProperty:
		return "property"
	}
	return "text"
}

// cut is s cut to at most n bytes on a character's boundary, "…" marking
// the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
