package mcp

import (
	"path/filepath"
	"testing"
)

// TestReferencesShareTheSessionIndex: the references tool reads the
// Session's project index, the language server's: an editor's unsaved
// text (the Session's overlay) is what it finds, and the index it built
// is the one the Session hands the next surface.
func TestReferencesShareTheSessionIndex(t *testing.T) {
	root := testProject(t)
	o := testOptions(t, root)
	cs := connect(t, o)
	unsaved := filepath.Join(root, "scripts", "unsaved.js")
	o.Session.SetOverlay(1, unsaved, 1, "function f() {\n  return api.rest.v1.get(\"orders\", {}, {});\n}\n")
	var out ReferencesOut
	call(t, cs, "references", map[string]any{"serviceId": "orders"}, &out)
	found := false
	for _, c := range out.Calls {
		found = found || c.File == "scripts/unsaved.js" && c.Line == 2
	}
	if !found {
		t.Errorf("the editor's unsaved scripts/unsaved.js not among the calls: %+v", out.Calls)
	}
	if _, isNew, err := o.Session.ProjectIndex(root, o.Session.Registry(), o.Session.Kinds()); err != nil || isNew {
		t.Errorf("the Session made another index (%v): the references tool's was not its", err)
	}
	o.Session.DropOverlay(1, unsaved)
	call(t, cs, "references", map[string]any{"serviceId": "orders"}, &out)
	for _, c := range out.Calls {
		if c.File == "scripts/unsaved.js" {
			t.Errorf("closed and never saved, scripts/unsaved.js is still a call: %+v", out.Calls)
		}
	}
}
