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
