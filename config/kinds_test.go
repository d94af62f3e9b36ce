package config

import "testing"

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

func TestMatchGlob(t *testing.T) {
	tests := []struct {
		glob, file string
		want       bool
	}{
		{"*.js", "/w/a/b.js", true},
		{"**/tasks/*.js", "/w/tasks/a.js", true},
		{"**/tasks/*.js", "/w/tasks/sub/a.js", false},
		{"tasks/**", "/w/tasks/sub/a.js", true},
		{"/w/tasks/*.js", "/w/tasks/a.js", true},
		{"/w/tasks/*.js", "/x/w/tasks/a.js", false},
		{"*.validator.js", "/w/a.js", false},
		{"", "/w/a.js", false},
	}
	for _, tt := range tests {
		if got := MatchGlob(tt.glob, tt.file); got != tt.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", tt.glob, tt.file, got, tt.want)
		}
	}
}

// TestKindOf: the directive wins over the globs, the first glob wins, and
// scriptService is the default.
func TestKindOf(t *testing.T) {
	m := KindMap{{Glob: "tasks/**", Kind: ScriptTask}, {Glob: "*.js", Kind: ValidationScript}}
	tests := []struct {
		file, text string
		want       Kind
	}{
		{"/w/tasks/a.js", "return 1;", ScriptTask},
		{"/w/tasks/a.js", "// restls-kind: scriptService\nreturn 1;", ScriptService},
		{"/w/other/a.js", "", ValidationScript},
		{"/w/other/a.ts", "", ScriptService},
	}
	for _, tt := range tests {
		if got := m.KindOf(tt.file, tt.text); got != tt.want {
			t.Errorf("KindOf(%q, %q) = %s, want %s", tt.file, tt.text, got, tt.want)
		}
	}
}
