package config

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSkeletonXMLEntry(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		exists     bool
		id, want   string
		ok         bool
	}{
		{"missing file", "", false, "crm", "<scriptservice>\n  <api serviceId=\"crm\" url=\"https://CHANGE-ME.invalid/\"/>\n</scriptservice>\n", true},
		{"after the entries, their indent", "<scriptservice>\n    <api serviceId=\"a\" url=\"https://a\"/>\n</scriptservice>\n", true, "b",
			"<scriptservice>\n    <api serviceId=\"a\" url=\"https://a\"/>\n    <api serviceId=\"b\" url=\"https://CHANGE-ME.invalid/\"/>\n</scriptservice>\n", true},
		{"closing tag on the same line", "<scriptservice></scriptservice>", true, "b",
			"<scriptservice>\n  <api serviceId=\"b\" url=\"https://CHANGE-ME.invalid/\"/>\n</scriptservice>", true},
		{"escaped id", "<scriptservice>\n</scriptservice>\n", true, `a"<&b`,
			"<scriptservice>\n  <api serviceId=\"a&#34;&lt;&amp;b\" url=\"https://CHANGE-ME.invalid/\"/>\n</scriptservice>\n", true},
		{"empty root element", "<scriptservice/>\n", true, "b", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			off, ins, ok := SkeletonXMLEntry(tc.text, tc.exists, tc.id)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			if got := tc.text[:off] + ins + tc.text[off:]; got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if !tc.exists {
				return
			}
			// The result parses and defines the id.
			p := parseServiceXMLForTest(t, tc.text[:off]+ins+tc.text[off:])
			if !p {
				t.Errorf("the result does not define %q", tc.id)
			}
		})
	}
}

// parseServiceXMLForTest reports whether text parses without an error
// and its last api entry has a usable-looking id.
func parseServiceXMLForTest(t *testing.T, text string) bool {
	t.Helper()
	p := parseServiceXML("s.xml", []byte(text))
	for _, d := range p.diags {
		if d.Severity == SeverityError {
			t.Errorf("%v", d)
		}
	}
	return len(p.apis) > 0 && p.apis[len(p.apis)-1].serviceID.set
}

// FuzzSkeletonXMLEntry: in a service XML file that reads without an
// error, the skeleton entry adds exactly one api entry, with the id
// asked, after the others, and the file still reads without an error.
func FuzzSkeletonXMLEntry(f *testing.F) {
	f.Add("<scriptservice>\n  <api serviceId=\"a\" url=\"https://a\"/>\n</scriptservice>\n", "b")
	f.Add("<?xml version=\"1.0\"?>\n<scriptservice><!-- </scriptservice> --></scriptservice>", "x&y")
	f.Add("<scriptservice>\n\t<api serviceId=\"a\" url=\"https://a\"></api></scriptservice>", `q"<`)
	f.Fuzz(func(t *testing.T, text, id string) {
		if len(text) > 4096 || id == "" || len(id) > 200 || strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f || r == utf8.RuneError }) || !utf8.ValidString(id) {
			return
		}
		before := parseServiceXML("s.xml", []byte(text))
		if hasError(before.diags) {
			return
		}
		off, ins, ok := SkeletonXMLEntry(text, true, id)
		if !ok {
			return
		}
		after := parseServiceXML("s.xml", []byte(text[:off]+ins+text[off:]))
		if hasError(after.diags) {
			// The closing tag found may be inside a comment or CDATA: the
			// insertion then lands there. Only a clean result counts.
			if strings.Contains(text, "<!--") || strings.Contains(text, "<![CDATA[") {
				return
			}
			t.Fatalf("the skeleton breaks %q: %v", text[:off]+ins+text[off:], after.diags)
		}
		if len(after.apis) != len(before.apis)+1 || after.apis[len(after.apis)-1].serviceID.value != id {
			if strings.Contains(text, "<!--") || strings.Contains(text, "<![CDATA[") {
				return
			}
			t.Fatalf("%d entries then %d; last %q, want %q", len(before.apis), len(after.apis), after.apis[len(after.apis)-1].serviceID.value, id)
		}
	})
}

func hasError(ds []Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}
