package lsp

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
)

// writeBigConfig writes a config root with n services in
// script-service-api.xml, half of them referring to an earlier one.
func writeBigConfig(t testing.TB, dir string, n int) {
	t.Helper()
	var b strings.Builder
	b.WriteString("<scriptservice>\n")
	for i := range n {
		if i%2 == 1 {
			fmt.Fprintf(&b, "  <api serviceId=\"service-%05d\" url=\"service-%05d/sub%d\" description=\"Generated service %d, by reference\"/>\n", i, i-1, i, i)
		} else {
			fmt.Fprintf(&b, "  <api serviceId=\"service-%05d\" url=\"https://service-%05d.example.com/api\" description=\"Generated service %d\"/>\n", i, i, i)
		}
	}
	b.WriteString("</scriptservice>\n")
	writeFiles(t, dir, map[string]string{config.ServiceXMLPath: b.String()})
}

// bigScript returns a script of about lines lines ending in a call whose
// serviceId is being typed, and the UTF-16 position of the cursor there.
func bigScript(lines int) (string, protocol.Position) {
	var b strings.Builder
	b.WriteString("var results = [];\n")
	n := 1
	for i := 0; n < lines-3; i++ {
		fmt.Fprintf(&b, "// step %d: fetch the item and keep the answer — ünïcödé\n", i)
		fmt.Fprintf(&b, "try { var r%d = api.rest.v1.get(\"service-%05d\", {pathParams: [\"items\", \"%d\"], queryParams: {page: \"1\"}}, {Accept: \"application/json\"});\n", i, i%10000, i)
		fmt.Fprintf(&b, "  if (/^2\\d\\d$/.test(String(r%d.status.code))) { results.push(`item ${r%d.body.id}`); }\n", i, i)
		b.WriteString("} catch (e) { results.push({code: e.status.code, text: \"failed: \" + e.body}); }\n")
		n += 4
	}
	line := "var answer = api.rest.v1.post(\"service-0"
	pos := protocol.Position{Line: uint32(n), Character: uint32(len(line))}
	b.WriteString(line + "\", {}, {}, {});\nreturn answer;\n")
	return b.String(), pos
}

// percentiles reports p50 and p99 of ds in microseconds.
func percentiles(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	at := func(q float64) float64 {
		return float64(ds[min(len(ds)-1, int(q*float64(len(ds))))].Nanoseconds()) / 1e3
	}
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
}

// BenchmarkCompletionServerSide measures a completion request inside the
// server: taking the view, the hint engine, the conversion to LSP types and
// the encoding of the answer; 10,000-line script, 10,000 services.
func BenchmarkCompletionServerSide(b *testing.B) {
	dir := b.TempDir()
	writeBigConfig(b, dir, 10000)
	srv := NewServer(Options{Sources: config.Sources{ConfigRoot: dir}, PollInterval: -1})
	ses := newSession(srv, 1, func() {})
	ses.answers = &answerRecycler{}
	ses.state = stateInitialized
	text, pos := bigScript(10000)
	u := uri.File("/ws/big.js")
	ses.docs[u] = newDocument(u, 1, text)
	if n := srv.Snapshot().For(config.ScriptService).Len(); n != 10000 {
		b.Fatalf("registry has %d services", n)
	}
	for _, bc := range []struct {
		name string
		pos  protocol.Position
		caps clientCaps
	}{
		{"typed", pos, clientCaps{snippets: true}},
		{"empty", protocol.Position{Line: pos.Line, Character: pos.Character - uint32(len("service-0"))}, clientCaps{snippets: true}},
		{"typed-vscode", pos, clientCaps{snippets: true, lazyDocs: true, editRange: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ses.caps = bc.caps
			b.ReportAllocs()
			var ds []time.Duration
			for b.Loop() {
				start := time.Now()
				v, ok := ses.viewOf(u)
				if !ok {
					b.Fatal("no document")
				}
				raw, err := ses.completionAnswer(v, bc.pos)
				if err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(start))
				if len(raw) < 1000 {
					b.Fatalf("answer %s", raw)
				}
			}
			percentiles(b, ds)
		})
	}
}

// BenchmarkDidChange measures applying one keystroke to the 10,000-line
// script: the UTF-16 mapping, the new text and its line index.
func BenchmarkDidChange(b *testing.B) {
	text, pos := bigScript(10000)
	d := newDocument(uri.File("/ws/big.js"), 1, text)
	b.ReportAllocs()
	for b.Loop() {
		start, end := d.m.fromRange(protocol.Range{Start: pos, End: pos})
		_ = newDocument(d.uri, 2, text[:start]+"x"+text[end:])
	}
}

// BenchmarkDecodeDidOpen decodes the didOpen of a 10,000-line script (about
// 1.3 MB of JSON, with non-ASCII text) with protocol's decoder and with
// decodeDidOpen; compare B/op.
//
//	go test -run '^$' -bench DecodeDidOpen -benchmem ./lsp/
func BenchmarkDecodeDidOpen(b *testing.B) {
	var sb strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&sb, "// step %d: fetch the item and keep the answer — ünïcödé\nvar r%d = api.rest.v1.get(\"service-00001\", {pathParams: [\"x\"]}, {});\n", i, i)
	}
	raw, err := protocol.Marshal(&protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: uri.File("/ws/big.js"), LanguageID: "javascript", Version: 1, Text: sb.String()}})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("protocol", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		for b.Loop() {
			var p protocol.DidOpenTextDocumentParams
			if err := protocol.Unmarshal(raw, &p); err != nil {
				b.Fatal(err)
			}
			_ = newDocument(p.TextDocument.URI, p.TextDocument.Version, p.TextDocument.Text)
		}
	})
	b.Run("restls", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeDidOpen(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
}
