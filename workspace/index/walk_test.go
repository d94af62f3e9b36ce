package index

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/restls/restls/input"
	"github.com/restls/restls/internal/walktest"
)

// TestWalksAreBounded: the index's Build, Poll and Update walks stop past
// input.MaxWalkDepth directories below the root and past their entries
// (lowered here); WalkStop says why, the index keeps what it found, and
// a stopped Poll drops nothing it did not reach.
func TestWalksAreBounded(t *testing.T) {
	// Not parallel: it lowers maxWalkEntries, and parallel tests start
	// only once it has returned.
	const call = "api.rest.v1.get(\"crm\", {}, {});\n"
	deep := walktest.Chain(input.MaxWalkDepth)
	tree := func() string {
		return project(t, map[string]string{"a.js": call, deep + "/a_ok.js": call, "zz/z.js": call})
	}
	write := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(call), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	scripts := func(ix *Index) string {
		ix.mu.RLock()
		defer ix.mu.RUnlock()
		var out []string
		for _, s := range ix.scripts {
			out = append(out, s.Rel)
		}
		sort.Strings(out)
		return strings.Join(out, " ")
	}
	stopped := func(what string, ix *Index, depth bool, limit int) {
		t.Helper()
		stop := ix.WalkStop()
		if stop == nil || stop.Depth != depth || stop.Limit != limit {
			t.Errorf("%s: WalkStop %v, want the bound of %d (depth %v)", what, stop, limit, depth)
		}
	}
	wantScripts := func(what string, ix *Index, want string) {
		t.Helper()
		if got := scripts(ix); got != want {
			t.Errorf("%s: scripts %q, want %q", what, got, want)
		}
	}

	// Depth.
	root := tree()
	ix := build(t, root, nil)
	if ix.WalkStop() != nil {
		t.Fatalf("%d directories deep: %v", input.MaxWalkDepth, ix.WalkStop())
	}
	wantScripts("build at the bound", ix, "a.js "+deep+"/a_ok.js zz/z.js")
	write(filepath.Join(root, deep, "d64", "deep.js"))
	ix.Poll()
	stopped("Poll past the depth", ix, true, input.MaxWalkDepth)
	wantScripts("Poll past the depth", ix, "a.js "+deep+"/a_ok.js zz/z.js")
	ix = build(t, root, nil)
	stopped("Build past the depth", ix, true, input.MaxWalkDepth)
	wantScripts("Build past the depth", ix, "a.js "+deep+"/a_ok.js")

	root = tree()
	ix = build(t, root, nil)
	write(filepath.Join(root, deep, "d64", "deep.js"))
	ix.Update(filepath.Join(root, deep, "d64"))
	stopped("Update past the depth", ix, true, input.MaxWalkDepth)
	wantScripts("Update past the depth", ix, "a.js "+deep+"/a_ok.js zz/z.js")

	// Entries: the root, a.js, b/, b/1.js ... b/9.js, c.js: 13.
	defer func(n int) { maxWalkEntries = n }(maxWalkEntries)
	maxWalkEntries = 13
	files := map[string]string{"a.js": call, "c.js": call}
	for i := range 9 {
		files[fmt.Sprintf("b/%d.js", i+1)] = call
	}
	root = project(t, files)
	ix = build(t, root, nil)
	if ix.WalkStop() != nil {
		t.Fatalf("13 entries: %v", ix.WalkStop())
	}
	write(filepath.Join(root, "b", "91.js"))
	ix.Poll()
	stopped("Poll past the entries", ix, false, 13)
	if got := scripts(ix); !strings.Contains(got, "c.js") {
		t.Errorf("Poll past the entries dropped c.js: %q", got)
	}
	ix = build(t, root, nil)
	stopped("Build past the entries", ix, false, 13)
	if got := scripts(ix); strings.Contains(got, "c.js") || !strings.Contains(got, "b/91.js") {
		t.Errorf("Build past the entries: %q, want what came before the bound", got)
	}

	maxWalkEntries = 5
	root = project(t, map[string]string{"a.js": call})
	ix = build(t, root, nil)
	for i := range 9 {
		write(filepath.Join(root, "n", fmt.Sprintf("%d.js", i+1)))
	}
	ix.Update(filepath.Join(root, "n"))
	stopped("Update past the entries", ix, false, 5)
	if got := scripts(ix); got != "a.js n/1.js n/2.js n/3.js n/4.js" {
		t.Errorf("Update past the entries: %q", got)
	}
}

// TestPollPastTheFileCapKeeps: a poll stops after twice MaxFiles
// scripts; a script the index holds that the stopped walk did not reach
// is still on disk, so it stays, as past input's walk bounds.
func TestPollPastTheFileCapKeeps(t *testing.T) {
	const call = "api.rest.v1.get(\"crm\", {}, {});\n"
	root := project(t, map[string]string{"m.js": call})
	ix, err := New(Options{Root: root, MaxFiles: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Build(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n, _ := ix.Len(); n != 1 {
		t.Fatalf("built %d scripts, want m.js", n)
	}
	// Two scripts the walk meets before m.js: the poll stops at them.
	for _, name := range []string{"a.js", "b.js"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(call), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix.Poll()
	ix.mu.RLock()
	_, kept := ix.scripts[filepath.Join(root, "m.js")]
	ix.mu.RUnlock()
	if !kept {
		t.Errorf("a poll stopped at the file cap dropped m.js, which is still on disk")
	}
	if _, truncated := ix.Len(); !truncated {
		t.Errorf("a poll stopped at the file cap: index not marked truncated")
	}
}
