package lsp

import (
	"context"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// lensRefresher asks the client to request its code lenses again
// (workspace/codeLens/refresh) after the diagnostics worker published a
// change: a client asks for a document's lenses when that document
// changes, so without it the reference counts on application.yml and the
// test files' lenses stay as they were when a script or the
// configuration changed elsewhere (another editor, git, a generator).
// One request is in flight at a time; changes meanwhile send one more
// after it.
type lensRefresher struct {
	mu       sync.Mutex
	inFlight bool
	again    bool
}

// lensRefreshTimeout bounds the wait for the client's answer.
const lensRefreshTimeout = 10 * time.Second

// refreshLenses sends workspace/codeLens/refresh when the client supports
// it. It never waits: the call runs on its own goroutine, as every call
// to the client must not run on the read goroutine.
func (s *session) refreshLenses(ctx context.Context) {
	s.mu.Lock()
	can := s.caps.lensRefresh
	s.mu.Unlock()
	if !can {
		return
	}
	r := &s.lenses
	r.mu.Lock()
	if r.inFlight {
		r.again = true
		r.mu.Unlock()
		return
	}
	r.inFlight = true
	r.mu.Unlock()
	go func() {
		for {
			s.safely("codeLens refresh", func() {
				cctx, cancel := context.WithTimeout(ctx, lensRefreshTimeout)
				defer cancel()
				if _, err := s.conn.Call(cctx, protocol.MethodWorkspaceCodeLensRefresh, nil, nil); err != nil {
					s.log.Debug("workspace/codeLens/refresh failed", zap.Error(err))
				}
			})
			r.mu.Lock()
			if !r.again || ctx.Err() != nil {
				r.inFlight, r.again = false, false
				r.mu.Unlock()
				return
			}
			r.again = false
			r.mu.Unlock()
		}
	}()
}
