package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/restls/restls/hints"
)

// completion answers from the hint engine. A document that is not open or a
// registry that failed to load gives fewer items, never an error.
func (s *session) completion(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p protocol.CompletionParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	v, ok := s.viewOf(p.TextDocument.URI)
	ctx, done := s.detach(ctx, req)
	defer done()
	if !ok {
		return &protocol.CompletionList{Items: []protocol.CompletionItem{}}, nil
	}
	return cancelled(ctx, completionList(v, p.Position), nil)
}

// completionList is the work of a completion request once the view is
// taken: what the server-side benchmark measures.
func completionList(v view, pos protocol.Position) *protocol.CompletionList {
	c := hints.Complete(v.d.doc, v.d.m.offset(pos), v.reg)
	items := make([]protocol.CompletionItem, 0, len(c.Items))
	for _, it := range c.Items {
		items = append(items, toCompletionItem(v.d.m, it, v.caps.snippets))
	}
	return &protocol.CompletionList{IsIncomplete: c.Incomplete, Items: items}
}
