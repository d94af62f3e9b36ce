package scripttest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

// BenchmarkRun is restls test on 1,000 tests of 3 mocked calls each (100
// files of 10 cases), one goja runtime per test, on every core
// (docs/decisions.md quotes it).
func BenchmarkRun(b *testing.B) {
	root := b.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write("application.yml", "scriptservice:\n  api:\n    - serviceId: crm\n      url: https://crm.example.com/api\n")
	write("s.js", `var id = context.input.id;
var c = api.rest.v1.get("crm", { pathParams: ["customers", id] }, {}).body;
var o = api.rest.v1.get("crm", { pathParams: ["orders"], queryParams: { customer: id } }, {}).body;
var p = api.rest.v1.post("crm", { pathParams: ["audit"] }, {}, { customer: id, orders: o.length });
return { name: c.name, orders: o.length, audit: p.body.id };
`)
	for f := range 100 {
		var t strings.Builder
		t.WriteString("script: s.js\nfixtures:\n")
		t.WriteString("  - { serviceId: crm, method: GET, path: customers/*, body: { name: Ann } }\n")
		t.WriteString("  - { serviceId: crm, method: GET, path: orders, body: [1, 2, 3] }\n")
		t.WriteString("  - { serviceId: crm, method: POST, path: audit, status: 201, body: { id: a-1 } }\n")
		t.WriteString("cases:\n")
		for c := range 10 {
			fmt.Fprintf(&t, "  - name: case %d\n    input: { id: \"%d\" }\n    result: { name: Ann, orders: 3, audit: a-1 }\n", c, c)
			fmt.Fprintf(&t, "    calls:\n      - { method: GET, url: \"https://crm.example.com/api/customers/%d\" }\n      - { method: GET }\n      - { method: POST, body: { customer: \"%d\", orders: 3 } }\n", c, c)
		}
		write(fmt.Sprintf("t%03d.test.yaml", f), t.String())
	}
	snap := config.Load(config.Sources{Properties: []string{filepath.Join(root, "application.yml")}})
	before, okBefore := processCPU()
	n := 0
	for b.Loop() {
		n++
		rep, err := Run(context.Background(), Options{Paths: []string{root}, Snapshot: workspace.Snapshot{Config: snap}})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Passed != 1000 {
			for _, o := range rep.Outcomes {
				if !o.Passed {
					b.Fatalf("%d passed, want 1000; %s: %s", rep.Passed, o.Name, strings.Join(o.Failures, "\n"))
				}
			}
		}
	}
	after, okAfter := processCPU()
	if okBefore && okAfter {
		b.ReportMetric(((after - before) / time.Duration(n)).Seconds(), "cpu-s/op")
	}
}

// BenchmarkParseEditor is what the language server does to a test file
// at each pause in typing (its lenses and diagnostic): Parse of a file of
// 100 cases with 100 inline fixtures, its script read from disk.
func BenchmarkParseEditor(b *testing.B) {
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, "s.js"), []byte(`return api.rest.v1.get("crm", {pathParams: [context.input.id]}, {}).body;`), 0o644); err != nil {
		b.Fatal(err)
	}
	var t strings.Builder
	t.WriteString("script: s.js\nfixtures:\n")
	for i := range 100 {
		fmt.Fprintf(&t, "  - serviceId: crm\n    path: %q\n    body: { id: %d, name: n%d, tags: [a, b] }\n", fmt.Sprint(i), i, i)
	}
	t.WriteString("cases:\n")
	for i := range 100 {
		fmt.Fprintf(&t, "  - name: case %d\n    input: { id: \"%d\" }\n    result: { id: %d, name: n%d, tags: [a, b] }\n    calls:\n      - { method: GET, serviceId: crm }\n", i, i, i, i)
	}
	path := filepath.Join(root, "t.test.yaml")
	data := []byte(t.String())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		f, err := Parse(path, data)
		if err != nil || len(f.Cases) != 100 {
			b.Fatal(err)
		}
	}
}
