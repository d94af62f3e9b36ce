package scripttest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/input"
	"github.com/restls/restls/internal/walktest"
)

// TestFindIsBounded: the walk for test files stops, with an error that
// names the bound and what to do, past input.MaxWalkDepth directories
// deep and past its entries (lowered here). A skipped directory's
// contents are not counted.
func TestFindIsBounded(t *testing.T) {
	// Not parallel: it lowers maxWalkEntries, and parallel tests start
	// only once it has returned.
	root := t.TempDir()
	deep := filepath.Dir(walktest.Deep(t, root, input.MaxWalkDepth, "a.test.yaml", "script: a.js\nresult: 1\n"))
	write := func(p, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := Find([]string{root}); err != nil || len(got) != 1 {
		t.Fatalf("%d directories deep: %q, %v", input.MaxWalkDepth, got, err)
	}
	write(filepath.Join(deep, "one-more", "b.test.yaml"), "script: b.js\nresult: 1\n")
	_, err := Find([]string{root})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d directories below %s", input.MaxWalkDepth, root)) || !strings.Contains(err.Error(), "restls test DIR") {
		t.Errorf("%d directories deep: %v", input.MaxWalkDepth+1, err)
	}

	wide := t.TempDir()
	for i := range 30 {
		write(filepath.Join(wide, "node_modules", fmt.Sprintf("f%d.test.yaml", i)), "")
	}
	for i := range 15 {
		write(filepath.Join(wide, fmt.Sprintf("f%d.js", i)), "")
	}
	old := maxWalkEntries
	maxWalkEntries = 20
	t.Cleanup(func() { maxWalkEntries = old })
	if _, err := Find([]string{wide}); err != nil {
		t.Fatalf("17 entries and a skipped directory: %v", err)
	}
	for i := range 5 {
		write(filepath.Join(wide, fmt.Sprintf("g%d.js", i)), "")
	}
	_, err = Find([]string{wide})
	if err == nil || !strings.Contains(err.Error(), "more than 20 files and directories under "+wide) || !strings.Contains(err.Error(), "restls test DIR") {
		t.Errorf("22 entries: %v", err)
	}
}
