package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"

	"github.com/restls/restls/internal/goldentest"
)

// serviceXMLIn returns a service file declared in enc, with non-ASCII
// descriptions; n more services make it large enough to be read in parts.
func serviceXMLIn(enc string, n int) string {
	var b strings.Builder
	if enc != "" {
		fmt.Fprintf(&b, "<?xml version=\"1.0\" encoding=\"%s\"?>\n", enc)
	}
	b.WriteString("<scriptservice>\n")
	b.WriteString("  <api serviceId=\"pay\" url=\"https://pay.example.com\" description=\"Zahlungsdienst für Kunden\"/>\n")
	b.WriteString("  <api serviceId=\"crm\" url=\"https://crm.example.com\"><authorization type=\"basic\"><encodedCredentials>dXNlcjpwYXNz</encodedCredentials></authorization></api>\n")
	for i := range n {
		fmt.Fprintf(&b, "  <api serviceId=\"s%d\" url=\"https://s%d.example.com\" description=\"Größe %d\"/>\n", i, i, i)
	}
	b.WriteString("  <api serviceId=\"bad\" url=\"ftp:x\" description=\"Straße\"/>\n")
	b.WriteString("</scriptservice>\n")
	return b.String()
}

func encode(t *testing.T, e encoding.Encoding, s string) string {
	t.Helper()
	out, err := e.NewEncoder().String(s)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestXMLEncodings: the encodings a Java parser reads give the same
// services, descriptions, positions and diagnostics as the UTF-8 file
// (issue #13, finding 9).
func TestXMLEncodings(t *testing.T) {
	for _, n := range []int{0, 3000} { // 3000 services: read in parts
		want := loadRoot(t, memFiles{svc: serviceXMLIn("UTF-8", n)}).For(ScriptService)
		if s := mustService(t, want, "pay"); s.Description != "Zahlungsdienst für Kunden" {
			t.Fatalf("UTF-8 description %q", s.Description)
		}
		cases := map[string]string{
			"UTF-8 with BOM":          "\xEF\xBB\xBF" + serviceXMLIn("UTF-8", n),
			"UTF-16LE with BOM":       encode(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), serviceXMLIn("UTF-16", n)),
			"UTF-16BE with BOM":       encode(t, unicode.UTF16(unicode.BigEndian, unicode.UseBOM), serviceXMLIn("UTF-16", n)),
			"UTF-16LE without BOM":    encode(t, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), serviceXMLIn("UTF-16", n)),
			"ISO-8859-1":              encode(t, charmap.ISO8859_1, serviceXMLIn("ISO-8859-1", n)),
			"iso-8859-1 single-quote": strings.Replace(encode(t, charmap.ISO8859_1, serviceXMLIn("iso-8859-1", n)), `encoding="iso-8859-1"`, `encoding='iso-8859-1'`, 1),
			"latin1 alias":            encode(t, charmap.ISO8859_1, serviceXMLIn("latin1", n)),
			"windows-1252":            encode(t, charmap.Windows1252, serviceXMLIn("windows-1252", n)),
		}
		for name, data := range cases {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				got := loadRoot(t, memFiles{svc: data}).For(ScriptService)
				if got.Len() != want.Len() {
					t.Fatalf("%d services, want %d; diagnostics %v", got.Len(), want.Len(), got.Diagnostics)
				}
				for _, id := range want.IDs() {
					w, _ := want.Service(id)
					g, ok := got.Service(id)
					if !ok || g.Description != w.Description || g.URL != w.URL || g.Defined != w.Defined || g.Auth.EncodedCredentials.Reveal() != w.Auth.EncodedCredentials.Reveal() {
						t.Errorf("%s: got %+v, want %+v", id, g, w)
					}
				}
				if fmt.Sprint(got.Diagnostics) != fmt.Sprint(want.Diagnostics) {
					t.Errorf("diagnostics\n%v\nwant\n%v", got.Diagnostics, want.Diagnostics)
				}
			})
		}
	}
}

