package lsp

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"
)

// refresher asks the client to request something again: its code lenses
// (workspace/codeLens/refresh) or inlay hints (workspace/inlayHint/refresh)
// after the diagnostics worker published a change. A client asks for a
// document's lenses and hints when that document changes, so without it the
// reference counts on application.yml, the test files' lenses and the
// addresses shown after each serviceId stay as they were when a script or
// the configuration changed elsewhere (another editor, git, a generator).
// One request is in flight at a time; changes meanwhile send one more after
// it.
type refresher struct {
	method   string
	mu       sync.Mutex
	inFlight bool
	again    bool
}

// refreshTimeout bounds the wait for the client's answer.
const refreshTimeout = 10 * time.Second

// refresh sends r's request when can (the client declared refreshSupport).
// It never waits: the call runs on its own goroutine, as every call to the
// client must not run on the read goroutine.
func (s *session) refresh(ctx context.Context, r *refresher, can bool) {
	if !can {
		return
	}
	r.mu.Lock()
	if r.inFlight {
		r.again = true
		r.mu.Unlock()
		return
	}
	r.inFlight = true
	r.mu.Unlock()
	s.bg.Go(func() {
		for {
			s.safely(r.method, func() {
				cctx, cancel := context.WithTimeout(ctx, refreshTimeout)
				defer cancel()
				if _, err := s.conn.Call(cctx, r.method, nil, nil); err != nil {
					s.log.Debug("refresh request failed", zap.String("method", r.method), zap.Error(err))
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
	})
}

// refreshAfterPublish is what the diagnostics worker calls after a pass:
// lenses after any change (a script's calls change the counts), inlay hints
// after a configuration change (they show each service's address and
// credentials).
func (s *session) refreshAfterPublish(ctx context.Context, configChanged bool) {
	s.mu.Lock()
	caps := s.caps
	s.mu.Unlock()
	s.refresh(ctx, &s.lenses, caps.lensRefresh)
	if configChanged {
		s.refresh(ctx, &s.inlays, caps.inlayRefresh)
	}
}
