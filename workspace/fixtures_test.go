package workspace

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
)

// TestRecordedBesideLiteralDirectory: the fixture files beside a script
// are found by listing its directory, whose name is no glob: "[" in it
// found nothing, and "*" in it took fixtures from every directory it
// matched (filepath.Glob).
func TestRecordedBesideLiteralDirectory(t *testing.T) {
	root := t.TempDir()
	files := []string{"[x/a.mock.yaml", "*/b.mock.json", "other/c.mock.yaml", "*/d.txt"}
	dirs := map[string]string{"[x": "[x/a.mock.yaml", "*": "*/b.mock.json"}
	if runtime.GOOS == "windows" { // no "*" in a Windows file name
		files, dirs = files[:1], map[string]string{"[x": "[x/a.mock.yaml"}
	}
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("[]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := &Recorded{Allowed: true}
	for dir, want := range dirs {
		got := r.Beside(filepath.Join(root, dir, "s.js"))
		if len(got) != 1 || got[0].Location != filepath.Join(root, filepath.FromSlash(want)) || !got[0].Recorded {
			t.Errorf("beside a script in %q: %+v, want %s only", dir, got, want)
		}
	}
}

// TestRecordedBesideOrder: the fixture files beside a script come in
// MockSuffixes' order, each suffix's by name, whatever order the
// directory lists them in, each with the repository's top as its root.
func TestRecordedBesideOrder(t *testing.T) {
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(repo, "scripts")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"b.mock.yaml", "a.mock.json", "s.js", "c.mock.json", "a.mock.yaml", "a.mock.yml"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("[]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := &Recorded{Allowed: true}
	got := r.Beside(filepath.Join(dir, "s.js"))
	want := []string{"a.mock.yaml", "b.mock.yaml", "a.mock.json", "c.mock.json"}
	if len(got) != len(want) {
		t.Fatalf("beside the script: %+v, want %v", got, want)
	}
	for i, w := range want {
		if got[i].Location != filepath.Join(dir, w) || !got[i].Recorded || got[i].Root != repo {
			t.Errorf("fixture %d: %+v, want %s with root %s", i, got[i], w, repo)
		}
	}
}

// TestRecordedListed: the names a walk listed give what listing the
// directory gives, and Beside takes them instead of listing it again.
func TestRecordedListed(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"b.mock.yaml", "a.mock.json", "s.js", "a.mock.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("[]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	listed := &Recorded{Allowed: true}
	listed.Listed(dir, names)
	want := (&Recorded{Allowed: true}).Beside(filepath.Join(dir, "s.js"))
	if got := listed.Beside(filepath.Join(dir, "s.js")); !reflect.DeepEqual(got, want) {
		t.Errorf("from the walk's names: %+v, want %+v", got, want)
	}
	// Taken from the names, not from the disk.
	listed.Listed(dir, []string{"s.js", "c.mock.json"})
	if got := listed.Beside(filepath.Join(dir, "s.js")); len(got) != 1 || got[0].Location != filepath.Join(dir, "c.mock.json") {
		t.Errorf("Beside listed the directory again: %+v", got)
	}
	// A session that may read no file beside its scripts keeps none.
	none := &Recorded{}
	none.Listed(dir, names)
	if got := none.Beside(filepath.Join(dir, "s.js")); got != nil {
		t.Errorf("not allowed: %+v", got)
	}
}
