package scripttest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

// TestTestsOfAndScriptOverlay: the test files of one script are found by
// their script: as Run resolves it (relative to each file), wherever
// they are; Overlay's text of the script is what runs (the designer's
// unsaved buffer); MaxCases refuses before anything runs.
func TestTestsOfAndScriptOverlay(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	// A repository: its test files may name scripts anywhere in it.
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"scripts/a.js":               "return 1;",
		"scripts/a.test.yaml":        "script: a.js\nresult: 1\n",
		"tests/deep/a.test.yaml":     "script: ../../scripts/a.js\ncases:\n  - {name: one, result: 1}\n  - {name: two, result: 1}\n",
		"scripts/b.test.yaml":        "script: b.js\nresult: 1\n",
		"scripts/broken.test.yaml":   "script: [a.js\n",
		"scripts/nokey.test.yaml":    "cases: []\n",
		"node_modules/x/a.test.yaml": "script: ../../scripts/a.js\n",
	}
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(root, "scripts", "a.js")
	got, err := TestsOf(root, script, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, "scripts", "a.test.yaml"), filepath.Join(root, "tests", "deep", "a.test.yaml")}
	if !slices.Equal(got, want) {
		t.Errorf("TestsOf = %q, want %q", got, want)
	}
	if _, err := TestsOf(root, script, 3); err == nil {
		t.Error("TestsOf looked through more test files than its bound")
	}

	snap := workspace.Snapshot{Config: config.Load(config.Sources{ConfigRoot: "../testdata/config"})}
	rep, err := Run(context.Background(), Options{Paths: got, Snapshot: snap, Workers: 1, Overlay: map[string][]byte{script: []byte("return 2;")}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 3 || rep.Passed != 0 {
		t.Errorf("with the overlay's text every case fails (returns 2): %d passed, %d failed", rep.Passed, rep.Failed)
	}
	if rep, err := Run(context.Background(), Options{Paths: got, Snapshot: snap, Workers: 1}); err != nil || rep.Passed != 3 {
		t.Errorf("the file on disk passes: %+v, %v", rep, err)
	}
	var many *TooManyCasesError
	if _, err := Run(context.Background(), Options{Paths: got, MaxCases: 2}); !errors.As(err, &many) || many.Cases != 3 {
		t.Errorf("MaxCases 2 of 3 cases: %v", err)
	}
}
