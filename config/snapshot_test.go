package config

import "testing"

func TestNewSnapshot(t *testing.T) {
	reg := NewRegistry(ScriptTask, []Service{{ID: "a", URL: "https://a.example.com"}}, DefaultTimeouts, nil)
	s := NewSnapshot(Sources{}, reg, nil)
	if s.For(ScriptTask) != reg {
		t.Fatalf("For(ScriptTask) is not the registry given")
	}
	for _, k := range []Kind{ScriptService, ValidationScript} {
		r := s.For(k)
		if r == nil || r.Loaded || r.Len() != 0 || r.Kind != k || r.Timeouts != DefaultTimeouts {
			t.Errorf("For(%s) = %+v, want an empty registry that is not loaded", k, r)
		}
	}
	if got := (Diagnostic{Severity: SeverityError, Message: "no answer"}).String(); got != "error: no answer" {
		t.Errorf("a diagnostic without a position prints %q", got)
	}
}
