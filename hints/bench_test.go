package hints

import (
	"fmt"
	"strings"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/jslevel"
)

// bigRegistry returns a registry of n services.
func bigRegistry(n int) *config.Registry {
	svcs := make([]config.Service, n)
	for i := range svcs {
		id := fmt.Sprintf("service-%05d", i)
		svcs[i] = config.Service{ID: id, URL: "https://" + id + ".example.com/api",
			Description: "Generated service " + id,
			Defined:     config.Position{File: "script-service-api.xml", Line: i + 3, RuneCol: 3}}
	}
	return config.NewRegistry(config.ScriptService, svcs, config.DefaultTimeouts, nil)
}

// bigScript returns a script of about lines lines: calls, comments,
// strings, templates and regular expressions, ending with a call whose
// serviceId the cursor is typing.
func bigScript(lines int) (string, int) {
	var b strings.Builder
	b.WriteString("// restls-kind: scriptService\nvar results = [];\n")
	for i, n := 0, 2; n < lines-10; i, n = i+1, n+7 { // 7 lines per step
		fmt.Fprintf(&b, `// step %d: fetch and check the answer
try {
  var r%d = api.rest.v1.get("service-%05d", {pathParams: ["items", "%d"], queryParams: {page: "1"}}, {Accept: "application/json"});
  if (/^2\d\d$/.test(String(r%d.status.code))) { results.push(`+"`item ${r%d.body.id}`"+`); }
} catch (e) {
  results.push({code: e.status.code, text: "failed: " + e.body});
}
`, i, i, i%10000, i, i, i)
	}
	b.WriteString("var answer = api.rest.v1.post(\"service-0")
	off := b.Len()
	b.WriteString("\", {}, {}, {});\nreturn answer;\n")
	return b.String(), off
}

func BenchmarkCompleteServiceID(b *testing.B) {
	text, off := bigScript(10000)
	reg := bigRegistry(10000)
	b.Logf("script: %d lines, %d bytes; registry: %d services", strings.Count(text, "\n"), len(text), reg.Len())
	for _, bc := range []struct {
		name string
		off  int
	}{{"typed", off}, {"empty", off - len("service-0")}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				// A new Document per op, as after every keystroke.
				c := Complete(NewDocument(text), bc.off, reg)
				if len(c.Items) == 0 {
					b.Fatal("no items")
				}
			}
		})
	}
}

// BenchmarkCompleteCode types an identifier in plain code, where the near
// window has no answer and the far one is scanned too.
func BenchmarkCompleteCode(b *testing.B) {
	text, off := bigScript(10000)
	typed := "1\", {}, {}, {});\nvar y = fo" // ends the last call: service-01
	text = text[:off] + typed + text[off:]
	off += len(typed)
	reg := bigRegistry(10000)
	b.ReportAllocs()
	for b.Loop() {
		if c := Complete(NewDocument(text), off, reg); len(c.Items) != 0 {
			b.Fatalf("items %+v", c.Items[0])
		}
	}
}

// BenchmarkHoverServiceID hovers a configured serviceId and an unknown one
// (which looks for the nearest ids among all 10,000).
func BenchmarkHoverServiceID(b *testing.B) {
	text, off := bigScript(10000)
	known := text[:off] + "0001" + text[off:] // service-00001
	reg := bigRegistry(10000)
	for _, bc := range []struct{ name, text string }{{"known", known}, {"unknown", text}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := HoverAt(NewDocument(bc.text), off-2, reg, Display{}); !ok {
					b.Fatal("no hover")
				}
			}
		})
	}
}

func BenchmarkSignature(b *testing.B) {
	text, off := bigScript(10000)
	reg := bigRegistry(10000)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Signature(NewDocument(text), off, reg); !ok {
			b.Fatal("no signature")
		}
	}
}

func BenchmarkDiagnose(b *testing.B) {
	text, _ := bigScript(10000)
	reg := bigRegistry(10000)
	b.ReportAllocs()
	for b.Loop() {
		Diagnose(NewDocument(text), reg, Display{})
	}
}

// BenchmarkDiagnoseEngineProfile is BenchmarkDiagnose under
// restls.yaml's engine: es5.1 (the scan of jslevel on the same tree).
func BenchmarkDiagnoseEngineProfile(b *testing.B) {
	text, _ := bigScript(10000)
	reg := bigRegistry(10000)
	b.ReportAllocs()
	for b.Loop() {
		Diagnose(NewDocument(text), reg, Display{EngineLevel: jslevel.ES5_1})
	}
}
