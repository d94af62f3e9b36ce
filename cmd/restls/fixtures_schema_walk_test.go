package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restls/restls/internal/walktest"
)

// TestFixtureFilesWalkIsBounded: restls fixtures schema's walk for
// fixture files stops at its bounds (lowered here, as the other walks'
// tests lower theirs) with an error that names the bound, the root and
// what to do; a skipped directory's files are not counted. It leaves out
// what every project walk leaves out (input.SkipDir).
func TestFixtureFilesWalkIsBounded(t *testing.T) {
	// Not parallel: it lowers the package's bounds.
	defer func(e, d int) { schemaWalkEntries, schemaWalkDepth = e, d }(schemaWalkEntries, schemaWalkDepth)
	schemaWalkDepth = 3
	root := t.TempDir()
	walktest.Deep(t, root, 3, "a.mock.yaml", "")
	if got, err := findFixtureFiles(root); err != nil || len(got) != 1 {
		t.Fatalf("3 directories deep: %q, %v", got, err)
	}
	walktest.Deep(t, root, 4, "b.mock.yaml", "")
	_, err := findFixtureFiles(root)
	if want := fmt.Sprintf("%s is more than 3 directories below %s, where restls stops looking for fixture files: name the fixture files", filepath.Join(root, walktest.Chain(4)), root); err == nil || err.Error() != want {
		t.Errorf("4 directories deep: %v, want %s", err, want)
	}

	schemaWalkEntries = 20
	wide := t.TempDir()
	files := map[string]string{}
	for i := range 19 { // and the root: 20 entries
		files[fmt.Sprintf("f%d.mock.yaml", i)] = ""
	}
	for i := range 30 {
		files[fmt.Sprintf("node_modules/m%d.mock.yaml", i)] = ""
	}
	walktest.Write(t, wide, files)
	if got, err := findFixtureFiles(wide); err != nil || len(got) != 19 {
		t.Fatalf("20 entries and a skipped directory: %d files, %v", len(got), err)
	}
	walktest.Write(t, wide, map[string]string{"g.mock.yaml": ""})
	_, err = findFixtureFiles(wide)
	if err == nil || !strings.Contains(err.Error(), "more than 20 files and directories under "+wide) {
		t.Errorf("21 entries: %v", err)
	}

	schemaWalkEntries = 1000
	st := walktest.SkipRule(t, "a.mock.yaml", "")
	got, err := findFixtureFiles(st.Root)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(st.Kept, walktest.Rel(t, st.Root, got)); d != "" {
		t.Errorf("fixture files (-want +got):\n%s", d)
	}
}
