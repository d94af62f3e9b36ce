package scripttest

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

// TestOverlayAndWrite: an editor's unsaved text is run in place of the
// file, and --update's result goes to Write, not to the disk; the result's
// differences come by JSON path too.
func TestOverlayAndWrite(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.js"), []byte(`return {name: "Ada", n: 2};`), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "t.test.yaml")
	onDisk := "script: s.js\ncases:\n  - name: a\n    result: {name: Ada, n: 2}\n"
	if err := os.WriteFile(path, []byte(onDisk), 0o644); err != nil {
		t.Fatal(err)
	}
	// The editor's text: case b, whose result differs, and a comment that
	// the update keeps.
	text := "script: s.js\ncases:\n  - name: a\n    result: {name: Ada, n: 2}\n\n  # b's comment\n  - name: b\n    result: {name: Bob, n: 2}\n"
	snap := config.Load(config.Sources{ConfigRoot: "../testdata/config"})
	only := regexp.MustCompile("^" + regexp.QuoteMeta(path) + "(/" + regexp.QuoteMeta("b") + ")?$")
	opts := Options{Paths: []string{path}, Snapshot: workspace.Snapshot{Config: snap}, Overlay: map[string][]byte{path: []byte(text)}, Run: only}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Outcomes) != 1 || rep.Outcomes[0].Name != "b" || rep.Outcomes[0].Passed {
		t.Fatalf("want case b of the editor's text, failing; got %+v", rep.Outcomes)
	}
	if d := cmp.Diff([]Mismatch{{Path: "$.name", Expected: `"Bob"`, Actual: `"Ada"`}}, rep.Outcomes[0].Mismatches); d != "" {
		t.Errorf("mismatches (-want +got):\n%s", d)
	}

	var wrote string
	opts.Update = true
	opts.Write = func(p string, data []byte) error {
		if p != path {
			t.Errorf("Write got %s, want %s", p, path)
		}
		wrote = string(data)
		return nil
	}
	rep, err = Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Updated != 1 {
		t.Fatalf("updated %d, want 1", rep.Updated)
	}
	// What restls test --update writes: the result, and the calls the
	// case did not list.
	want := strings.Replace(text, " {name: Bob, n: 2}\n", "\n      name: Ada\n      n: 2\n    calls: []\n", 1)
	if wrote != want {
		t.Errorf("written:\n%s\nwant:\n%s", wrote, want)
	}
	if b, _ := os.ReadFile(path); string(b) != onDisk {
		t.Errorf("the file on disk changed:\n%s", b)
	}
}
