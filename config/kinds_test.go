package config

import (
	"testing"

	"github.com/restls/restls/input"
)

func mustGlob(t testing.TB, glob string) *input.Glob {
	t.Helper()
	g, err := input.FileGlob(glob)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestDetectKind(t *testing.T) {
	tests := []struct {
		text string
		kind string
		ok   bool
	}{
		{"// restls-kind: scriptTask\nreturn 1;", "scriptTask", true},
		{"//restls-kind:validationScript", "validationScript", true},
		{"\ufeff  // restls-kind:  scriptService  \r\nx", "scriptService", true},
		{"// restls-kind: nonsense\n", "", false},
		{"\n// restls-kind: scriptTask\n", "", false},
		{"/* restls-kind: scriptTask */", "", false},
		{"var x; // restls-kind: scriptTask", "", false},
		{"", "", false},
	}
	for _, tc := range tests {
		k, ok := DetectKind(tc.text)
		if string(k) != tc.kind || ok != tc.ok {
			t.Errorf("DetectKind(%q) = %q, %v; want %q, %v", tc.text, k, ok, tc.kind, tc.ok)
		}
	}
}

// TestKindOf: the directive wins over the globs, the first glob wins, and
// scriptService is the default; Decide says which of them decided.
func TestKindOf(t *testing.T) {
	m := KindMap{{Glob: mustGlob(t, "tasks/**"), Kind: ScriptTask}, {Glob: mustGlob(t, "*.js"), Kind: ValidationScript}}
	tests := []struct {
		file, text string
		want       KindDecision
	}{
		{"/w/tasks/a.js", "return 1;", KindDecision{ScriptTask, KindFromMap, "tasks/**"}},
		{"/w/tasks/a.js", "// restls-kind: scriptService\nreturn 1;", KindDecision{ScriptService, KindFromDirective, ""}},
		{"/w/other/a.js", "", KindDecision{ValidationScript, KindFromMap, "*.js"}},
		{"/w/other/a.ts", "", KindDecision{ScriptService, KindFromDefault, ""}},
	}
	// An explicit glob (the designer's selector) wins over the directive;
	// an explicit glob that does not match leaves the rule as it was.
	m = append(KindMap{{Glob: mustGlob(t, "chosen/**"), Kind: ValidationScript}}.Explicit(), m...)
	tests = append(tests, []struct {
		file, text string
		want       KindDecision
	}{
		{"/w/chosen/a.js", "// restls-kind: scriptTask\nreturn 1;", KindDecision{ValidationScript, KindFromExplicit, "chosen/**"}},
		{"/w/tasks/a.js", "// restls-kind: scriptService\nreturn 1;", KindDecision{ScriptService, KindFromDirective, ""}},
		{"/w/tasks/a.js", "return 1;", KindDecision{ScriptTask, KindFromMap, "tasks/**"}},
	}...)
	for _, tt := range tests {
		if got := m.Decide(tt.file, tt.text); got != tt.want {
			t.Errorf("Decide(%q, %q) = %+v, want %+v", tt.file, tt.text, got, tt.want)
		}
		if got := m.KindOf(tt.file, tt.text); got != tt.want.Kind {
			t.Errorf("KindOf(%q, %q) = %s, want %s", tt.file, tt.text, got, tt.want.Kind)
		}
	}
}

// TestDecideNamed: a kind the user named wins over the directive and the
// map (source explicit); none leaves it to Decide.
func TestDecideNamed(t *testing.T) {
	m := KindMap{{Glob: mustGlob(t, "tasks/**"), Kind: ScriptTask}}
	if got := m.DecideNamed(ValidationScript, "/w/tasks/a.js", "// restls-kind: scriptService\n"); got != (KindDecision{ValidationScript, KindFromExplicit, ""}) {
		t.Errorf("named: %+v", got)
	}
	if got := m.DecideNamed("", "/w/tasks/a.js", "// restls-kind: scriptService\n"); got != (KindDecision{ScriptService, KindFromDirective, ""}) {
		t.Errorf("not named: %+v", got)
	}
}
