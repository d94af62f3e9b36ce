package check

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
	"github.com/restls/restls/workspace"
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
	got, _, err := Find([]string{root}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"app/a.js", "app/gen-keep.js", "app/top-only.js", "other/gen-x.js"}
	if d := cmp.Diff(want, rel(t, root, got)); d != "" {
		t.Errorf("Find (-want +got):\n%s", d)
	}
	// Walking app alone still honours the repository's top .gitignore.
	got, _, err = Find([]string{filepath.Join(root, "app")}, nil, nil)
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
	got, _, err := Find([]string{root, filepath.Join(root, "x.txt")}, []string{"**/*.js", "*.mjs"}, []string{"vendor/**", "t/*"})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"s/a.js", "s/b.mjs", "x.txt"}, rel(t, root, got)); d != "" {
		t.Errorf("Find (-want +got):\n%s", d)
	}
	// A link to a directory is not followed; a link to a file is checked.
	if err := os.Symlink(filepath.Join(root, "s"), filepath.Join(root, "t", "link.js")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "s", "a.js"), filepath.Join(root, "u.js")); err != nil {
		t.Fatal(err)
	}
	got, _, err = Find([]string{root}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"s/a.js", "s/vendor/v.js", "t/c.js", "u.js"}, rel(t, root, got)); d != "" {
		t.Errorf("Find with links (-want +got):\n%s", d)
	}
	if _, _, err := Find([]string{filepath.Join(root, "nope")}, nil, nil); err == nil {
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
	tasks, err := input.FileGlob("tasks/**")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(Options{Paths: []string{root}, Workspace: fixedWorkspace(snap, config.KindMap{{Glob: tasks, Kind: config.ScriptTask}}), Workers: 3})
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

// TestColumnsAsTheEditorShows: a script's findings are placed where an
// editor shows them: the byte order mark a file starts with takes no
// column (check counted it: column 19), and a lone "\r" breaks a line (check
// read one line: 1:19). The conversions themselves are textpos's, tested
// there (FuzzMapper, which also holds what FuzzPosition checked here).
func TestColumnsAsTheEditorShows(t *testing.T) {
	root := writeTree(t, map[string]string{
		"bom.js":    "\ufeffapi.rest.v1.get(\"task-svc\", {}, {});",
		"lonecr.js": "//\rapi.rest.v1.get(\"task-svc\", {}, {});",
		"crlf.js":   "//ü\r\n\"😀\"; api.rest.v1.get(\"task-svc\", {}, {});",
		"props.yml": "",
	})
	snap := config.Load(config.Sources{Properties: []string{filepath.Join(root, "props.yml")}})
	rep, err := Run(Options{Paths: []string{root}, Workspace: fixedWorkspace(snap, nil)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		if f.Kind != "" {
			got = append(got, fmt.Sprintf("%s:%d:%d-%d:%d %s", filepath.Base(f.File), f.Line, f.Column, f.EndLine, f.EndColumn, f.Code))
		}
	}
	want := []string{
		"bom.js:1:18-1:26 unknown-service",
		"crlf.js:2:23-2:31 unknown-service",
		"lonecr.js:2:18-2:26 unknown-service",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
}

// TestNoConfiguration: without configuration the scripts are still
// checked (no serviceId checks), and the note about the directory has no
// line.
func TestNoConfiguration(t *testing.T) {
	root := writeTree(t, map[string]string{"a.js": `api.rest.v1.get("anything", {}, {}, {x: 1});`})
	rep, err := Run(Options{Paths: []string{root}, Workspace: workspace.NewSession(workspace.SessionOptions{Sources: config.Sources{ConfigRoot: root}})})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		got = append(got, fmt.Sprintf("%s:%d %s", filepath.Base(f.File), f.Line, f.Code))
	}
	want := []string{filepath.Base(root) + ":0 config-none-found", "a.js:1 payload-not-allowed"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
	if rep.ExitCode(true) != 1 || rep.ExitCode(false) != 1 {
		t.Errorf("exit %d / %d, want 1", rep.ExitCode(false), rep.ExitCode(true))
	}
}

// fixedWorkspace is a workspace whose configuration is snap, with kinds.
func fixedWorkspace(snap *config.Snapshot, kinds config.KindMap) *workspace.Session {
	return workspace.NewSession(workspace.SessionOptions{Kinds: kinds, Load: func(config.Sources) *config.Snapshot { return snap }})
}

// TestUnused: --unused reports each entry that no script checked, of a
// kind reading its file, calls; an entry an <id>/<suffix> url names is
// used through that url; without Unused nothing is reported.
func TestUnused(t *testing.T) {
	root := writeTree(t, map[string]string{
		"config/application.yml": "scriptservice:\n  api:\n    - serviceId: crm\n      url: https://crm.example.com\n" +
			"    - serviceId: hr\n      url: https://hr.example.com\n    - serviceId: base\n      url: https://b.example.com\n" +
			"    - serviceId: orders\n      url: base/orders\n",
		"config/script-handler-config/script-handler-api.xml": "<scriptservice>\n  <api serviceId=\"tasky\" url=\"https://t.example.com\"/>\n</scriptservice>\n",
		"scripts/a.js": "api.rest.v1.get(\"crm\", {}, {});\napi.rest.v1.get(\"orders\", {}, {});\napi.rest.v1.get(\"tasky\", {}, {});\n",
	})
	ws := workspace.NewSession(workspace.SessionOptions{Sources: config.Sources{ConfigRoot: filepath.Join(root, "config")}})
	var got []string
	for _, unused := range []bool{false, true} {
		rep, err := Run(Options{Paths: []string{filepath.Join(root, "scripts")}, Workspace: ws, Unused: unused})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Findings {
			if f.Code == "service-unused" {
				got = append(got, fmt.Sprintf("%v %s:%d:%d %s", unused, filepath.Base(f.File), f.Line, f.Column, f.Severity))
			}
		}
		if rep.ExitCode(true) != 1 { // unknown-service tasky: a scriptService script
			t.Errorf("unused=%v: exit %d, want 1", unused, rep.ExitCode(true))
		}
	}
	want := []string{"true application.yml:5:7 info", "true script-handler-api.xml:2:3 info"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("service-unused findings (-want +got):\n%s", diff)
	}
}
