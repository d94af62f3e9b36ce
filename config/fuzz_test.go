package config

import (
	"encoding/xml"
	"fmt"
	"math"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/beevik/etree"
)

// checkParsed holds for any input: no panic (the fuzzer's job), positions
// inside the file, and no diagnostic that quotes a credential.
func checkParsed(t *testing.T, data string, p *parsed) {
	t.Helper()
	// YAML (like LSP) also breaks lines at a bare CR; count every break.
	lines := strings.Count(data, "\n") + strings.Count(data, "\r") + 1
	for _, d := range p.diags {
		if d.Line < 1 || d.Line > lines+1 || d.RuneCol < 1 {
			t.Fatalf("diagnostic outside the file (%d lines): %s", lines, d)
		}
	}
	for _, a := range p.apis {
		if a.auth != nil && len(a.auth.encodedCredentials.value) >= 8 {
			for _, d := range p.diags {
				if strings.Contains(d.Message, a.auth.encodedCredentials.value) {
					t.Fatalf("diagnostic quotes a credential: %s", d)
				}
			}
		}
	}
}

// checkMerged runs the merge on the parsed source: every usable service
// has an absolute http(s) url, and nothing panics.
func checkMerged(t *testing.T, data string, p *parsed) {
	t.Helper()
	r := merge(ScriptService, []*parsed{p})
	// Messages never quote one another (issue 23, finding 3): their
	// size is linear in the file, whatever references it holds.
	total := 0
	for _, d := range r.Diagnostics {
		total += len(d.Message)
	}
	if limit := 40*len(data) + 1024*len(r.Diagnostics); total > limit {
		t.Fatalf("%d diagnostics of %d bytes in all for a file of %d bytes", len(r.Diagnostics), total, len(data))
	}
	for _, id := range r.IDs() {
		if strings.IndexFunc(id, unicode.IsControl) >= 0 {
			t.Fatalf("usable serviceId %q holds a control character", id)
		}
		s, _ := r.Service(id)
		if !isAbsolute(s.URL) {
			t.Fatalf("usable service %q has url %q", id, s.URL)
		}
		if _, bad := r.Unusable(id); bad {
			t.Fatalf("%q is both usable and unusable", id)
		}
	}
}

func FuzzXML(f *testing.F) {
	f.Add(`<scriptservice><api serviceId="a" url="https://a.example.com"/><api serviceId="b" url="a/x"><authorization type="basic"><encodedCredentials>dTpw</encodedCredentials></authorization></api></scriptservice>`)
	f.Add(`<?xml version="1.0"?><!-- c --><scriptservice><oAuth id="o" url="https://t" grantType="password"><additionalParams><a><![CDATA[x]]></a></additionalParams></oAuth></scriptservice>`)
	f.Add(`<config><v><restclient><read-timeout default="1" maximum="2"/></restclient></v></config>`)
	f.Add(`<scriptservice><api serviceId="a" url="&amp;&#x41;"`)
	f.Fuzz(func(t *testing.T, data string) {
		p := parseServiceXML("f.xml", []byte(data))
		checkParsed(t, data, p)
		checkMerged(t, data, p)
		to, diags := parsePlatform("c.xml", []byte(data))
		if to.Connection.Default > to.Connection.Maximum || to.Read.Default > to.Read.Maximum || to.Read.Default <= 0 || to.Connection.Default <= 0 {
			t.Fatalf("invalid timeouts accepted: %+v (%v)", to, diags)
		}
	})
}

func FuzzYAML(f *testing.F) {
	f.Add("scriptservice:\n  api:\n    - serviceId: a\n      url: https://a.example.com\n    - serviceId: b\n      url: a/b\n      authorization: {type: oAuth, id: o}\n  oAuth:\n    - id: o\n      additionalParams: {scope: x}\n")
	f.Add("scriptservice.api:\n  - {serviceId: x, url: y}\n---\nscriptservice: 5\n")
	f.Add("a: &x [*x]\n")
	// An alias bomb: refused by the YAML budget, a diagnostic.
	bomb := "l0: &l0 [x,x,x,x,x,x,x,x,x]\n"
	for i := 1; i < 9; i++ {
		bomb += fmt.Sprintf("l%d: &l%d [%s*l%d]\n", i, i, strings.Repeat(fmt.Sprintf("*l%d,", i-1), 8), i-1)
	}
	f.Add(bomb)
	f.Add("scriptservice:\n  api:\n    - serviceId: a\n   url: x\n")
	// Deep: a chain of 200 references; each used to quote the last.
	f.Add(chainYAML(200))
	// Many entries referring to one reference to a long id.
	long := strings.Repeat("x", 2000)
	many := "scriptservice:\n  api:\n    - serviceId: " + long + "\n      url: https://x.example.com\n    - serviceId: b\n      url: " + long + "/y\n"
	for i := range 200 {
		many += fmt.Sprintf("    - serviceId: c%d\n      url: b/z\n", i)
	}
	f.Add(many)
	f.Add("scriptservice:\n  api:\n    - serviceId: \"a\\nb\\u0085\"\n      url: https://a.example.com\n  oAuth:\n    - id: \"o\\to\"\n")
	f.Fuzz(func(t *testing.T, data string) {
		p := parseYAML("f.yml", []byte(data))
		checkParsed(t, data, p)
		checkMerged(t, data, p)
	})
}

