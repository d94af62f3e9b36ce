package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
)

// TestWalkStopSaidOnce: a project index whose walk stops at input's walk
// bounds says so once, whether its build said it (LeftOutMessage) or a
// later Poll found it (WalkStopMessage).
func TestWalkStopSaidOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	deep := dir
	for range input.MaxWalkDepth {
		deep = filepath.Join(deep, "d")
	}
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	s := NewSession(SessionOptions{})
	pi, _, err := s.ProjectIndex(dir, s.Registry(), config.KindMap{})
	if err != nil {
		t.Fatal(err)
	}
	if err := pi.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	if msg := pi.LeftOutMessage(); msg != "" {
		t.Fatalf("at the bound: %q", msg)
	}
	if msg := pi.WalkStopMessage(); msg != "" {
		t.Fatalf("at the bound: %q", msg)
	}
	if err := os.Mkdir(filepath.Join(deep, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	pi.Poll(0)
	msg := pi.WalkStopMessage()
	if !strings.Contains(msg, "more than 64 directories below "+dir+")") || !strings.Contains(msg, "references, rename") {
		t.Errorf("after the Poll: %q", msg)
	}
	pi.Poll(time.Nanosecond)
	if msg := pi.WalkStopMessage(); msg != "" {
		t.Errorf("said again: %q", msg)
	}
}
