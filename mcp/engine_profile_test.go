package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/engine"
)

// TestEngineProfile: under restls.yaml's engine, the check tool reports
// engine-syntax as the editor does, and the run tool's run is refused
// with the same message (the one run engine refuses it on every door).
func TestEngineProfile(t *testing.T) {
	root := testProject(t)
	file := filepath.Join(root, "restls.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, append(data, "\nengine: es5.1\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	o := testOptions(t, root)
	o.Run = engine.New(engine.Options{Isolation: engine.InProcess}).Run
	cs := connect(t, o)
	const text = "var f = function (x) { return x; };\nvar g = () => f(1);\nreturn g();"
	var checked CheckOut
	call(t, cs, "check", map[string]any{"text": text}, &checked)
	var msg string
	for _, d := range checked.Diagnostics {
		if d.Code == "engine-syntax" {
			msg = d.Message
		}
	}
	if msg == "" || !strings.Contains(msg, "arrow functions came in es2015") {
		t.Fatalf("check: no engine-syntax: %+v", checked.Diagnostics)
	}
	var out RunOut
	call(t, cs, "run", map[string]any{"text": text, "fixtures": "fixtures: []"}, &out)
	b, _ := json.Marshal(out.Error)
	var e struct{ Code, Message string }
	_ = json.Unmarshal(b, &e)
	if !out.Threw || e.Code != "engine-syntax" || e.Message != msg {
		t.Fatalf("run: not refused with the check's message %q: %s", msg, b)
	}
}
