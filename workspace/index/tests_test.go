package index

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTests: the index holds the project's test files, each with the
// script its script: names as restls test resolves it (relative to the
// file, wherever it is); a test file that is not YAML names its script by
// its script: line (so the designer's run of that script's tests reports
// it as restls test does), one whose script cannot be told names none;
// test files under node_modules or a hidden directory are not held. An
// absolute script: (which restls test refuses, input.NamedPath) names
// the script it means, not one below the test file's directory: that
// script's tests then report the refusal.
func TestTests(t *testing.T) {
	t.Parallel()
	root := project(t, map[string]string{
		".git/HEAD":                  "ref: refs/heads/main\n",
		"scripts/a.js":               "return 1;",
		"scripts/a.test.yaml":        "script: a.js\nresult: 1\n",
		"tests/deep/a.test.yaml":     "script: ../../scripts/a.js\ncases:\n  - {name: one, result: 1}\n",
		"scripts/b.test.yaml":        "script: b.js\nresult: 1\n",
		"scripts/abs.test.yaml":      "script: /x/c.js\n",
		"scripts/nokey.test.yaml":    "cases: []\n",
		"s/broken.test.yaml":         "script: a.js\ncases:\n  - name: a\n   result: [1\n",
		"s/quoted.test.yaml":         "script: 'a.js' # the one\n[\n",
		"s/list.test.yaml":           "- script: a.js\n",
		"s/absbroken.test.yaml":      "script: /x/d.js\n[\n",
		"s/none.test.yaml":           "cases: [\n",
		"s/empty.test.yaml":          "script: # none\n[\n",
		"node_modules/x/a.test.yaml": "script: ../../scripts/a.js\n",
		".cache/a.test.yaml":         "script: ../scripts/a.js\n",
	})
	ix, err := New(Options{Root: root, TestSuffix: ".test.yaml", MockSuffixes: []string{".mock.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tf := range ix.Tests() {
		rel, _ := filepath.Rel(root, tf.File)
		script := tf.Script
		if r, err := filepath.Rel(root, script); script != "" && err == nil && filepath.IsLocal(r) {
			script = r
		}
		got = append(got, filepath.ToSlash(rel)+" -> "+filepath.ToSlash(script))
	}
	want := []string{
		"s/absbroken.test.yaml -> /x/d.js",
		"s/broken.test.yaml -> s/a.js",
		"s/empty.test.yaml -> ",
		"s/list.test.yaml -> ",
		"s/none.test.yaml -> ",
		"s/quoted.test.yaml -> s/a.js",
		"scripts/a.test.yaml -> scripts/a.js",
		"scripts/abs.test.yaml -> /x/c.js",
		"scripts/b.test.yaml -> scripts/b.js",
		"scripts/nokey.test.yaml -> ",
		"tests/deep/a.test.yaml -> scripts/a.js",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Tests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
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
