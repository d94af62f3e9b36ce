package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
)

// project writes files under a new root and returns it.
func project(t testing.TB, files map[string]string) string {
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

func build(t testing.TB, root string, kinds config.KindMap) *Index {
	t.Helper()
	ix, err := New(Options{Root: root, Kinds: kinds})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	ix.SetConfig(config.Load(config.Sources{ConfigRoot: filepath.Join(root, "config")}))
	return ix
}

var testFiles = map[string]string{
	"config/application.yml": "scriptservice:\n  api:\n    - serviceId: crm\n      url: https://crm.example.com/v1\n" +
		"    - serviceId: orders\n      url: crm/orders\n    - serviceId: hr\n      url: https://hr.example.com\n",
	"config/script-code-config/script-service-api.xml":    "<scriptservice>\n  <api serviceId=\"crm\" url=\"https://crm2.example.com\"/>\n</scriptservice>\n",
	"config/script-handler-config/script-handler-api.xml": "<scriptservice>\n  <api serviceId=\"tasky\" url=\"https://t.example.com\"/>\n</scriptservice>\n",
	"scripts/a.js":              "function load(id) {\n  return api.rest.v1.get(\"crm\", {pathParams: [\"customers\", id]}, {});\n}\napi.rest.v1.post('orders', {}, {}, {});\n",
	"scripts/b.js":              "// restls-kind: scriptTask\napi.rest.v1.get(\"crm\", {}, {});\napi.rest.v1.get(\"tasky\", {}, {});\n",
	"scripts/dyn.js":            "api.rest.v1.get(\"hr\" + suffix, {}, {});\n",
	"scripts/node_modules/x.js": "api.rest.v1.get(\"crm\", {}, {});\n",
	".hidden/y.js":              "api.rest.v1.get(\"crm\", {}, {});\n",
	"scripts/notes.txt":         "api.rest.v1.get(\"crm\", {}, {});\n",
}

func callList(refs []Ref) []string {
	var out []string
	for _, r := range refs {
		out = append(out, where(r.Script, r.Site().IDRange.Start))
	}
	return out
}

func TestReferences(t *testing.T) {
	root := project(t, testFiles)
	ix := build(t, root, nil)
	if n, trunc := ix.Len(); n != 3 || trunc {
		t.Fatalf("scripts: %d truncated %v; want 3 (node_modules, hidden directories and .txt left out)", n, trunc)
	}
	refs := ix.Occurrences("crm", false, []config.Kind{config.ScriptService})
	// application.yml defines crm for every kind: asked from a
	// scriptService call, the scriptTask call is an occurrence too (a
	// rename from there edits it).
	if got, want := callList(refs.Calls), []string{"scripts/a.js:2:27", "scripts/b.js:2:18"}; !slices.Equal(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
	if got := refs.Kinds; !slices.Equal(got, config.Kinds) {
		t.Errorf("scope %v, want every kind", got)
	}
	if len(refs.Definitions) != 2 || len(refs.URLRefs) != 1 || refs.URLRefs[0].ID != "orders" {
		t.Errorf("definitions %d url refs %v", len(refs.Definitions), refs.URLRefs)
	}
	all := ix.Occurrences("crm", false, config.Kinds)
	if got, want := callList(all.Calls), []string{"scripts/a.js:2:27", "scripts/b.js:2:18"}; !slices.Equal(got, want) {
		t.Errorf("calls of every kind %v, want %v", got, want)
	}
	if n := ix.Callers("crm", []config.Kind{config.ScriptTask}); n != 2 {
		t.Errorf("callers of crm asked from scriptTask: %d, want 2 (the scope closes over application.yml)", n)
	}
	if n := ix.Callers("tasky", []config.Kind{config.ScriptTask}); n != 1 {
		t.Errorf("callers of tasky: %d, want 1", n)
	}
	syms, more := ix.Symbols("R", 10)
	var names []string
	for _, s := range syms {
		names = append(names, s.Entry.ID)
	}
	if want := []string{"crm", "crm", "hr", "orders"}; !slices.Equal(names, want) || more {
		t.Errorf("symbols %v more %v, want %v", names, more, want)
	}
}

// apply applies a plan's edits to the files on disk, as an editor would.
func apply(t *testing.T, p *Plan) {
	t.Helper()
	for _, f := range p.Files {
		data, err := input.ReadFile(f.Path, input.Script)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		for i := len(f.Edits) - 1; i >= 0; i-- {
			e := f.Edits[i]
			text = text[:e.Start] + e.NewText + text[e.End:]
		}
		if err := os.WriteFile(f.Path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRename renames crm from a scriptService call: the YAML definition is
// read by every kind, so scriptTask's script follows; after the edits, a
// fresh load calls every renamed call's id configured.
func TestRename(t *testing.T) {
	root := project(t, testFiles)
	os.Remove(filepath.Join(root, "scripts/dyn.js"))
	ix := build(t, root, nil)
	p, err := ix.Rename("crm", "crm-customers", []config.Kind{config.ScriptService})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range p.Files {
		rel, _ := filepath.Rel(root, f.Path)
		files = append(files, fmt.Sprintf("%s config=%v edits=%d", filepath.ToSlash(rel), f.Config, len(f.Edits)))
	}
	want := []string{"config/application.yml config=true edits=2", "config/script-code-config/script-service-api.xml config=true edits=1",
		"scripts/a.js config=false edits=1", "scripts/b.js config=false edits=1"}
	if !slices.Equal(files, want) || len(p.Kinds) != 3 {
		t.Fatalf("plan %v kinds %v\nwant %v", files, p.Kinds, want)
	}
	apply(t, p)
	after := build(t, root, nil)
	if r := after.Occurrences("crm", false, config.Kinds); len(r.Calls)+len(r.Definitions)+len(r.URLRefs) != 0 {
		t.Errorf("crm still named: %+v", r)
	}
	r := after.Occurrences("crm-customers", false, config.Kinds)
	if len(r.Calls) != 2 || len(r.Definitions) != 2 || len(r.URLRefs) != 1 {
		t.Errorf("crm-customers: %d calls %d definitions %d url refs", len(r.Calls), len(r.Definitions), len(r.URLRefs))
	}
	snap := config.Load(config.Sources{ConfigRoot: filepath.Join(root, "config")})
	if s, ok := snap.For(config.ScriptService).Service("orders"); !ok || s.URL != "https://crm.example.com/v1/orders" {
		t.Errorf("orders after the rename: %v %v", s, ok)
	}
}

func TestRenameRefused(t *testing.T) {
	root := project(t, testFiles)
	ix := build(t, root, nil)
	for _, tc := range []struct {
		id, newID string
		kinds     []config.Kind
		want      string
	}{
		{"crm", "crm/x", config.Kinds, `"crm/x" is not a valid serviceId`},
		{"crm", "", config.Kinds, "cannot be empty"},
		{"crm", "hr", []config.Kind{config.ScriptService}, `serviceId "hr" is already configured at ` + filepath.Join(root, "config/application.yml") + `:7:7 for scriptService and scriptTask and validationScript scripts, which call "crm"`},
		{"crm", "crm2", []config.Kind{config.ScriptService}, "the call at scripts/dyn.js:1:17 builds its serviceId at run time"},
	} {
		_, err := ix.Rename(tc.id, tc.newID, tc.kinds)
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("rename %s -> %q: %v\nwant %s", tc.id, tc.newID, err, tc.want)
		}
	}
	// tasky is defined for scriptTask only: dyn.js (scriptService) does not
	// stop its rename.
	if _, err := ix.Rename("tasky", "tasks", []config.Kind{config.ScriptTask}); err != nil {
		t.Errorf("rename of tasky: %v", err)
	}
}

// TestPoll: without reports, one Poll finds a created, a changed and a
// deleted script.
func TestPoll(t *testing.T) {
	root := project(t, testFiles)
	ix := build(t, root, nil)
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("scripts/new.js", "api.rest.v1.get(\"hr\", {}, {});\n")
	write("scripts/a.js", "api.rest.v1.get(\"crm\", {}, {});\napi.rest.v1.get(\"crm\", {pathParams: [\"x\"]}, {});\n")
	os.Remove(filepath.Join(root, "scripts/dyn.js"))
	if !ix.Poll() {
		t.Fatal("Poll saw no change")
	}
	fresh := build(t, root, nil)
	if got, want := dump(ix), dump(fresh); got != want {
		t.Errorf("after Poll:\n%s\nfresh:\n%s", got, want)
	}
	if ix.Poll() {
		t.Error("a second Poll saw a change")
	}
}

// TestWhereCountsCharacters: a position a message names counts characters,
// as restls check's do (it counted bytes: 36 here).
func TestWhereCountsCharacters(t *testing.T) {
	files := map[string]string{
		"config/application.yml": testFiles["config/application.yml"],
		"scripts/u.js":           "var s = \"é😀\"; api.rest.v1.get(\"crm\", {}, {});\n",
	}
	ix := build(t, project(t, files), nil)
	refs := ix.Occurrences("crm", false, []config.Kind{config.ScriptService})
	if got, want := callList(refs.Calls), []string{"scripts/u.js:1:32"}; !slices.Equal(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
}
