package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/restls/restls/input"
)

// TestOverlay: an open document's text is read in place of the file
// (ReadFile), the one set last when several clients hold it, until every
// holder has closed it or ended.
func TestOverlay(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.js")
	if err := os.WriteFile(path, []byte("on disk"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := NewSession(SessionOptions{})
	read := func() (string, bool) {
		t.Helper()
		text, open, err := s.ReadFile(path, input.Script)
		if err != nil {
			t.Fatal(err)
		}
		return text, open
	}
	if text, open := read(); text != "on disk" || open {
		t.Fatalf("closed: %q, open %v", text, open)
	}
	s.SetOverlay(1, path, 3, "editor one")
	s.SetOverlay(2, filepath.Join(dir, ".", "a.js"), 1, "editor two")
	if text, open := read(); text != "editor two" || !open {
		t.Errorf("two holders: %q, open %v; want the text set last", text, open)
	}
	if got := s.Overlays(dir); len(got) != 1 || got[path] != "editor two" {
		t.Errorf("Overlays(dir) = %q", got)
	}
	if got := s.Overlays(filepath.Join(dir, "sub")); len(got) != 0 {
		t.Errorf("Overlays of another directory = %q", got)
	}
	s.DropOverlays(2)
	if text, _ := read(); text != "editor one" {
		t.Errorf("after one holder ended: %q", text)
	}
	s.DropOverlay(1, path)
	if text, open := read(); text != "on disk" || open {
		t.Errorf("all closed: %q, open %v", text, open)
	}
}
