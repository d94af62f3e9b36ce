package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/input"
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

// TestReferencesSayWhatTheIndexLeftOut: a script past input's walk
// depth is not indexed; the references tool's answer says so, with the
// message the editor shows, so an agent does not take the calls listed
// for all of them.
func TestReferencesSayWhatTheIndexLeftOut(t *testing.T) {
	root := testProject(t)
	o := testOptions(t, root)
	cs := connect(t, o)
	var out ReferencesOut
	call(t, cs, "references", map[string]any{"serviceId": "orders"}, &out)
	if out.LeftOut != "" {
		t.Fatalf("nothing left out, yet leftOut = %q", out.LeftOut)
	}

	root = testProject(t)
	deep := filepath.Join(append([]string{root, "scripts"}, strings.Split(strings.Repeat("d/", input.MaxWalkDepth), "/")...)...)
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(deep, "far.js"), []byte("api.rest.v1.get(\"orders\", {}, {});\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o = testOptions(t, root)
	cs = connect(t, o)
	call(t, cs, "references", map[string]any{"serviceId": "orders"}, &out)
	if !strings.Contains(out.LeftOut, "walk stopped") || !strings.Contains(out.LeftOut, "64") {
		t.Errorf("a script past the walk's depth: leftOut = %q, want where the walk stopped", out.LeftOut)
	}
}

// TestIndexOutlivesACancelledCall: the tool call that builds the
// session's shared project index first does not cut its build short when
// it is cancelled: the call, and every surface sharing the index, see
// the whole of it.
func TestIndexOutlivesACancelledCall(t *testing.T) {
	root := testProject(t)
	o := testOptions(t, root)
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the client cancelled its first call
	if _, err := s.index(ctx); err != nil {
		t.Fatalf("the first call, cancelled: %v; want the index built", err)
	}
	pi, isNew, err := o.Session.ProjectIndex(root, o.Session.Registry(), o.Session.Kinds())
	if err != nil || isNew {
		t.Fatalf("after the cancelled call, the shared index is new %v (%v); want the one it built", isNew, err)
	}
	if n, _ := pi.Index().Len(); n == 0 {
		t.Error("the shared index holds no script after the cancelled call")
	}
}
