package scripttest

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restls/restls/internal/walktest"
)

// TestFindSkipRule: restls test (and the designer's tests) leave out the
// directories every project walk leaves out (input.SkipDir: every hidden
// directory, not only .git, and node_modules) below the root walked, so
// they run the test files restls check, the project index and the
// editor see; a hidden directory named as the root is walked.
func TestFindSkipRule(t *testing.T) {
	st := walktest.SkipRule(t, "a"+Suffix, "script: a.js\n")
	got, err := Find([]string{st.Root})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(st.Kept, walktest.Rel(t, st.Root, got)); d != "" {
		t.Errorf("restls test ROOT (-want +got):\n%s", d)
	}
	got, err = Find([]string{filepath.Join(st.Root, filepath.FromSlash(st.HiddenRoot))})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(st.HiddenKept, walktest.Rel(t, st.Root, got)); d != "" {
		t.Errorf("restls test %s (-want +got):\n%s", st.HiddenRoot, d)
	}
}