func FuzzProperties(f *testing.F) {
	f.Add("scriptservice.api[0].serviceId=a\nscriptservice.api[0].url=https://a.example.com\nscriptservice.api[1].serviceId=b\nscriptservice.api[1].url=a/b\n")
	f.Add("scriptservice.oAuth[0].additionalParams[x]=\\u00e9\\\n  more\n# c\n! d\nkey value\n")
	f.Add("scriptservice.api[99999999999].serviceId=x\nscriptservice.api[0].authorization.type\\=basic\n\\u12")
	f.Fuzz(func(t *testing.T, data string) {
		p := parseProperties("f.properties", data)
		checkParsed(t, data, p)
		checkMerged(t, data, p)
	})
}

// FuzzSplitXML: reading a service file in parts gives what reading it
// whole gives, whatever the parts' size.
func FuzzSplitXML(f *testing.F) {
	f.Add(`<scriptservice><api serviceId="a" url="https://a.example.com"/><api serviceId="b" url="a/x"><authorization type="basic"><encodedCredentials>dTpw</encodedCredentials></authorization></api><oAuth id="o"/></scriptservice>`, uint8(0))
	f.Add(`<?xml version="1.0"?><!DOCTYPE s [<!ENTITY x "y">]><p:scriptservice xmlns:p="u"><!-- <api/> --><api serviceId="a" url="https://a"/><![CDATA[<api serviceId="c"/>]]><api a='>' serviceId="b"/><x><y/></x><api serviceId="d"/></p:scriptservice><!-- end -->`, uint8(0))
	f.Add(`<scriptservice><api serviceId="a"><authorization></api><api serviceId="b"/><api serviceId="c"/></scriptservice>`, uint8(0))
	f.Add(`<scriptservice><api/><api/></scriptservice><api/>`, uint8(0))
	f.Add(`<scriptservice ><api/> <api/>`+"\n"+`<api/></scriptservice >`, uint8(0))
	f.Fuzz(func(t *testing.T, data string, size uint8) {
		whole := parseServiceXMLRuns("f.xml", []byte(data), math.MaxInt)
		split := parseServiceXMLRuns("f.xml", []byte(data), 1+int(size%64))
		if !reflect.DeepEqual(whole, split) {
			t.Fatalf("in parts:\n%+v\nwhole:\n%+v", split, whole)
		}
	})
}

// FuzzScanXML checks the byte scanner against encoding/xml: for every
// document etree accepts, both find the same start-tag offsets.
func FuzzScanXML(f *testing.F) {
	f.Add(`<?xml version="1.0"?><!DOCTYPE s [<!ELEMENT s ANY><!-- > -->]><s a="x>y" b='<'><!-- <c/> --><![CDATA[<d>]]><e/><?pi <f>?></s>`)
	f.Add(`<scriptservice><api serviceId="a" url="https://a.example.com"/></scriptservice>`)
	f.Add("<a\n  b = \"1\"\n><b></b></a>")
	// Declarations as encoding/xml reads them: the byte after "<!" is not
	// examined, '<' and '>' nest, brackets do not.
	f.Add(`<!"><A/>`)
	f.Add(`<!DOCTYPE a "]>" [<!ENTITY e '>'> <!-- ]> -->]><a><b/></a>`)
	f.Add(`<!X <y> ]><a/>`)
	f.Fuzz(func(t *testing.T, data string) {
		doc := etree.NewDocument()
		if doc.ReadFromString(data) != nil || doc.Root() == nil {
			return
		}
		var want []int64
		dec := xml.NewDecoder(strings.NewReader(data))
		for {
			off := dec.InputOffset()
			tok, err := dec.RawToken()
			if err != nil {
				break
			}
			if _, ok := tok.(xml.StartElement); ok {
				want = append(want, off)
			}
		}
		got := scanXML("f.xml", []byte(data)).start
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("scanner offsets %v, encoding/xml %v", got, want)
		}
	})
}

func FuzzCheckAbsolute(f *testing.F) {
	for _, s := range []string{"https://a.example.com/x?y#z", "http://u:p@h", "https://[::1]:80/", "https://h%41/", "HTTPS://H/", "https://", "ftp://x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		scheme, ok, user := checkAbsolute(raw)
		u, err := url.Parse(raw)
		wantOK := err == nil && u.Host != ""
		if ok != wantOK {
			t.Fatalf("%q: ok %v, url.Parse says %v (%v)", raw, ok, wantOK, err)
		}
		if ok && (strings.ToLower(u.Scheme) != scheme || (u.User != nil) != user) {
			t.Fatalf("%q: scheme %q user %v; url.Parse: %q %v", raw, scheme, user, u.Scheme, u.User)
		}
	})
}

// fullDistance is the textbook Levenshtein distance, the reference for the
// banded one.
func fullDistance(a, b []rune) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func FuzzEditDistance(f *testing.F) {
	f.Add("service-4242", "servce-4242", 3)
	f.Add("kitten", "sitting", 1)
	f.Add("crm", "CRM", 0)
	f.Add("é", "e", 2)
	f.Fuzz(func(t *testing.T, a, b string, limit int) {
		if limit < 0 || limit > 8 || len(a) > 64 || len(b) > 64 {
			return
		}
		want := fullDistance([]rune(lower(a)), []rune(lower(b)))
		got := editDistance(a, b, limit)
		if want <= limit && got != want || want > limit && got != limit+1 {
			t.Fatalf("distance(%q, %q, limit %d) = %d, want %d", a, b, limit, got, want)
		}
	})
}
