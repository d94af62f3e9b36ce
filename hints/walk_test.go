package hints

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/dop251/goja/ast"
)

// TestIsNil: isNil reads an interface's data word instead of asking
// reflect; both say the same of nil, typed nil and set nodes of every
// shape the parser leaves (a node built by the parser included).
func TestIsNil(t *testing.T) {
	t.Parallel()
	p := parseScript("var a = api.rest.v1.get('x', {}, {});\ntry { f(); } catch (e) {}\n", nil)
	if p.body == nil || len(p.errs) > 0 {
		t.Fatalf("parse: %+v", p.errs)
	}
	nodes := []ast.Node{nil, (*ast.Identifier)(nil), (*ast.CallExpression)(nil), (*ast.TryStatement)(nil),
		(*ast.BlockStatement)(nil), &ast.Identifier{}, &ast.EmptyStatement{}, p.body}
	walk(p.body, func(n ast.Node) { nodes = append(nodes, n) })
	for _, n := range nodes {
		want := n == nil || reflect.ValueOf(n).Kind() == reflect.Pointer && reflect.ValueOf(n).IsNil()
		if got := isNil(n); got != want {
			t.Errorf("isNil(%T %v) = %v, want %v", n, n, got, want)
		}
	}
	// A typed nil inside a node the parser built: the try's finally.
	var tries int
	walk(p.body, func(n ast.Node) {
		if tr, ok := n.(*ast.TryStatement); ok {
			tries++
			if !isNil(tr.Finally) {
				t.Errorf("the try has no finally, isNil says it has one")
			}
		}
	})
	if tries != 1 {
		t.Errorf("walk met %d try statements, want 1", tries)
	}
}

// BenchmarkWalk walks the tree of a script shaped as restls check's
// corpus (make bench-oxlint) is, visiting every node.
func BenchmarkWalk(b *testing.B) {
	var src strings.Builder
	for i := range 40 {
		fmt.Fprintf(&src, "var r%d = api.rest.v1.get(\"svc-%d\", { pathParams: [\"orders\", String(i)], queryParams: { q: \"x\", n: %d } }, { Accept: \"application/json\" });\n", i, i, i)
		fmt.Fprintf(&src, "if (r%d.status.code === 200 && r%d.body) { total += sum(r%d.body) || 0; } else { console.log(\"failed: \" + r%d.status.code); }\n", i, i, i, i)
		src.WriteString("try { api.rest.v1.post(\"svc-1\", {}, {}, { a: [1, 2, 3], b: { c: true } }); } catch (e) { console.log(e.message); }\n")
	}
	p := parseScript(src.String(), nil)
	if p.body == nil || len(p.errs) > 0 {
		b.Fatalf("parse: %+v", p.errs)
	}
	nodes := 0
	walk(p.body, func(ast.Node) { nodes++ })
	for b.Loop() {
		n := 0
		walk(p.body, func(ast.Node) { n++ })
		if n != nodes {
			b.Fatalf("%d nodes, want %d", n, nodes)
		}
	}
	b.ReportMetric(float64(nodes), "nodes")
}
