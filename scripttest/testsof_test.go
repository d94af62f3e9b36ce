package scripttest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// TestMalformedTestFileNamed: a test file that is not YAML is still the
// test file of the script its "script:" line names, so a run of that
// script's tests (the designer's) reports it as restls test does; one
// whose script cannot be told is left out.
func TestMalformedTestFileNamed(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{
		"s/a.test.yaml":      "script: a.js\ncases:\n  - name: a\n   result: [1\n",
		"s/quoted.test.yaml": "script: 'a.js' # the one\n[\n",
		"s/list.test.yaml":   "- script: a.js\n",
		"s/none.test.yaml":   "cases: [\n",
		"s/b.test.yaml":      "script: # none\n[\n",
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(root, "s", "a.js")
	got, err := TestsOf(root, script, 100)
	want := []string{filepath.Join(root, "s", "a.test.yaml"), filepath.Join(root, "s", "quoted.test.yaml")}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("TestsOf = %q, %v; want %q", got, err, want)
	}
	rep, err := Run(context.Background(), Options{Paths: got[:1], Snapshot: workspace.Snapshot{Config: &config.Snapshot{}}, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, loadErr := Load(got[0])
	if rep.Failed != 1 || len(rep.Outcomes) != 1 || rep.Outcomes[0].Line != 4 || len(rep.Outcomes[0].Failures) != 1 || loadErr == nil || rep.Outcomes[0].Failures[0] != loadErr.Error() {
		t.Errorf("outcomes %+v; want one failing at line 4 with %v", rep.Outcomes, loadErr)
	}
}

// FuzzScriptLine: any text gives either nothing or a one-line value
// that the text holds.
func FuzzScriptLine(f *testing.F) {
	f.Add([]byte("script: a.js\n["))
	f.Add([]byte("script: \"a b.js\" # c\n"))
	f.Add([]byte("script: '\n"))
	f.Add([]byte("script: a\rb.js\n["))
	f.Add([]byte(strings.Repeat("x: [\n", 10000) + "script: deep/a.js\n"))
	f.Add([]byte(strings.Repeat("script:", 5000)))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, ok := scriptLine(data)
		if ok && (v == "" || strings.ContainsAny(v, "\r\n") || !strings.Contains(string(data), v)) {
			t.Errorf("scriptLine(%q) = %q", data, v)
		}
	})
}
