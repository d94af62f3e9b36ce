package config

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// A large service file is read in parts, and the parts give what reading
// it whole gives: entries, their positions and the diagnostics in order.
func TestServiceXMLInParts(t *testing.T) {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\"?>\n<!-- services -->\n<scriptservice xmlns:x=\"urn:x\">\n")
	for i := range 3000 {
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "  <api serviceId=\"s%d\" url=\"https://s%d.example.com\"><authorization type=\"basic\"><encodedCredentials>dTpw</encodedCredentials></authorization></api>\n", i, i)
		case 1:
			fmt.Fprintf(&b, "  <oAuth id=\"o%d\" url=\"https://t.example.com\"><additionalParams><scope>a</scope></additionalParams></oAuth>\n", i)
		case 2:
			fmt.Fprintf(&b, "  <apis serviceId=\"typo%d\"><a><b/></a></apis>\n", i)
		default:
			fmt.Fprintf(&b, "  <api serviceId=\"s%d\" url=\"s%d/sub\" descripton=\"typo\"/>\n", i, i-1)
		}
	}
	b.WriteString("</scriptservice>\n<!-- end -->\n")
	data := []byte(b.String())

	xp := scanXML("s.xml", data)
	runs := xp.runs(xmlRunSize)
	if len(runs) < 3 {
		t.Fatalf("%d bytes make %d runs of %d, want at least 3", len(data), len(runs), xmlRunSize)
	}
	if _, ok := parseServiceRuns("s.xml", data, xp, runs); !ok {
		t.Fatal("the file was not read in parts")
	}
	whole := parseServiceXMLRuns("s.xml", data, math.MaxInt)
	split := parseServiceXMLRuns("s.xml", data, xmlRunSize)
	if len(whole.apis) != 1800 || len(whole.oauths) != 600 || len(whole.diags) != 1800 {
		t.Fatalf("whole: %d apis, %d oauths, %d diagnostics", len(whole.apis), len(whole.oauths), len(whole.diags))
	}
	if !reflect.DeepEqual(whole, split) {
		for i := range whole.apis {
			if !reflect.DeepEqual(whole.apis[i], split.apis[i]) {
				t.Fatalf("api %d: whole %+v, in parts %+v", i, whole.apis[i], split.apis[i])
			}
		}
		t.Fatal("reading in parts differs from reading whole")
	}
	if last := split.apis[len(split.apis)-1]; last.pos.Line != 3003 || last.pos.RuneCol != 3 {
		t.Errorf("last entry at %s, want line 3003 column 3", last.pos)
	}
}

// A file that does not parse gives the same syntax error read in parts.
func TestServiceXMLInPartsSyntaxError(t *testing.T) {
	data := []byte("<scriptservice>\n" + strings.Repeat("  <api serviceId=\"a\"/>\n", 2000) + "  <api serviceId=\"b\">\n" + strings.Repeat("  <api serviceId=\"c\"/>\n", 2000) + "</scriptservice>\n")
	split := parseServiceXMLRuns("s.xml", data, 1024)
	if len(split.diags) != 1 || split.diags[0].Code != CodeSyntax || split.diags[0].Line != 4003 {
		t.Fatalf("got %+v, want one syntax error at line 4003", split.diags)
	}
	if whole := parseServiceXMLRuns("s.xml", data, math.MaxInt); !reflect.DeepEqual(whole, split) {
		t.Fatalf("whole %+v, in parts %+v", whole, split)
	}
}
