package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/restls/restls/hints"
)

func (s *session) hover(ctx context.Context, p *protocol.HoverParams, t viewed) (any, error) {
	v, ok := t.view, t.ok
	if !ok {
		return nil, nil
	}
	h, ok := hints.HoverAt(v.d.doc, v.d.m.offset(p.Position), v.reg, s.displayFor(v))
	if !ok {
		return nil, nil
	}
	r := v.d.m.toRange(h.Range)
	return &protocol.Hover{Contents: markdown(h.Markdown), Range: &r}, nil
}
