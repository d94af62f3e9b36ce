package lsp

import (
	"testing"

	"go.lsp.dev/protocol"
)

// decodeDidOpen must read what protocol's decoder reads: the same uri (in
// the same canonical form), version and text, for every message protocol
// accepts.
func FuzzDecodeDidOpen(f *testing.F) {
	for _, s := range []string{
		`{"textDocument":{"uri":"file:///ws/a.js","languageId":"javascript","version":3,"text":"var a = 1;\n// ü \"q\" \\ \t\u00e9\ud83d\ude00"}}`,
		`{"textDocument":{"uri":"file:///c%3A/Users/x/a%20b.js","version":1,"text":"","text":"last wins"}}`,
		`{"textDocument":{"uri":"untitled:Untitled-1","languageId":"javascript","version":0,"text":"\ud800 lone"}}`,
		"{\"textDocument\":{\"uri\":\"file:///a.js\",\"version\":1,\"text\":\"bad \xff utf8\"}}",
		`{"textDocument":{"uri":"file:///A.JS","version":2147483647,"text":"x","extra":[1,{"y":null}]},"more":true}`,
		`{"textDocument":{"uri":"file:///a.js","version":1.5,"text":"x"}}`,
		`{"textDocument":null}`, `[]`, `{"textDocument":{"uri":3}}`,
		`{"textDocument":{"uri":"file:///a.js","version":1,"text":null}}`, `{"textDocument":{"uri":"file:///a.js","text":["x"]}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var want protocol.DidOpenTextDocumentParams
		if protocol.Unmarshal([]byte(raw), &want) != nil {
			_, _ = decodeDidOpen([]byte(raw)) // must not panic
			return
		}
		d, err := decodeDidOpen([]byte(raw))
		if want.TextDocument.URI == "" {
			// protocol lets a null textDocument through; a document needs
			// a uri, so decodeDidOpen refuses it.
			if err == nil && d.uri != "" {
				t.Fatalf("%q: a uri from nowhere: %q", raw, d.uri)
			}
			return
		}
		if err != nil {
			t.Fatalf("protocol decodes %q, decodeDidOpen fails: %v", raw, err)
		}
		td := want.TextDocument
		if d.uri != td.URI || d.version != td.Version || d.doc.Text() != td.Text {
			t.Fatalf("%q:\n got uri %q version %d text %q\nwant uri %q version %d text %q", raw, d.uri, d.version, d.doc.Text(), td.URI, td.Version, td.Text)
		}
	})
}
