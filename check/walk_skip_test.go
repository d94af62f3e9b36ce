package check

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restls/restls/internal/walktest"
)

// TestFindSkipRule: restls check leaves out the directories every
// project walk leaves out (input.SkipDir: every hidden directory, not
// only .git, and node_modules) below the root it walks, so it checks the
// scripts restls test, the project index and the editor see; a hidden
// directory named as the root is walked.
func TestFindSkipRule(t *testing.T) {
	st := walktest.SkipRule(t, "a.js", "return 1;\n")
	got, _, err := Find([]string{st.Root}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(st.Kept, walktest.Rel(t, st.Root, got)); d != "" {
		t.Errorf("restls check ROOT (-want +got):\n%s", d)
	}
	got, _, err = Find([]string{filepath.Join(st.Root, filepath.FromSlash(st.HiddenRoot))}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(st.HiddenKept, walktest.Rel(t, st.Root, got)); d != "" {
		t.Errorf("restls check %s (-want +got):\n%s", st.HiddenRoot, d)
	}
	// A file named is checked wherever it is.
	named := filepath.Join(st.Root, ".vscode", "a.js")
	if got, _, err := Find([]string{named}, nil, nil); err != nil || !slices.Equal(got, []string{named}) {
		t.Errorf("restls check .vscode/a.js: %q, %v", got, err)
	}
}
