package check

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

// benchTree writes n scripts of 200 lines each, calling services of a
// registry of services serviceIds (one unknown id per script), and the
// registry as a properties file.
func benchTree(b *testing.B, n, services int) (string, config.Sources) {
	b.Helper()
	root := b.TempDir()
	var props strings.Builder
	props.WriteString("scriptservice:\n  api:\n")
	for i := range services {
		fmt.Fprintf(&props, "    - serviceId: svc-%05d\n      url: https://svc%d.example.com/api\n", i, i)
	}
	propsFile := filepath.Join(root, "application.yml")
	if err := os.WriteFile(propsFile, []byte(props.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		var s strings.Builder
		fmt.Fprintf(&s, "// Script %d: loads a customer, then its orders.\n", i)
		for line := 1; s.Len() >= 0 && strings.Count(s.String(), "\n") < 199; line++ {
			switch line % 5 {
			case 0:
				fmt.Fprintf(&s, "var r%d = api.rest.v1.get(\"svc-%05d\", { pathParams: [\"customers\", String(%d)], queryParams: { q: \"x\" } }, { Accept: \"application/json\" });\n", line, (i*7+line)%services, line)
			case 1:
				fmt.Fprintf(&s, "if (r%d && r%d.status && r%d.status.code === 200) { total += r%d.body.length || 0; }\n", line-1, line-1, line-1, line-1)
			case 2:
				fmt.Fprintf(&s, "api.rest.v1.post(\"svc-%05d\", {}, {}, { id: %d, items: [1, 2, 3], note: \"n\" }, { readTimeout: 5000 });\n", (i*13+line)%services, line)
			case 3:
				s.WriteString("// a comment line between calls, as scripts have them\n")
			default:
				fmt.Fprintf(&s, "var v%d = [1, 2, 3].map(function (x) { return x * %d; });\n", line, line)
			}
		}
		fmt.Fprintf(&s, "return api.rest.v1.get(\"svc-unknown-%d\", {}, {});\n", i)
		dir := filepath.Join(root, "scripts", fmt.Sprint(i%10))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%d.js", i)), []byte("var total = 0;\n"+s.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return root, config.Sources{Properties: []string{propsFile}}
}

// BenchmarkCheck is restls check on 1,000 scripts of 200 lines with a
// 10,000-service registry: loading the registry, walking, diagnosing on
// every core (docs/decisions.md quotes it).
func BenchmarkCheck(b *testing.B) {
	root, src := benchTree(b, 1000, 10000)
	before, okBefore := processCPU()
	n := 0
	for b.Loop() {
		n++
		rep, err := Run(Options{Paths: []string{filepath.Join(root, "scripts")}, Workspace: workspace.NewSession(workspace.SessionOptions{Sources: src})})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Scripts != 1000 || rep.Count(SeverityError) != 1000 {
			b.Fatalf("%d scripts, %d errors; want 1000 and one unknown serviceId each", rep.Scripts, rep.Count(SeverityError))
		}
	}
	after, okAfter := processCPU()
	// CPU seconds per run: on a shared machine the wall time depends on
	// the neighbours; CPU time over the cores is what an idle one gives.
	if okBefore && okAfter {
		b.ReportMetric(((after - before) / time.Duration(n)).Seconds(), "cpu-s/op")
	}
}

// BenchmarkCheckEngineProfile is BenchmarkCheck under restls.yaml's
// engine: es5.1, the costliest profile to scan (every feature is beyond
// it); the scripts use none, so the report is the same.
func BenchmarkCheckEngineProfile(b *testing.B) {
	root, src := benchTree(b, 1000, 10000)
	// The level as restls.yaml gives it (check names no jslevel type).
	level := workspace.ParseProject(workspace.FileName, []byte("engine: es5.1\n")).EngineLevel
	before, okBefore := processCPU()
	n := 0
	for b.Loop() {
		n++
		rep, err := Run(Options{Paths: []string{filepath.Join(root, "scripts")}, Workspace: workspace.NewSession(workspace.SessionOptions{Sources: src, EngineLevel: level})})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Scripts != 1000 || rep.Count(SeverityError) != 1000 {
			b.Fatalf("%d scripts, %d errors; want 1000 and one unknown serviceId each", rep.Scripts, rep.Count(SeverityError))
		}
	}
	after, okAfter := processCPU()
	if okBefore && okAfter {
		b.ReportMetric(((after - before) / time.Duration(n)).Seconds(), "cpu-s/op")
	}
}
