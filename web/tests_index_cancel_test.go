package web

import (
	"context"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
)

// TestDesignerTestsIndexOutlivesTheFirstRequest: the first request of
// the test files builds the session's shared project index; a client
// that has left (its context done) does not cut that build short, so
// the request and every later one see the whole index, not a partial
// one or none.
func TestDesignerTestsIndexOutlivesTheFirstRequest(t *testing.T) {
	t.Parallel()
	root := testProject(t)
	eng := engine.New(engine.Options{Isolation: engine.InProcess})
	s, _ := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.Runner, o.TestRoot, o.Admit = eng.Run, root, eng.Admit
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the page was reloaded while its first request waited
	tests, _, err := s.projectTests(ctx)
	if err != nil || len(tests) != 1 {
		t.Fatalf("the first request, its client gone: %d test files, error %v; want the one test file", len(tests), err)
	}
	sess := s.opts.Session
	pi, isNew, err := sess.ProjectIndex(root, sess.Registry(), sess.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	if isNew || len(pi.Tests()) != 1 {
		t.Errorf("after the first request, the shared index is new %v with %d test files; want the built one with its test file", isNew, len(pi.Tests()))
	}
}
