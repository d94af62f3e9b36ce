package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
)

// initialized starts what needs the client: pulling settings, registering
// file watchers, the first status. Those are calls to the client, so they
// run off the read goroutine.
func (s *session) initialized(ctx context.Context, _ *jsonrpc2.Request) (any, error) {
	s.markConfigDirty()
	s.startProjectIndex() // in the background, after the registry's first load
	s.bg.Go(func() {
		s.safely("initialized", func() {
			s.pullSettings(s.ctx)
			s.registerWatchers(s.ctx)
		})
	})
	return nil, nil
}
