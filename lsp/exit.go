package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
)

// exit ends the session; ServeStream then returns (nil after shutdown,
// ErrNoShutdown otherwise, which the stdio command turns into exit status 1
// as the specification asks).
func (s *session) exit(context.Context, *jsonrpc2.Request) (any, error) {
	s.mu.Lock()
	s.exited = true
	for _, cancel := range s.inflight {
		cancel()
	}
	s.mu.Unlock()
	s.end()
	return nil, nil
}
