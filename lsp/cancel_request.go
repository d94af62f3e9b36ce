package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// cancelRequest cancels an in-flight request; the request then answers
// RequestCancelled (-32800). It runs in arrival order, so it always sees a
// request that arrived before it.
func (s *session) cancelRequest(_ context.Context, req *jsonrpc2.Request, p *protocol.CancelParams) (any, error) {
	var id jsonrpc2.ID
	switch v := p.ID.(type) {
	case protocol.Integer:
		id = jsonrpc2.NewNumberID(int64(v))
	case protocol.String:
		id = jsonrpc2.NewStringID(string(v))
	default:
		return nil, nil
	}
	s.mu.Lock()
	cancel := s.inflight[id]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil, nil
}
