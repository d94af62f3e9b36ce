package config

import "testing"

func TestUnknownKeyMessage(t *testing.T) {
	known := []string{"status", "body", "method"}
	for key, want := range map[string]string{
		"stauts": `unknown key "stauts": did you mean "status"?`,
		"zzzzzz": `unknown key "zzzzzz"`,
	} {
		if got := UnknownKeyMessage(key, known); got != want {
			t.Errorf("UnknownKeyMessage(%q) = %q, want %q", key, got, want)
		}
	}
}
