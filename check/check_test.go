package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restls/restls/config"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func rel(t *testing.T, root string, files []string) []string {
	out := []string{}
	for _, f := range files {
		r, err := filepath.Rel(root, f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(r))
	}
	return out
}

// TestFindGitignore: .gitignore files of the repository apply below their
// own directory, with negation, directory-only and anchored patterns; a
// .gitignore above the walked directory counts; .git and node_modules are
// never walked.
func TestFindGitignore(t *testing.T) {
	root := writeTree(t, map[string]string{
		".git/HEAD":               "ref: refs/heads/main\n",
		".gitignore":              "*.min.js\n/top-only.js\nbuild/\n",
		"app/.gitignore":          "gen-*.js\n!gen-keep.js\n",
		"app/a.js":                "",
		"app/a.min.js":            "",
		"app/gen-x.js":            "",
		"app/gen-keep.js":         "",
		"app/top-only.js":         "",
		"top-only.js":             "",
		"other/gen-x.js":          "",
		"build/b.js":              "",
		"app/build/c.js":          "",
		"node_modules/m/index.js": "",
		"app/notes.txt":           "",
	})
	got, err := Find([]string{root}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"app/a.js", "app/gen-keep.js", "app/top-only.js", "other/gen-x.js"}
	if d := cmp.Diff(want, rel(t, root, got)); d != "" {
		t.Errorf("Find (-want +got):\n%s", d)
	}
	// Walking app alone still honours the repository's top .gitignore.
	got, err = Find([]string{filepath.Join(root, "app")}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"app/a.js", "app/gen-keep.js", "app/top-only.js"}, rel(t, root, got)); d != "" {
		t.Errorf("Find app (-want +got):\n%s", d)
	}
}

// TestFindGlobs: --include and --exclude match paths relative to the
// directory walked; a file named is checked whatever they say.
func TestFindGlobs(t *testing.T) {
	root := writeTree(t, map[string]string{
		"s/a.js": "", "s/b.mjs": "", "s/vendor/v.js": "", "t/c.js": "", "x.txt": "",
	})
	got, err := Find([]string{root, filepath.Join(root, "x.txt")}, []string{"**/*.js", "*.mjs"}, []string{"vendor/**", "t/*"})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"s/a.js", "s/b.mjs", "x.txt"}, rel(t, root, got)); d != "" {
		t.Errorf("Find (-want +got):\n%s", d)
	}
	if _, err := Find([]string{filepath.Join(root, "nope")}, nil, nil); err == nil {
		t.Error("a missing path is no error")
	}
}

// TestRunKinds: the directive wins over the kind map; the registry of the
// kind decides which serviceIds are known; columns count characters.
func TestRunKinds(t *testing.T) {
	root := writeTree(t, map[string]string{
		"tasks/a.js":      `api.rest.v1.get("task-svc", {}, {});`,
		"tasks/b.js":      "// restls-kind: scriptService\n" + `api.rest.v1.get("task-svc", {}, {});`,
		"forms/ü.js":      `var ä = api.rest.v1.get("task-svc", {}, {});`,
		"props.yml":       "",
		"handler/api.xml": `<scriptservice><api serviceId="task-svc" url="https://t.example.com"/></scriptservice>`,
	})
	snap := config.Load(config.Sources{HandlerXML: filepath.Join(root, "handler/api.xml"), Properties: []string{filepath.Join(root, "props.yml")}})
	rep, err := Run(Options{Paths: []string{root}, Kinds: config.KindMap{{Glob: "tasks/**", Kind: config.ScriptTask}}, Snapshot: snap, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		if f.Kind == "" {
			continue // configuration
		}
		r, _ := filepath.Rel(root, f.File)
		got = append(got, strings.Join([]string{filepath.ToSlash(r), f.Code, string(f.Kind)}, " "))
		if r == filepath.Join("forms", "ü.js") && f.Column != 26 {
			t.Errorf("column %d on a line with ä, want 26 (characters)", f.Column)
		}
	}
	want := []string{"forms/ü.js unknown-service scriptService", "tasks/b.js unknown-service scriptService"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
	if rep.Scripts != 3 {
		t.Errorf("%d scripts, want 3", rep.Scripts)
	}
}
