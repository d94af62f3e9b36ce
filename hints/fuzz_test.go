package hints

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	"",
	`api.rest.v1.get("crm", {pathParams: ["a"], queryParams: {q: "1"}}, {"Content-Type": "multipart/form-data"}, {readTimeout: 99999});`,
	"var r = api.rest.v1.post('hr', {}, {Authorization: x}, {}, {connectionTimeout: 1});\nr.status.",
	"try { api.rest.v1.get(\"crm\", {}, {}) } catch (e) { e.status.",
	"var s = `a ${b + `c ${api.rest.v1.get(\"",
	"var re = /[/\\]]+/g; // comment\n/* block */ api.",
	"}}})) api.rest.v1.delete(\"wetter-zürich\", ",
	"context.api(\"x\"); return 1;",
	"var ä = 'ö€\u2028';\r\nvar x = \"unterminated\n",
	"api.rest.v1.get(\"\\\"",
	"\xff\xfe api.rest.v1.get('\xe2\x82",
}

// offsets returns interesting offsets for text: off itself (possibly out of
// range), and around it.
func offsets(text string, off int) []int {
	return []int{off, off % (len(text) + 1), len(text), len(text) + 7, -1}
}

func checkRange(t *testing.T, text string, r Range, what string) {
	t.Helper()
	if r.Start < 0 || r.End > len(text) || r.Start > r.End {
		t.Fatalf("%s: range %v outside text of %d bytes", what, r, len(text))
	}
	if utf8.ValidString(text) && (!isRuneBoundary(text, r.Start) || !isRuneBoundary(text, r.End)) {
		t.Fatalf("%s: range %v splits a character", what, r)
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, len(s))
	}
	f.Fuzz(func(t *testing.T, text string, off int) {
		for _, o := range offsets(text, off) {
			for _, w := range []int{nearWindow, farWindow, 1} {
				s := scan(text, o, w)
				if s.offset < 0 || s.offset > len(text) || s.from > s.offset {
					t.Fatalf("offset %d from %d for %d in %d bytes", s.offset, s.from, o, len(text))
				}
				for _, fr := range s.stack {
					if fr.pos < s.from || fr.pos >= s.offset {
						t.Fatalf("frame at %d outside [%d, %d)", fr.pos, s.from, s.offset)
					}
				}
				if s.where == inString && (s.strStart >= s.offset || text[s.strStart] != s.quote) {
					t.Fatalf("string start %d quote %q", s.strStart, s.quote)
				}
				for i := 0; i < ringSize; i++ {
					if tk, ok := s.tok(i); ok && (tk.start < s.from || tk.end > s.offset || tk.start > tk.end) {
						t.Fatalf("token %+v outside [%d, %d]", tk, s.from, s.offset)
					}
				}
			}
		}
		if st := strayCloser(text); st >= 0 && !strings.ContainsRune(")]}", rune(text[st])) {
			t.Fatalf("stray closer %q", text[st])
		}
	})
}

func FuzzComplete(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, len(s))
	}
	reg := testRegistry(f)
	f.Fuzz(func(t *testing.T, text string, off int) {
		doc := NewDocument(text)
		for _, o := range offsets(text, off) {
			c := Complete(doc, o, reg)
			for _, it := range c.Items {
				if it.Label == "" || it.Kind < ItemFunction || it.Kind > ItemProperty {
					t.Fatalf("item %+v", it)
				}
				checkRange(t, text, it.Replace, it.Label)
			}
			// Without a registry the only values offered are content types.
			for _, it := range Complete(doc, o, nil).Items {
				if it.Kind == ItemValue && it.Detail != "Content-Type" {
					t.Fatalf("serviceId item without a registry: %+v", it)
				}
			}
		}
	})
}

func FuzzSignature(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, len(s))
	}
	f.Fuzz(func(t *testing.T, text string, off int) {
		doc := NewDocument(text)
		for _, o := range offsets(text, off) {
			if s, ok := Signature(doc, o, nil); ok && (s.ActiveParam < 0 || len(s.Params) < 4 || s.Label == "") {
				t.Fatalf("signature %+v", s)
			}
		}
	})
}

func FuzzHoverAt(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, len(s)/2)
	}
	reg := testRegistry(f)
	f.Fuzz(func(t *testing.T, text string, off int) {
		doc := NewDocument(text)
		for _, o := range offsets(text, off) {
			if h, ok := HoverAt(doc, o, reg, Display{}); ok {
				if h.Markdown == "" {
					t.Fatal("empty hover")
				}
				checkRange(t, text, h.Range, "hover")
			}
		}
	})
}

func FuzzDiagnose(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	reg := testRegistry(f)
	f.Fuzz(func(t *testing.T, text string) {
		for _, d := range Diagnose(NewDocument(text), reg, Display{TimeLimit: time.Millisecond}) {
			if d.Code == "" || d.Message == "" || d.Severity < SeverityError || d.Severity > SeverityHint {
				t.Fatalf("diagnostic %+v", d)
			}
			checkRange(t, text, d.Range, d.Code)
			for _, fx := range d.Fixes {
				for _, e := range fx.Edits {
					checkRange(t, text, e.Range, fx.Title)
				}
			}
		}
	})
}
