package hints

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// inBuffer is text in a buffer with NewDocumentIn's room around it, the
// room holding bytes the wrapper must overwrite.
func inBuffer(text string) []byte {
	return []byte(strings.Repeat("#", WrapBefore) + text + strings.Repeat("#", WrapAfter))
}

// TestNewDocumentIn: a document parsed in its reader's buffer has the
// text and gives the diagnostics and call sites of NewDocument's: a
// script, a syntax error, a stray '}', one too deep, an empty one.
func TestNewDocumentIn(t *testing.T) {
	reg := testRegistry(t)
	for _, text := range []string{
		"var r = api.rest.v1.get(\"crm\", {}, {});\nreturn r.body;\n",
		"var a = ;\n",
		"var a = 1;\n}\nvar b = api.rest.v1.get(\"nope\", {}, {});\n",
		strings.Repeat("(", 1500) + strings.Repeat(")", 1500),
		"",
	} {
		in := NewDocumentIn(inBuffer(text))
		if in.Text() != text {
			t.Errorf("text %q, want %q", in.Text(), text)
		}
		want := Diagnose(NewDocument(text), reg, Display{TimeLimit: time.Minute})
		if got := Diagnose(in, reg, Display{TimeLimit: time.Minute}); !reflect.DeepEqual(got, want) {
			t.Errorf("%.40q: diagnostics %+v, want %+v", text, got, want)
		}
		if got, want := CallSites(in), CallSites(NewDocument(text)); !reflect.DeepEqual(got, want) {
			t.Errorf("%.40q: call sites %+v, want %+v", text, got, want)
		}
	}
}

// FuzzNewDocumentIn: for any text, parsing it in place says what parsing
// a copy says.
func FuzzNewDocumentIn(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	reg := testRegistry(f)
	f.Fuzz(func(t *testing.T, text string) {
		want := Diagnose(NewDocument(text), reg, Display{TimeLimit: time.Millisecond})
		got := Diagnose(NewDocumentIn(inBuffer(text)), reg, Display{TimeLimit: time.Millisecond})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("diagnostics %+v, want %+v", got, want)
		}
	})
}
