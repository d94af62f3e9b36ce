package lsp

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
	"github.com/restls/restls/internal/lsptest"
)

// writeBigConfig writes a config root with n services in
// script-service-api.xml, half of them referring to an earlier one.
func writeBigConfig(t testing.TB, dir string, n int) {
	t.Helper()
	writeFiles(t, dir, map[string]string{config.ServiceXMLPath: lsptest.ServiceXML(n)})
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
	text, pos := lsptest.BigScript(10000)
	u := uri.File("/ws/big.js")
	ses.docs[u] = newDocument(u, 1, text)
	if n := srv.Session().Registry().Get().For(config.ScriptService).Len(); n != 10000 {
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
			lsptest.ReportPercentiles(b, "", ds)
		})
	}
}

// BenchmarkDidChange measures applying one keystroke to the 10,000-line
// script: the UTF-16 mapping, the new text and its line index.
func BenchmarkDidChange(b *testing.B) {
	text, pos := lsptest.BigScript(10000)
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