// TestXMLUTF8MarkWins: a UTF-8 byte order mark wins over a declared
// 8-bit encoding, as it does in Java.
func TestXMLUTF8MarkWins(t *testing.T) {
	r := loadRoot(t, memFiles{svc: "\xEF\xBB\xBF" + serviceXMLIn("ISO-8859-1", 0)}).For(ScriptService)
	if s := mustService(t, r, "pay"); s.Description != "Zahlungsdienst für Kunden" {
		t.Errorf("description %q", s.Description)
	}
}

// TestXMLEncodingWindows1252: the bytes 0x80-0x9F are the euro sign and
// friends in windows-1252, control characters in ISO-8859-1.
func TestXMLEncodingWindows1252(t *testing.T) {
	doc := "<?xml version=\"1.0\" encoding=\"windows-1252\"?>\n" + xmlDoc(`<api serviceId="eu" url="https://eu.example.com" description="Preise in `+"\x80"+` `+"\x96"+` Angebote"/>`)
	r := loadRoot(t, memFiles{svc: doc}).For(ScriptService)
	if s := mustService(t, r, "eu"); s.Description != "Preise in € – Angebote" {
		t.Errorf("description %q", s.Description)
	}
}

// TestXMLBadEncoding: an encoding restls cannot read is one diagnostic on
// the declaration naming the encoding; the file is ignored and the other
// sources still count.
func TestXMLBadEncoding(t *testing.T) {
	var out strings.Builder
	for _, c := range []struct{ name, file string }{
		{"unknown", "<?xml version=\"1.0\" encoding=\"x-no-such-charset\"?>\n" + xmlDoc(`<api serviceId="a" url="https://a.example.com"/>`)},
		{"utf-16 without mark", "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n" + xmlDoc(`<api serviceId="a" url="https://a.example.com"/>`)},
		{"platform config", "<?xml version='1.0'\n  encoding='klingon'?>\n<config/>\n"},
	} {
		files := memFiles{yml: okYAML, svc: c.file}
		if c.name == "platform config" {
			files = memFiles{yml: okYAML, plt: c.file}
		}
		r := loadRoot(t, files).For(ScriptService)
		if d := findDiag(r, CodeBadEncoding); len(d) != 1 {
			t.Errorf("%s: want one %s, got %v", c.name, CodeBadEncoding, r.Diagnostics)
		}
		if _, ok := r.Service("crm"); !ok {
			t.Errorf("%s: the properties were not read", c.name)
		}
		fmt.Fprintf(&out, "%s:\n%s", c.name, diagText(r, "root"))
	}
	goldentest.Check(t, filepath.Join("testdata", "golden", "xml/bad-encoding.golden"), out.String())
}

// TestXMLSyntaxErrorInLatin1: a syntax error in a declared ISO-8859-1
// file is reported as the syntax error, where it is in the decoded text.
func TestXMLSyntaxErrorInLatin1(t *testing.T) {
	doc := encode(t, charmap.ISO8859_1, "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<scriptservice>\n  <api serviceId=\"ä\" url=\"https://a.example.com\"></apx>\n</scriptservice>\n")
	r := loadRoot(t, memFiles{svc: doc}).For(ScriptService)
	d := findDiag(r, CodeSyntax)
	if len(d) != 1 || d[0].Line != 3 {
		t.Fatalf("want one syntax error on line 3, got %v", r.Diagnostics)
	}
}

// TestReadTextDecodesXML: the language server maps diagnostics through
// ReadText, which must give the text the positions count in.
func TestReadTextDecodesXML(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.xml")
	if err := os.WriteFile(path, []byte(encode(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), serviceXMLIn("UTF-16", 0))), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadText(path)
	if err != nil || string(got) != serviceXMLIn("UTF-16", 0) {
		t.Errorf("ReadText = %q, %v", got, err)
	}
}

