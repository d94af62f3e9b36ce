package isolate

import (
	"context"
	"io"
	"testing"
)

// TestSessionLivesUntilStopped: a session's child lives until Stop (no
// run's time limit), then is gone, reaped.
func TestSessionLivesUntilStopped(t *testing.T) {
	t.Setenv("ISOLATE_TEST_CHILD", "block")
	s, err := StartSession(context.Background(), SessionOptions{MaxMemory: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if processGone(s.Pid) {
		t.Fatalf("child %d is gone before Stop", s.Pid)
	}
	out := s.Stop()
	if !out.Canceled || out.State == nil {
		t.Errorf("outcome %+v, want canceled and reaped", out)
	}
	if !processGone(s.Pid) {
		t.Errorf("child %d still exists after Stop", s.Pid)
	}
	s.Stop() // a second Stop does nothing more
}

// TestSessionOutputReadToItsEnd: everything a child wrote before it
// ended is read, then the end.
func TestSessionOutputReadToItsEnd(t *testing.T) {
	t.Setenv("ISOLATE_TEST_CHILD", "garbage")
	s, err := StartSession(context.Background(), SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	<-s.Done()
	b, err := io.ReadAll(s.Out)
	if err != nil || string(b) != `{"result":` {
		t.Errorf("read %q, %v; want what the child wrote, then the end", b, err)
	}
	s.Stop()
}

// TestSessionEndsWithItsContext: the end of the context kills the child.
func TestSessionEndsWithItsContext(t *testing.T) {
	t.Setenv("ISOLATE_TEST_CHILD", "block")
	ctx, cancel := context.WithCancel(context.Background())
	s, err := StartSession(ctx, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	<-s.Done()
	if !processGone(s.Pid) {
		t.Errorf("child %d still exists after its context ended", s.Pid)
	}
	_, _ = io.Copy(io.Discard, s.Out)
	s.Stop()
}

// Done is closed when the child has ended.
func (s *Session) Done() <-chan struct{} { return s.done }
