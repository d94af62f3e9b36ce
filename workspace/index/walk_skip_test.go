package index

import (
	"context"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restls/restls/internal/walktest"
)

// TestBuildSkipRule: the project index holds the scripts of the
// directories every project walk enters (input.SkipDir), restls check's
// and restls test's alike; a hidden directory as the root is walked.
func TestBuildSkipRule(t *testing.T) {
	st := walktest.SkipRule(t, "a.js", "api.rest.v1.get(\"crm\", {}, {});\n")
	held := func(root string) []string {
		t.Helper()
		ix, err := New(Options{Root: root})
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.Build(context.Background()); err != nil {
			t.Fatal(err)
		}
		ix.mu.RLock()
		defer ix.mu.RUnlock()
		var out []string
		for p := range ix.scripts {
			out = append(out, p)
		}
		sort.Strings(out)
		return walktest.Rel(t, st.Root, out)
	}
	if d := cmp.Diff(st.Kept, held(st.Root)); d != "" {
		t.Errorf("index of ROOT (-want +got):\n%s", d)
	}
	if d := cmp.Diff(st.HiddenKept, held(filepath.Join(st.Root, filepath.FromSlash(st.HiddenRoot)))); d != "" {
		t.Errorf("index of %s (-want +got):\n%s", st.HiddenRoot, d)
	}
}
