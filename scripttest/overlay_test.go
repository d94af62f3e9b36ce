package scripttest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

// TestScriptOverlay: the test files of one script (found by the
// project index, workspace/index's TestTests) run with Overlay's text of
// the script (the designer's unsaved buffer); MaxCases refuses before
// anything runs.
func TestScriptOverlay(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	// A repository: its test files may name scripts anywhere in it.
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"scripts/a.js":           "return 1;",
		"scripts/a.test.yaml":    "script: a.js\nresult: 1\n",
		"tests/deep/a.test.yaml": "script: ../../scripts/a.js\ncases:\n  - {name: one, result: 1}\n  - {name: two, result: 1}\n",
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
	got := []string{filepath.Join(root, "scripts", "a.test.yaml"), filepath.Join(root, "tests", "deep", "a.test.yaml")}
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

// TestMalformedTestFileRuns: a test file that is not YAML but names its
// script (the project index holds it as that script's: workspace/index's
// TestTests) is one failing entry at the line of restls test's message,
// so a run of that script's tests (the designer's) reports it.
func TestMalformedTestFileRuns(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "a.test.yaml")
	if err := os.WriteFile(p, []byte("script: a.js\ncases:\n  - name: a\n   result: [1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{Paths: []string{p}, Snapshot: workspace.Snapshot{Config: &config.Snapshot{}}, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, loadErr := Load(p)
	if rep.Failed != 1 || len(rep.Outcomes) != 1 || rep.Outcomes[0].Line != 4 || len(rep.Outcomes[0].Failures) != 1 || loadErr == nil || rep.Outcomes[0].Failures[0] != loadErr.Error() {
		t.Errorf("outcomes %+v; want one failing at line 4 with %v", rep.Outcomes, loadErr)
	}
}
