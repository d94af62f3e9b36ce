package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
)

// shutdown answers null and from then on refuses every request but exit.
func (s *session) shutdown(context.Context, *jsonrpc2.Request) (any, error) {
	s.mu.Lock()
	s.state = stateShutdown
	for _, cancel := range s.inflight {
		cancel()
	}
	s.mu.Unlock()
	s.log.Info("shutdown")
	return nil, nil
}
