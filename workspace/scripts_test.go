package workspace

import "testing"

func TestScriptFiles(t *testing.T) {
	def, err := NewScriptFiles(nil)
	if err != nil {
		t.Fatal(err)
	}
	var zero ScriptFiles
	for _, f := range []ScriptFiles{def, zero} {
		for path, want := range map[string]bool{
			"/w/webforms/script-code/orders/a.js": true,
			"/w/script-handler/h.js":              true,
			"/w/scripts/x/y.js":                   true,
			"/w/lib/orders.script.js":             true,
			"scripts/order.js":                    true,
			"/w/lib/util.js":                      false,
			"/w/scripts/readme.md":                false,
		} {
			if got := f.Match(path); got != want {
				t.Errorf("default Match(%q) = %v, want %v", path, got, want)
			}
		}
		if got := f.Globs(); len(got) != len(DefaultScriptGlobs) || got[0] != DefaultScriptGlobs[0] {
			t.Errorf("default Globs() = %v", got)
		}
	}
	own, err := NewScriptFiles([]string{"**/handlers/*.js", "[bad"})
	if err == nil {
		t.Error("a glob that does not compile: no error")
	}
	if !own.Match("/w/handlers/a.js") || own.Match("/w/scripts/a.js") {
		t.Errorf("own globs decide: %v", own.Globs())
	}
	if got := own.Globs(); len(got) != 1 || got[0] != "**/handlers/*.js" {
		t.Errorf("Globs() = %v, want the one that compiled", got)
	}
}

func TestScriptFilesNoneCompiles(t *testing.T) {
	f, err := NewScriptFiles([]string{"[bad"})
	if err == nil {
		t.Error("no error")
	}
	if !f.Match("/w/scripts/a.js") || len(f.Globs()) != len(DefaultScriptGlobs) {
		t.Errorf("no glob left: want the defaults, got %v", f.Globs())
	}
}
