package lsp

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
	"github.com/restls/restls/hints"
	"github.com/restls/restls/internal/lsptest"
	"github.com/restls/restls/internal/openapitest"
	"github.com/restls/restls/workspace"
)

// flowScript is a script of about lines lines that hands GitHub answers
// to functions, callbacks and loops, and ends inside a callback at
// "who.", where completion offers the owner's fields.
func flowScript(lines int) (string, int) {
	var b strings.Builder
	b.WriteString("var o = \"o\", r = \"r\";\n")
	for i := 0; b.Len() == 0 || strings.Count(b.String(), "\n") < lines-8; i++ {
		fmt.Fprintf(&b, "var r%d = api.rest.v1.get(\"github\", {pathParams: [\"repos\", o, r]}, {});\n", i)
		fmt.Fprintf(&b, "var repo%d = r%d.body;\n", i, i)
		fmt.Fprintf(&b, "function owner%d(x) { return x.owner; }\n", i)
		fmt.Fprintf(&b, "var who%d = owner%d(repo%d);\n", i, i, i)
		fmt.Fprintf(&b, "var topics%d = (repo%d.topics || []).map(function (t) { return t.length; });\n", i, i)
		fmt.Fprintf(&b, "for (var k%d = 0; k%d < topics%d.length; k%d++) { who%d.login; }\n", i, i, i, i, i)
		fmt.Fprintf(&b, "try { api.rest.v1.get(\"github\", {pathParams: [\"repos\", o, r]}, {}); } catch (e%d) { if (e%d.status.code === 404) {} }\n", i, i)
		b.WriteString("\n")
	}
	b.WriteString("var all = api.rest.v1.get(\"github\", {pathParams: [\"repos\", o, r]}, {});\n")
	b.WriteString("function show(repo) {\n  var who = repo.owner;\n  who.\n}\nshow(all.body);\n")
	text := b.String()
	return text, strings.LastIndex(text, "who.") + len("who.")
}

// BenchmarkFlowCompletionServerSide measures completion of an answer's
// fields where the answer reached through the flow (issue 38: p99 under
// 1 ms of server time), in a 10,000-line script with GitHub's
// description, as BenchmarkOpenAPICompletionServerSide does:
//
//   - cached: the document's own analysis is made (by its diagnostics);
//
//   - keystroke: a new version just typed (it does not parse: "who." is
//     half-typed), completed from the analysis of the version before;
//
//   - cold: the first completion of a document opened a moment ago, no
//     analysis yet (it parses and analyses the script once; not bounded).
//
//     go test -run '^$' -bench FlowCompletionServerSide ./lsp/
func BenchmarkFlowCompletionServerSide(b *testing.B) {
	desc := openapitest.GitHub(b)
	dir := b.TempDir()
	writeFiles(b, dir, map[string]string{
		"config/application.yml": "scriptservice:\n  api:\n    - serviceId: github\n      url: https://api.github.com\n",
	})
	srv := NewServer(Options{Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}, PollInterval: -1,
		OpenAPI: []workspace.APISource{{ServiceID: "github", Location: desc}}})
	ses := newSession(srv, 1, func() {})
	ses.answers = &answerRecycler{}
	ses.state = stateInitialized
	ses.caps = clientCaps{snippets: true}
	loaded := make(chan struct{})
	srv.ws.OnDescriptionsLoaded(func() { close(loaded) })
	reg := workspace.Usable(srv.ws.Registry().Get().For(config.ScriptService))
	srv.ws.Descriptions().Docs(srv.ws.APIs())
	<-loaded
	if set := ses.apiCache.Set(srv.ws.Descriptions(), srv.ws.APIs(), reg); set == nil {
		b.Fatal("no description")
	}
	text, off := flowScript(10000)
	if n := strings.Count(text, "\n"); n < 9990 {
		b.Fatalf("%d lines", n)
	}
	u := uri.File("/ws/flow.js")
	pos := newMapper(text).position(off)
	// The version before the keystroke: "who." without the dot parses.
	before := strings.Replace(text, "  who.\n", "  who\n", 1)
	prev := hints.NewDocument(before)
	measure := func(b *testing.B, next func() *document) {
		b.ReportAllocs()
		var ds []time.Duration
		for b.Loop() {
			d := next()
			ses.mu.Lock()
			ses.docs[u] = d
			ses.mu.Unlock()
			start := time.Now()
			v, ok := ses.viewOf(u)
			if !ok {
				b.Fatal("no document")
			}
			raw, err := ses.completionAnswer(v, pos)
			ds = append(ds, time.Since(start))
			if err != nil {
				b.Fatal(err)
			}
			if !strings.Contains(string(raw), `"login"`) {
				b.Fatalf("answer %.300s", raw)
			}
		}
		lsptest.ReportPercentiles(b, "", ds)
	}
	disp := hints.Display{APIs: ses.apiCache.Set(srv.ws.Descriptions(), srv.ws.APIs(), reg)}
	// "who.l" parses: the document's own analysis is used.
	typed := strings.Replace(text, "  who.\n", "  who.l\n", 1)
	b.Run("cached", func(b *testing.B) {
		d := newDocument(u, 1, typed)
		hints.Diagnose(d.doc, reg, disp)
		d = d.unparsed()
		measure(b, func() *document { return d })
	})
	b.Run("keystroke", func(b *testing.B) {
		hints.Diagnose(prev, reg, disp)
		prev = prev.Unparsed()
		measure(b, func() *document {
			d := newDocument(u, 2, text)
			d.doc = prev.Next(d.doc.Text())
			return d
		})
	})
	b.Run("cold", func(b *testing.B) {
		measure(b, func() *document { return newDocument(u, 1, typed) })
	})
}
