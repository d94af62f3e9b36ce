package index

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/restls/restls/hints"
	"github.com/restls/restls/input"
)

// countReads counts the files the index reads until the test ends.
func countReads(t *testing.T) func() []string {
	var mu sync.Mutex
	var read []string
	note := func(path string) {
		mu.Lock()
		read = append(read, filepath.Base(path))
		mu.Unlock()
	}
	oldFile, oldHead := readFile, readHead
	readFile = func(path string, k input.Kind) ([]byte, error) { note(path); return oldFile(path, k) }
	readHead = func(path string, k input.Kind, n int) ([]byte, error) { note(path); return oldHead(path, k, n) }
	t.Cleanup(func() { readFile, readHead = oldFile, oldHead })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := slices.Clone(read)
		slices.Sort(out)
		read = nil
		return out
	}
}

// TestPollPastTheCapReadsNothing: an index truncated at MaxFiles read
// every script and data file past the cap again at every poll (up to
// 50,000 reads per poll of the designer, every 2 s) only to leave it out
// again. The cap is now decided before reading, as the build decides it.
// (A poll stops after twice MaxFiles files, TestPollPastTheFileCapKeeps:
// each project here stays below that, so the poll sees every file.)
func TestPollPastTheCapReadsNothing(t *testing.T) {
	const call = "api.rest.v1.get(\"crm\", {}, {});\n"
	for _, c := range []struct {
		name           string
		scripts, tests []string
		change, delete string // a file past the cap, a file held
	}{
		{"scripts past the cap", []string{"a", "b", "c", "d"}, []string{"a", "b"}, "s/d.js", "s/a.js"},
		{"test files past the cap", []string{"a", "b"}, []string{"a", "b", "c", "d"}, "t/d.test.yaml", "t/a.test.yaml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{}
			for _, n := range c.scripts {
				files["s/"+n+".js"] = call
			}
			for _, n := range c.tests {
				files["t/"+n+".test.yaml"] = "script: ../s/" + n + ".js\ncases:\n  - name: one\n    fixtures:\n      - serviceId: crm\n"
			}
			root := project(t, files)
			ix, err := New(Options{Root: root, MaxFiles: 3, TestSuffix: ".test.yaml"})
			if err != nil {
				t.Fatal(err)
			}
			reads := countReads(t)
			if err := ix.Build(t.Context()); err != nil {
				t.Fatal(err)
			}
			if got := reads(); len(got) != 5 {
				t.Fatalf("the build read %v, want the 5 files it holds", got)
			}
			held := func() int {
				n, truncated := ix.Len()
				if !truncated {
					t.Errorf("the index is not truncated")
				}
				return n + len(ix.Tests())
			}
			for i := range 2 {
				if ix.Poll() {
					t.Errorf("poll %d of an unchanged index: a change", i+1)
				}
				if got := reads(); len(got) > 0 {
					t.Errorf("poll %d of an unchanged capped index read %v, want nothing", i+1, got)
				}
			}
			// A changed file past the cap is still past it: the index
			// says it is truncated, and holds no more.
			if err := os.WriteFile(filepath.Join(root, c.change), []byte(files[c.change]+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			ix.Poll()
			if got := reads(); len(got) > 0 {
				t.Errorf("a poll with a changed file past the cap read %v, want nothing", got)
			}
			if n := held(); n != 5 {
				t.Errorf("after a change past the cap: %d files held, want 5", n)
			}
			// A deleted file makes room: the next poll fills it, reading
			// what it holds then and nothing more.
			if err := os.Remove(filepath.Join(root, c.delete)); err != nil {
				t.Fatal(err)
			}
			if !ix.Poll() {
				t.Errorf("a poll did not see %s deleted", c.delete)
			}
			ix.Poll()
			if got := reads(); len(got) != 1 {
				t.Errorf("filling the room %s left read %v, want the one file it holds now", c.delete, got)
			}
			if n := held(); n != 5 {
				t.Errorf("after %s was deleted: %d files held, want 5", c.delete, n)
			}
		})
	}
}

// TestPollRereadsUnheldOnlyWhenChanged: a script the index read and does
// not hold (not text) and one past MaxBytes were read again at every
// poll; now only when their size or modification time change (and then
// they are held), or, past MaxBytes, when there is room for its size.
func TestPollRereadsUnheldOnlyWhenChanged(t *testing.T) {
	const call = "api.rest.v1.get(\"crm\", {}, {});\n"
	root := project(t, map[string]string{
		"a.js":   call,
		"big.js": strings.Repeat("x", 2000) + "\n" + call,
		"bin.js": "\x00\x01" + call,
	})
	budget := 1000 + 2*int64(unsafe.Sizeof(hints.CallSite{}))
	ix, err := New(Options{Root: root, MaxBytes: budget})
	if err != nil {
		t.Fatal(err)
	}
	reads := countReads(t)
	if err := ix.Build(t.Context()); err != nil {
		t.Fatal(err)
	}
	reads()
	if left, first := ix.LeftOut(3); left != 1 || first[0] != "big.js" {
		t.Fatalf("left out %d %v, want big.js", left, first)
	}
	for i := range 2 {
		ix.Poll()
		if got := reads(); len(got) > 0 {
			t.Errorf("poll %d of an unchanged index read %v, want nothing", i+1, got)
		}
	}
	for name, text := range map[string]string{"big.js": call, "bin.js": call} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !ix.Poll() {
		t.Error("a poll saw no change")
	}
	if got := reads(); !slices.Equal(got, []string{"big.js", "bin.js"}) {
		t.Errorf("a poll after the two changed read %v", got)
	}
	if left, _ := ix.LeftOut(3); left != 0 || ix.Script(filepath.Join(root, "big.js")) == nil || ix.Script(filepath.Join(root, "bin.js")) == nil {
		t.Errorf("after the changes: %d left out, big.js held %v, bin.js held %v", left,
			ix.Script(filepath.Join(root, "big.js")) != nil, ix.Script(filepath.Join(root, "bin.js")) != nil)
	}
}
