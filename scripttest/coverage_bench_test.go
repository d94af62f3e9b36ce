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
	"github.com/restls/restls/coverage"
	"github.com/restls/restls/workspace"
)

// BenchmarkCoverage is issue 35's cost bound: restls test --coverage at
// most 1.3x restls test on the same suite. 200 tests (20 files of 10
// cases) of a script with 3 mocked calls, branches and a loop of 20
// turns; each op runs the suite without coverage and then with it, and
// reports the CPU seconds of each and their ratio (docs/decisions.md,
// "Coverage").
func BenchmarkCoverage(b *testing.B) {
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
var total = 0;
for (var i = 0; i < 20; i++) {
  if (i % 2 === 0) {
    total += o.length;
  } else {
    total -= 1;
  }
  total = total > 100 ? 100 : total;
}
var name = c.name || "unknown";
var p = api.rest.v1.post("crm", { pathParams: ["audit"] }, {}, { customer: id, orders: o.length });
return { name: name, orders: o.length, audit: p.body.id, total: total };
`)
	for f := range 20 {
		var t strings.Builder
		t.WriteString("script: s.js\nfixtures:\n")
		t.WriteString("  - { serviceId: crm, method: GET, path: customers/*, body: { name: Ann } }\n")
		t.WriteString("  - { serviceId: crm, method: GET, path: orders, body: [1, 2, 3] }\n")
		t.WriteString("  - { serviceId: crm, method: POST, path: audit, status: 201, body: { id: a-1 } }\n")
		t.WriteString("cases:\n")
		for c := range 10 {
			fmt.Fprintf(&t, "  - name: case %d\n    input: { id: \"%d\" }\n    result: { name: Ann, orders: 3, audit: a-1, total: 20 }\n", c, c)
		}
		write(fmt.Sprintf("t%03d.test.yaml", f), t.String())
	}
	snap := config.Load(config.Sources{Properties: []string{filepath.Join(root, "application.yml")}})
	run := func(cov *coverage.Collector) time.Duration {
		before, _ := processCPU()
		rep, err := Run(context.Background(), Options{Paths: []string{root}, Snapshot: workspace.Snapshot{Config: snap}, Coverage: cov})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Passed != 200 {
			for _, o := range rep.Outcomes {
				if !o.Passed {
					b.Fatalf("%d passed, want 200; %s: %s", rep.Passed, o.Name, strings.Join(o.Failures, "\n"))
				}
			}
		}
		if cov != nil && rep.Coverage.Lines.Hit == 0 {
			b.Fatal("coverage saw no line")
		}
		after, _ := processCPU()
		return after - before
	}
	var plain, covered time.Duration
	n := 0
	for b.Loop() {
		n++
		plain += run(nil)
		covered += run(coverage.New())
	}
	b.ReportMetric((plain / time.Duration(n)).Seconds(), "plain-cpu-s/op")
	b.ReportMetric((covered / time.Duration(n)).Seconds(), "coverage-cpu-s/op")
	b.ReportMetric(float64(covered)/float64(plain), "coverage/plain")
}
