package check

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/input"
	"github.com/restls/restls/internal/walktest"
)

// TestFindIsBounded: restls check's walk stops, with an error that names
// the bound, the root and what to do, past input.MaxWalkDepth
// directories deep and past its entries (lowered here), counted over
// every PATH; a skipped directory (node_modules) is not walked.
func TestFindIsBounded(t *testing.T) {
	// Not parallel: it lowers maxWalkEntries, and parallel tests start
	// only once it has returned.
	write := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("return 1;\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root := t.TempDir()
	deep := filepath.Dir(walktest.Deep(t, root, input.MaxWalkDepth, "a.js", "return 1;\n"))
	got, _, err := Find([]string{root}, nil, nil)
	if err != nil || len(got) != 1 {
		t.Fatalf("%d directories deep: %q, %v", input.MaxWalkDepth, got, err)
	}
	write(filepath.Join(deep, "d64", "b.js"))
	_, _, err = Find([]string{root}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("d64 is more than %d directories below %s, where restls check stops", input.MaxWalkDepth, root)) || !strings.Contains(err.Error(), "name fewer directories") {
		t.Errorf("%d directories deep: %v", input.MaxWalkDepth+1, err)
	}

	defer func(n int) { maxWalkEntries = n }(maxWalkEntries)
	maxWalkEntries = 20
	wide := t.TempDir()
	for i := range 9 {
		write(filepath.Join(wide, fmt.Sprintf("f%d.js", i)))
	}
	for i := range 50 {
		write(filepath.Join(wide, "node_modules", fmt.Sprintf("m%d.js", i)))
	}
	// wide, its 9 files: 10 entries, twice is 20.
	if got, _, err := Find([]string{wide, wide + "/."}, nil, nil); err != nil || len(got) != 9 {
		t.Fatalf("20 entries: %d scripts, %v", len(got), err)
	}
	write(filepath.Join(wide, "sub", "g.js"))
	_, _, err = Find([]string{wide}, nil, nil)
	if err != nil {
		t.Fatalf("12 entries: %v", err)
	}
	_, _, err = Find([]string{wide, wide + "/."}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "more than 20 files and directories under "+wide+"/.") || !strings.Contains(err.Error(), "name fewer directories") {
		t.Errorf("24 entries: %v", err)
	}
}
