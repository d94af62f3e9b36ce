package index

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/restls/restls/config"
)

func unusedIDs(t *testing.T, ix *Index, root, file string) []string {
	t.Helper()
	var out []string
	for _, u := range ix.Unused(filepath.Join(root, "config", filepath.FromSlash(file))) {
		out = append(out, u.Entry.ID)
		if !strings.Contains(u.Message, `"`+u.Entry.ID+`"`) {
			t.Errorf("message does not name the id: %s", u.Message)
		}
	}
	return out
}

func TestUnused(t *testing.T) {
	root := project(t, testFiles)
	ix := build(t, root, nil)
	// hr is called only with an id built at run time; crm is named by
	// orders' url; orders and tasky are called.
	if got := unusedIDs(t, ix, root, "application.yml"); !slices.Equal(got, []string{"hr"}) {
		t.Errorf("application.yml unused = %q, want [hr]", got)
	}
	for _, f := range []string{"script-code-config/script-service-api.xml", "script-handler-config/script-handler-api.xml"} {
		if got := unusedIDs(t, ix, root, f); len(got) > 0 {
			t.Errorf("%s unused = %q, want none", f, got)
		}
	}
	// Without a.js no scriptService script calls crm or orders:
	// application.yml's orders is unused; its crm is still called by the
	// scriptTask script b.js; the service XML's crm is still named by
	// orders' url (crm/orders), which scriptService scripts read.
	if err := os.Remove(filepath.Join(root, "scripts", "a.js")); err != nil {
		t.Fatal(err)
	}
	ix.Update(filepath.Join(root, "scripts", "a.js"))
	if got := unusedIDs(t, ix, root, "application.yml"); !slices.Equal(got, []string{"orders", "hr"}) {
		t.Errorf("after removing a.js, application.yml unused = %q, want [orders hr]", got)
	}
	if got := unusedIDs(t, ix, root, "script-code-config/script-service-api.xml"); len(got) > 0 {
		t.Errorf("after removing a.js, service XML unused = %q, want none", got)
	}
	// Without b.js the handler XML's tasky is unused.
	if err := os.Remove(filepath.Join(root, "scripts", "b.js")); err != nil {
		t.Fatal(err)
	}
	ix.Update(filepath.Join(root, "scripts", "b.js"))
	if got := unusedIDs(t, ix, root, "script-handler-config/script-handler-api.xml"); !slices.Equal(got, []string{"tasky"}) {
		t.Errorf("after removing b.js, handler XML unused = %q, want [tasky]", got)
	}
}

func TestUnusedTruncated(t *testing.T) {
	root := project(t, testFiles)
	ix, err := New(Options{Root: root, MaxFiles: 1})
	if err != nil {
		t.Fatal(err)
	}
	_ = ix.Build(t.Context())
	ix.SetConfig(config.Load(config.Sources{ConfigRoot: filepath.Join(root, "config")}))
	if got := unusedIDs(t, ix, root, "application.yml"); len(got) > 0 {
		t.Errorf("a truncated index reports unused %q, want none", got)
	}
}

// TestUnusedAgreesWithOccurrences: an entry is service-unused exactly when
// its occurrences, asked from its kinds, hold no call and no url naming
// it: what references show from the entry is empty then, and only then.
// Asked of projects where the scope closes over application.yml.
func TestUnusedAgreesWithOccurrences(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"test files": testFiles,
		"closed scope": {
			"config/application.yml":                           "scriptservice:\n  api:\n    - serviceId: crm\n      url: https://crm.example.com\n    - serviceId: idle\n      url: https://idle.example.com\n",
			"config/script-code-config/script-service-api.xml": "<scriptservice>\n  <api serviceId=\"crm\" url=\"https://crm2.example.com\"/>\n</scriptservice>\n",
			"task.js": "// restls-kind: scriptTask\napi.rest.v1.get(\"crm\", {}, {});\n",
		},
	} {
		root := project(t, files)
		ix := build(t, root, nil)
		for _, file := range ix.EntryFiles() {
			unused := map[int]bool{}
			for _, u := range ix.Unused(file) {
				unused[u.Entry.Defined.Line] = true
			}
			for _, e := range ix.EntriesIn(file) {
				if e.OAuth || e.ID == "" {
					continue
				}
				o := ix.Occurrences(e.ID, false, e.Kinds)
				named := len(o.Calls) > 0 || slices.ContainsFunc(o.URLRefs, func(r config.Entry) bool { return r.ID != e.ID })
				if unused[e.Defined.Line] == named {
					t.Errorf("%s: %s:%d %q: service-unused %v, but its occurrences hold %d calls and %d urls",
						name, filepath.Base(file), e.Defined.Line, e.ID, unused[e.Defined.Line], len(o.Calls), len(o.URLRefs))
				}
			}
		}
	}
}