// charsetSeeds are documents for the charset fuzz targets: small, deep
// and large.
func charsetSeeds() []string {
	return []string{
		xmlDoc(`<api serviceId="pay" url="https://pay.example.com" description="Zahlungsdienst für Kunden"/>`),
		xmlDoc(`<api serviceId="a" url="ftp:x"/><!-- ä --><![CDATA[ö]]><oAuth id="ü"/>`),
		"<scriptservice>" + strings.Repeat("<x>", 3000) + strings.Repeat("</x>", 3000) + "</scriptservice>",
		serviceXMLIn("", 2000)[len("<?xml version=\"1.0\" encoding=\"\"?>\n"):], // about 150 KB: read in parts
		"",
		"<scriptservice>\r\n<api\r\n serviceId='x'/></scriptservice",
	}
}

// FuzzXMLCharset: a document encoded in UTF-16 (with or without a byte
// order mark), ISO-8859-1, windows-1252 or UTF-8 with a mark reads as the
// same document declared and written in UTF-8: the same entries,
// positions and diagnostics.
func FuzzXMLCharset(f *testing.F) {
	for _, s := range charsetSeeds() {
		for enc := range uint8(6) {
			f.Add(s, enc)
		}
	}
	f.Fuzz(func(t *testing.T, body string, enc uint8) {
		if !utf8.ValidString(body) {
			return
		}
		decl := func(name string) string { return "<?xml version=\"1.0\" encoding=\"" + name + "\"?>\n" }
		var data string
		var err error
		switch enc % 6 {
		case 0:
			data, err = unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().String(decl("UTF-16") + body)
		case 1:
			data, err = unicode.UTF16(unicode.BigEndian, unicode.UseBOM).NewEncoder().String(decl("UTF-16") + body)
		case 2:
			data, err = unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewEncoder().String(decl("UTF-16") + body)
		case 3:
			data, err = charmap.ISO8859_1.NewEncoder().String(decl("ISO-8859-1") + body)
		case 4:
			data, err = charmap.Windows1252.NewEncoder().String(decl("windows-1252") + body)
		case 5:
			data = "\xEF\xBB\xBF" + decl("UTF-8") + body
		}
		if err != nil {
			return // not representable in that encoding
		}
		want := parseServiceXML("f.xml", []byte(decl("UTF-8")+body))
		got := parseServiceXML("f.xml", []byte(data))
		// The declaration is the only line 1: positions after it agree.
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("encoding %d:\n%+v\nwant (UTF-8):\n%+v", enc%6, got, want)
		}
	})
}

// FuzzDecodeXML: any bytes, byte order marks and declarations included,
// decode without a panic to UTF-8 text or to one diagnostic naming the
// problem, and the file reads on to a result.
func FuzzDecodeXML(f *testing.F) {
	for _, s := range charsetSeeds() {
		f.Add([]byte(s))
		f.Add([]byte("<?xml version='1.0' encoding='latin1'?>" + s))
		f.Add(append([]byte{0xFF, 0xFE}, s...))
		f.Add(append([]byte{0xFE, 0xFF, 0}, s...))
		f.Add([]byte("<?xml version=\"1.0\" encoding=\"x-unknown\"?>" + s))
		f.Add([]byte("<?xml version=\"1.0\" encoding=\"Shift_JIS\"?>\x82\xa0" + s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		text, d, ok := decodeXML("f.xml", data)
		if !ok {
			if d.Code != CodeBadEncoding || d.File != "f.xml" || d.Line < 1 || d.RuneCol < 1 {
				t.Fatalf("bad diagnostic %+v", d)
			}
			return
		}
		if len(text) > 4*len(data)+4 {
			t.Fatalf("%d bytes decoded to %d", len(data), len(text))
		}
		p := parseServiceXML("f.xml", data)
		checkParsed(t, string(text), p)
		checkMerged(t, string(text), p)
	})
}
