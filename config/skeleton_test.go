package config

import "testing"

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
