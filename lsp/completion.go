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
	off := v.d.m.offset(p.Position)
	c := hints.Complete(v.d.doc, off, v.reg)
	if ctx.Err() != nil {
		return cancelled(ctx, nil, nil)
	}
	items := make([]protocol.CompletionItem, 0, len(c.Items))
	for _, it := range c.Items {
		items = append(items, toCompletionItem(v.d.m, it, v.caps.snippets))
	}
	return cancelled(ctx, &protocol.CompletionList{IsIncomplete: c.Incomplete, Items: items}, nil)
}
