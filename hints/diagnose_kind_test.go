package hints

import (
	"strings"
	"testing"

	"github.com/restls/restls/config"
)

// TestUnknownServiceOtherKind: an id unknown for the script's kind but
// configured for another says so, and its first fix writes the kind's
// first line: inserted, or replacing a first line that names a kind
// (even a misspelt one); without ConfiguredFor nothing changes.
func TestUnknownServiceOtherKind(t *testing.T) {
	reg := testRegistry(t)
	other := func(id string) []config.Kind {
		if id == "tasks" {
			return []config.Kind{config.ScriptTask}
		}
		return nil
	}
	for _, tc := range []struct{ name, text, want string }{
		{"inserted", "api.rest.v1.get(\"tasks\", {}, {});\n", "// restls-kind: scriptTask\napi.rest.v1.get(\"tasks\", {}, {});\n"},
		{"replaced", "// restls-kind: validationScript\r\napi.rest.v1.get(\"tasks\", {}, {});\n", "// restls-kind: scriptTask\r\napi.rest.v1.get(\"tasks\", {}, {});\n"},
		{"misspelt replaced", "\ufeff//restls-kind: scriptTsk\napi.rest.v1.get(\"tasks\", {}, {});\n", "\ufeff// restls-kind: scriptTask\napi.rest.v1.get(\"tasks\", {}, {});\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			diags := Diagnose(NewDocument(tc.text), reg, Display{ConfiguredFor: other})
			if len(diags) != 1 || diags[0].Code != CodeUnknownService {
				t.Fatalf("diagnostics %+v, want one unknown-service", diags)
			}
			d := diags[0]
			if !strings.Contains(d.Message, "configured for scriptTask scripts") || len(d.Fixes) == 0 || !d.Fixes[0].Preferred {
				t.Fatalf("diagnostic %+v", d)
			}
			got := tc.text
			for i := len(d.Fixes[0].Edits) - 1; i >= 0; i-- {
				e := d.Fixes[0].Edits[i]
				got = got[:e.Range.Start] + e.NewText + got[e.Range.End:]
			}
			if got != tc.want {
				t.Errorf("after %q:\n%q\nwant\n%q", d.Fixes[0].Title, got, tc.want)
			}
			if k, ok := config.DetectKind(got); !ok || k != config.ScriptTask {
				t.Errorf("the result's kind is %q, %v", k, ok)
			}
		})
	}
	diags := Diagnose(NewDocument("api.rest.v1.get(\"tasks\", {}, {});\n"), reg, Display{})
	if len(diags) != 1 || strings.Contains(diags[0].Message, "scriptTask") {
		t.Errorf("without ConfiguredFor: %+v", diags)
	}
}
