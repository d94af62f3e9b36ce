package mcp

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestScriptToolsReadTheOpenText: a tool given a script's path reads it
// as the references tool's index does, through the Session: an editor's
// unsaved text when the file is open (on serve --http, where /mcp shares
// the editors' session), else the file. The tools once read the disk
// while references read the editor's text.
func TestScriptToolsReadTheOpenText(t *testing.T) {
	root := testProject(t)
	o := testOptions(t, root)
	cs := connect(t, o)
	order := filepath.Join(root, "scripts", "order.js")
	var out CheckOut
	call(t, cs, "check", map[string]any{"path": "scripts/order.js"}, &out)
	if out.Errors == 0 {
		t.Fatalf("scripts/order.js on disk calls the unknown serviceId order: %+v", out)
	}
	// The editor has fixed the serviceId, unsaved.
	o.Session.SetOverlay(1, order, 2, "var res = api.rest.v1.get(\"orders\", {pathParams: [\"orders\", context.input.id]}, {});\nreturn res.body.status;\n")
	call(t, cs, "check", map[string]any{"path": "scripts/order.js"}, &out)
	if out.Errors != 0 {
		t.Errorf("the editor's unsaved text has no error; the check tool answered %+v", out)
	}
	// A file open in an editor stays confined to the root.
	o.Session.SetOverlay(1, filepath.Join(filepath.Dir(root), "elsewhere.js"), 1, "return 1;\n")
	if res := call(t, cs, "check", map[string]any{"path": "../elsewhere.js"}, nil); !res.IsError || !strings.Contains(errorText(res), "outside") {
		t.Errorf("a file outside the root was read because an editor has it open: %q", errorText(res))
	}
	o.Session.DropOverlay(1, order)
	call(t, cs, "check", map[string]any{"path": "scripts/order.js"}, &out)
	if out.Errors == 0 {
		t.Errorf("closed unsaved, scripts/order.js is the file again: %+v", out)
	}
}
