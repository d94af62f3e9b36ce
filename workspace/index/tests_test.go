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

// TestTestsRestlsTestRuns: the index holds the test files restls test
// runs that it cannot read whole, so the designer runs them for their
// script and reports them as restls test does, where it answered "no
// test file": one above the test file limit (4 MiB) by the script: line
// of its head (a line cut at the head's end names none), and those past
// the scripts' cap (MaxFiles), which the walk used to stop at.
func TestTestsRestlsTestRuns(t *testing.T) {
	t.Parallel()
	pad := strings.Repeat("# padding to above the limit\n", maxDataFile/20)
	tests := func(t *testing.T, files map[string]string, maxFiles int) []string {
		root := project(t, files)
		ix, err := New(Options{Root: root, TestSuffix: ".test.yaml", MaxFiles: maxFiles})
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
			if script != "" {
				script, _ = filepath.Rel(root, script)
			}
			got = append(got, filepath.ToSlash(rel)+" -> "+filepath.ToSlash(script))
		}
		return got
	}
	t.Run("above 4 MiB", func(t *testing.T) {
		t.Parallel()
		got := tests(t, map[string]string{
			"a/1.js":              "return 1;",
			"a/huge.test.yaml":    "# big\nscript: 1.js\n" + pad,
			"a/cut.test.yaml":     strings.Repeat("#", maxHead-5) + "\nscript: 1.js\n" + pad,
			"a/nothing.test.yaml": pad,
		}, 0)
		want := []string{"a/cut.test.yaml -> ", "a/huge.test.yaml -> a/1.js", "a/nothing.test.yaml -> "}
		if !slices.Equal(got, want) {
			t.Errorf("Tests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
	t.Run("past the scripts' cap", func(t *testing.T) {
		t.Parallel()
		got := tests(t, map[string]string{
			"a/1.js":            "return 1;",
			"a/2.js":            "return 2;",
			"a/3.js":            "return 3;",
			"z/after.test.yaml": "script: ../a/3.js\nresult: 3\n",
		}, 2)
		if want := []string{"z/after.test.yaml -> a/3.js"}; !slices.Equal(got, want) {
			t.Errorf("Tests: %q, want %q", got, want)
		}
	})
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
