package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
)

// navProject writes issue 26's project: 10,000 scripts and 10,000
// services; every tenth script calls "hot".
func navProject(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	var y strings.Builder
	y.WriteString("scriptservice:\n  api:\n    - serviceId: hot\n      url: https://hot.example.com/api\n")
	for i := range 10_000 {
		fmt.Fprintf(&y, "    - serviceId: svc-%04d\n      url: https://s%d.example.com/v1\n", i, i)
	}
	files := map[string]string{"config/application.yml": y.String()}
	for i := range 10_000 {
		s := fmt.Sprintf("function load(id) {\n  return api.rest.v1.get(\"svc-%04d\", {pathParams: [\"customers\", id]}, {});\n}\n", i)
		if i%10 == 0 {
			s += "var h = api.rest.v1.get(\"hot\", {}, {});\n"
		}
		files[fmt.Sprintf("scripts/d%02d/s%05d.js", i%100, i)] = s
	}
	writeFiles(b, dir, files)
	return dir
}

// BenchmarkNavigationServer: the navigation requests through a real
// JSON-RPC connection on a project of 10,000 scripts and 10,000
// services. first-completion-ms is the first completion sent right after
// initialized, while the index builds; index-ms is initialized to the
// first references answer (the build); refs-p99-ms and symbols-p99-ms over
// 200 requests each; rename-ms renames "hot" (1,000 scripts, one
// definition), the answer decoded by the client; codelens-ms is the code
// lens of the 10,001 entries of application.yml.
func BenchmarkNavigationServer(b *testing.B) {
	dir := navProject(b)
	main := filepath.Join(dir, "scripts/d00/s00000.js")
	text, err := os.ReadFile(main)
	if err != nil {
		b.Fatal(err)
	}
	u := uri.File(main)
	for b.Loop() {
		srv := newTestServer(b, Options{Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}})
		srv.Session().Registry().Get() // the registry's first load is not the index's
		start := time.Now()
		c := connect(b, srv, clientOptions{root: dir})
		c.open(u, string(text))
		// The first completion, in "svc-0000".
		if l := c.completion(u, protocol.Position{Line: 1, Character: 30}); l == nil || len(l.Items) == 0 {
			b.Fatal("no completion")
		}
		first := time.Since(start)
		at := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: 3, Character: 26}}
		refs := func() int {
			var locs []protocol.Location
			if err := c.call(protocol.MethodTextDocumentReferences, &protocol.ReferenceParams{TextDocumentPositionParams: at,
				Context: protocol.ReferenceContext{IncludeDeclaration: true}}, &locs); err != nil {
				b.Fatal(err)
			}
			return len(locs)
		}
		if n := refs(); n != 1001 {
			b.Fatalf("%d references of hot", n)
		}
		built := time.Since(start)
		p99 := func(f func()) float64 {
			d := make([]time.Duration, 200)
			for i := range d {
				t := time.Now()
				f()
				d[i] = time.Since(t)
			}
			slices.Sort(d)
			return float64(d[len(d)*99/100].Microseconds()) / 1000
		}
		refsP99 := p99(func() { refs() })
		symsP99 := p99(func() {
			var syms []protocol.WorkspaceSymbol
			if err := c.call(protocol.MethodWorkspaceSymbol, &protocol.WorkspaceSymbolParams{Query: "svc-12"}, &syms); err != nil || len(syms) == 0 {
				b.Fatal(err, len(syms))
			}
		})
		t := time.Now()
		var we protocol.WorkspaceEdit
		if err := c.call(protocol.MethodTextDocumentRename, &protocol.RenameParams{TextDocumentPositionParams: at, NewName: "hot-v2"}, &we); err != nil || len(we.DocumentChanges) != 1001 {
			b.Fatal(err, len(we.DocumentChanges))
		}
		rename := time.Since(t)
		// The code lens of application.yml: 10,001 entries.
		yml := filepath.Join(dir, "config/application.yml")
		ytext, err := os.ReadFile(yml)
		if err != nil {
			b.Fatal(err)
		}
		yu := uri.File(yml)
		c.open(yu, string(ytext))
		t = time.Now()
		var lenses []protocol.CodeLens
		if err := c.call(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: yu}}, &lenses); err != nil || len(lenses) != 10_001 {
			b.Fatal(err, len(lenses))
		}
		lens := time.Since(t)
		b.ReportMetric(float64(lens.Microseconds())/1000, "codelens-ms")
		b.ReportMetric(float64(first.Microseconds())/1000, "first-completion-ms")
		b.ReportMetric(float64(built.Milliseconds()), "index-ms")
		b.ReportMetric(refsP99, "refs-p99-ms")
		b.ReportMetric(symsP99, "symbols-p99-ms")
		b.ReportMetric(float64(rename.Microseconds())/1000, "rename-ms")
	}
}
