package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/restls/restls/hints"
)

func (s *session) hover(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p protocol.HoverParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	v, ok := s.scriptViewOf(p.TextDocument.URI)
	ctx, done := s.detach(ctx, req)
	defer done()
	if !ok {
		return nil, nil
	}
	h, ok := hints.HoverAt(v.d.doc, v.d.m.offset(p.Position), v.reg, s.displayFor(v))
	if !ok {
		return cancelled(ctx, nil, nil)
	}
	r := v.d.m.toRange(h.Range)
	return cancelled(ctx, &protocol.Hover{Contents: markdown(h.Markdown), Range: &r}, nil)
}
