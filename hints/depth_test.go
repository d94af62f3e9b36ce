package hints

import (
	"strings"
	"testing"

	"github.com/restls/restls/internal/deepgentest"
	"github.com/restls/restls/jsdepth"
)

// A script nested beyond the budget gets one diagnostic for the whole
// document and no AST work: the parser would overflow the stack.
func TestDiagnoseTooDeep(t *testing.T) {
	n := 300000
	reg := testRegistry(t)
	deepMsg := "the script nests brackets or arrow functions more than 1000 deep here; restls does not check it " +
		"(and a dry run refuses it): split the expression into variables or build the value in a loop"
	ambMsg := "restls cannot tell whether this / divides or starts a regular expression, and the two readings " +
		"disagree about the rest of the script; the script is not checked (and a dry run refuses it): " +
		"put the expression before or after the / in parentheses"
	costMsg := "arrow functions without braces or labels nest so much up to here that parsing the script would take too long; " +
		"restls does not check it (and a dry run refuses it): give the arrow functions block bodies ({ return ... }) or split the expression into variables"
	for _, tc := range []struct {
		name, src string
		at        int
		msg       string
	}{
		{"parens", "return " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n), len("return ") + jsdepth.Max, deepMsg},
		{"objects", "api.rest.v1.get(\"nope\", {}, {});\nreturn " + strings.Repeat("{a:", n), len("api.rest.v1.get(\"nope\", {}, {});\nreturn ") + 3*jsdepth.Max, deepMsg},
		{"templates", strings.Repeat("`${", 150000), 3*jsdepth.Max + 1, deepMsg},
		{"ambiguous slash", "x = function(){} / `/` + 1\n" + strings.Repeat("(", n), 17, ambMsg},
		// Issue 23, finding 12: 50,000 "()=>" took 12.8 s to check.
		{"arrows", strings.Repeat("()=>", 50000) + "1", 4 * jsdepth.Max, deepMsg},
		{"labels", strings.Repeat("a:", 100000) + "1", 725, costMsg},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := NewDocument(tc.src)
			diags := Diagnose(doc, reg, Display{})
			if len(diags) != 1 {
				t.Fatalf("%d diagnostics: %+v", len(diags), diags)
			}
			d := diags[0]
			if d.Code != CodeScriptTooDeep || d.Severity != SeverityError || d.Range.Start != tc.at || d.Range.End != tc.at+1 || d.Message != tc.msg {
				t.Fatalf("diagnostic %+v", d)
			}
			// The cursor features read the text with the tolerant scanner
			// and must answer too, at the start, the middle and the end.
			for _, o := range []int{0, len(tc.src) / 2, len(tc.src)} {
				Complete(doc, o, reg)
				Signature(doc, o, reg)
				HoverAt(doc, o, reg, Display{})
			}
		})
	}
}

func TestDiagnoseAtTheLimit(t *testing.T) {
	for shape := range deepgentest.Shapes {
		// The deepest script of this shape within the budget.
		d := jsdepth.Max
		for !jsdepth.Check(deepgentest.Script(shape, d, true, ""), jsdepth.Max).OK() {
			d--
		}
		text := deepgentest.Script(shape, d, true, "")
		for _, d := range Diagnose(NewDocument(text), nil, Display{}) {
			if d.Code == CodeScriptTooDeep {
				t.Fatalf("shape %d: %+v", shape, d)
			}
		}
	}
}

// FuzzDeepDocuments drives every feature of the hint engine with generated
// deep and long scripts (tens of thousands of levels, long flat chains),
// which random bytes never reach: beyond the budget there is exactly one
// diagnostic, within it the usual ones, and nothing fails.
func FuzzDeepDocuments(f *testing.F) {
	f.Add(uint8(0), uint16(300), true, "", uint16(0))
	f.Add(uint8(2), uint16(40000), false, "api.rest.v1.get(\"", uint16(72))
	f.Add(uint8(3), uint16(1001), true, "\napi.", uint16(24))
	f.Add(uint8(4), uint16(999), true, ";api.rest.v1.post(\"crm\", {}, {}, ", uint16(60000))
	f.Add(uint8(9), uint16(40000), true, "", uint16(800))
	f.Add(uint8(11), uint16(500), true, "/`/", uint16(56))
	reg := testRegistry(f)
	f.Fuzz(func(t *testing.T, shape uint8, depth uint16, closed bool, tail string, off uint16) {
		d := int(depth)
		switch {
		case shape%deepgentest.Shapes == 9:
			d %= 5000 // a long flat chain: goja parses it in linear time, but not fast
		case d <= jsdepth.Max:
			// Within the budget goja parses every level (about 10 µs
			// each); TestDiagnoseAtTheLimit covers the limit itself.
			d %= 200
		}
		text := deepgentest.Script(int(shape), d, closed, tail)
		doc := NewDocument(text)
		diags := Diagnose(doc, reg, Display{})
		if !jsdepth.Check(text, jsdepth.Max).OK() {
			if len(diags) != 1 || diags[0].Code != CodeScriptTooDeep {
				t.Fatalf("too deep, but %d diagnostics: %+v", len(diags), diags)
			}
		}
		for _, dg := range diags {
			checkRange(t, text, dg.Range, dg.Code)
		}
		// The cursor features scan at most a window before the cursor, so
		// deep text costs them milliseconds: one execution in eight.
		if off%8 != 0 {
			return
		}
		o := int(off/8) % (len(text) + 1)
		for _, it := range Complete(doc, o, reg).Items {
			checkRange(t, text, it.Replace, it.Label)
		}
		Signature(doc, o, reg)
		if h, ok := HoverAt(doc, o, reg, Display{}); ok {
			checkRange(t, text, h.Range, "hover")
		}
	})
}
