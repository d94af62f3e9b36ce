package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// dump renders everything the index holds about scripts, in a stable
// order, so that two indexes compare.
func dump(ix *Index) string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var b strings.Builder
	paths := make([]string, 0, len(ix.scripts))
	for p := range ix.scripts {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		s := ix.scripts[p]
		fmt.Fprintf(&b, "%s %s %s %q %d\n", p, s.Rel, s.Kind, s.Text, len(s.Calls))
	}
	ids := make([]string, 0, len(ix.byID))
	for id := range ix.byID {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		fmt.Fprintf(&b, "id %q %v\n", id, sortedPaths(ix.byID[id]))
	}
	dataPaths := make([]string, 0, len(ix.data))
	for p := range ix.data {
		dataPaths = append(dataPaths, p)
	}
	sort.Strings(dataPaths)
	for _, p := range dataPaths {
		df := ix.data[p]
		fmt.Fprintf(&b, "data %s %s test %v script %q fixtures %v places %v\n", p, df.Rel, df.Test, df.script, df.fixtures, df.Places)
	}
	fmt.Fprintf(&b, "dynamic %v truncated %v\n", sortedPaths(ix.dynamic), ix.truncated)
	return b.String()
}

var fuzzNames = []string{"a.js", "d/b.js", "d/e/c.js", "d/notes.txt", ".h/x.js", "node_modules/m.js", "d/e", "a.mock.yaml", "d/t.test.yaml", "d/f.yaml"}

var fuzzTexts = []string{
	"api.rest.v1.get(\"crm\", {}, {});",
	"// restls-kind: scriptTask\napi.rest.v1.post('hr', {}, {}, {});",
	"function f() { api.rest.v1.get(id, {}, {}) }",
	"",
	"api.rest.v1.get(\"crm\", {pathParams: [",
	"- serviceId: crm\n- {serviceId: 'hr'}\n",
	"script: ../a.js\nfixtures: f.yaml\ncalls: [{serviceId: crm}]\n",
}

// FuzzUpdate: any sequence of creates, edits and deletes, each followed by
// Update of the path, leaves the index equal to a fresh Build.
func FuzzUpdate(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6}, "api.rest.v1.delete('x', {}, {})")
	f.Add([]byte{0x10, 0x21, 0x32, 0x63, 0x06, 0x44}, "")
	f.Add([]byte{0x62, 0x12, 0x26, 0x02}, "api.rest.v1.get(\"ä\\u00e4\", {}, {})")
	f.Fuzz(func(t *testing.T, ops []byte, extra string) {
		if len(ops) > 40 {
			ops = ops[:40]
		}
		root := t.TempDir()
		ix, err := New(Options{Root: root, MockSuffixes: []string{".mock.yaml"}, TestSuffix: ".test.yaml"})
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.Build(context.Background()); err != nil {
			t.Fatal(err)
		}
		for _, op := range ops {
			name := fuzzNames[int(op&0x0f)%len(fuzzNames)]
			p := filepath.Join(root, filepath.FromSlash(name))
			switch action := op >> 4; {
			case action < 8: // write
				text := extra
				if int(action) < len(fuzzTexts) {
					text = fuzzTexts[action]
				}
				os.RemoveAll(p) // a directory where a file goes
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					continue // a file where a directory goes
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					continue
				}
			case action < 12: // delete the file, or the directory it is in
				os.RemoveAll(p)
			default:
				p = filepath.Dir(p)
				os.RemoveAll(p)
			}
			ix.Update(p)
		}
		fresh, _ := New(Options{Root: root, MockSuffixes: []string{".mock.yaml"}, TestSuffix: ".test.yaml"})
		if err := fresh.Build(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got, want := dump(ix), dump(fresh); got != want {
			t.Fatalf("updated index:\n%s\nfresh build:\n%s", got, want)
		}
		// Nothing changed since the updates: a poll reads nothing, not
		// even the files the index read and does not hold.
		reads := countReads(t)
		if ix.Poll() {
			t.Errorf("a poll after the updates changed the index:\n%s\nfresh build:\n%s", dump(ix), dump(fresh))
		}
		if got := reads(); len(got) > 0 {
			t.Errorf("a poll after the updates read %v", got)
		}
	})
}
