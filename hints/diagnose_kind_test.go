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

// TestUnknownServiceChosenKind: when the user chose the kind
// (Display.KindChosen, the designer's selector), a "// restls-kind:" line
// would not change it: the id another kind has says to choose that kind,
// with no fix writing the line, and a line naming another kind than the
// chosen one is overruled (information), with a fix writing the chosen
// kind.
func TestUnknownServiceChosenKind(t *testing.T) {
	reg := testRegistry(t)
	other := func(id string) []config.Kind {
		if id == "tasks" {
			return []config.Kind{config.ScriptTask}
		}
		return nil
	}
	text := "// restls-kind: scriptTask\napi.rest.v1.get(\"tasks\", {}, {});\n"
	diags := Diagnose(NewDocument(text), reg, Display{ConfiguredFor: other, KindChosen: true})
	var codes []string
	for _, d := range diags {
		codes = append(codes, d.Code)
		switch d.Code {
		case CodeUnknownService:
			if !strings.Contains(d.Message, "choose scriptTask") || len(d.Fixes) != 0 {
				t.Errorf("unknown-service %+v: want 'choose scriptTask' and no fix", d)
			}
		case CodeKindDirectiveOverruled:
			if d.Severity != SeverityInfo || !strings.Contains(d.Message, "chosen as "+string(reg.Kind)) || len(d.Fixes) != 1 ||
				d.Range != FirstLine(text) {
				t.Fatalf("kind-directive-overruled %+v", d)
			}
			e := d.Fixes[0].Edits[0]
			if got := text[:e.Range.Start] + e.NewText + text[e.Range.End:]; !strings.HasPrefix(got, "// restls-kind: "+string(reg.Kind)+"\n") {
				t.Errorf("after the fix: %q", got)
			}
		}
	}
	if len(codes) != 2 {
		t.Errorf("codes %q, want unknown-service and kind-directive-overruled", codes)
	}
	// The chosen kind's own line, or none: nothing overruled.
	for _, text := range []string{"// restls-kind: " + string(reg.Kind) + "\nreturn 1;\n", "return 1;\n"} {
		for _, d := range Diagnose(NewDocument(text), reg, Display{KindChosen: true}) {
			t.Errorf("%q: %+v", text, d)
		}
	}
}
