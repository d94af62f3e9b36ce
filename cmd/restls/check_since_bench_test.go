package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkCheckSince is restls check --since HEAD~1 (in-process, text
// output) on a git repository of 10,000 scripts calling 10,000 services,
// whose last commit removes 100 ids and moves 100 urls: reading REF's
// configuration with git, loading both, diagnosing every script and
// finding the calls the change affects (docs/ci.md quotes it).
func BenchmarkCheckSince(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("no git")
	}
	const n = 10_000
	dir := b.TempDir()
	yml := func(changed bool) string {
		var s strings.Builder
		s.WriteString("scriptservice:\n  api:\n")
		for i := range n {
			switch {
			case changed && i%100 == 0:
				continue // removed
			case changed && i%100 == 1:
				fmt.Fprintf(&s, "    - serviceId: svc-%05d\n      url: https://moved%d.example.com/api\n", i, i)
			default:
				fmt.Fprintf(&s, "    - serviceId: svc-%05d\n      url: https://svc%d.example.com/api\n", i, i)
			}
		}
		return s.String()
	}
	files := map[string]string{"config/application.yml": yml(false)}
	for i := range n {
		var s strings.Builder
		fmt.Fprintf(&s, "// Script %d\nvar total = 0;\n", i)
		for c := range 4 {
			fmt.Fprintf(&s, "var r%d = api.rest.v1.get(\"svc-%05d\", { pathParams: [\"customers\", String(%d)] }, {});\n", c, (i+c*37)%n, c)
			fmt.Fprintf(&s, "if (r%d && r%d.status.code === 200) { total += r%d.body.length || 0; }\n", c, c, c)
		}
		files[fmt.Sprintf("scripts/%d/s%d.js", i%100, i)] = s.String()
	}
	writeTree(b, dir, files)
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	writeTree(b, dir, map[string]string{"config/application.yml": yml(true)})
	git("commit", "-q", "-am", "100 ids removed, 100 urls moved")
	args := []string{"check", "--config-root", filepath.Join(dir, "config"), "--since", "HEAD~1", filepath.Join(dir, "scripts")}
	// CPU seconds per run beside the wall time: on the shared machine
	// the wall time depends on the neighbours (git's children included).
	before, okBefore := processCPUTime(os.Getpid())
	runs := 0
	for b.Loop() {
		runs++
		out, errs, rc := run(b, nil, args...)
		if rc != 1 || errs != "" || !strings.Contains(out, "[since-url-changed]") || !strings.Contains(out, "[since-service-removed]") {
			b.Fatalf("exit %d, stderr %q, output %.500s", rc, errs, out)
		}
	}
	after, okAfter := processCPUTime(os.Getpid())
	if okBefore && okAfter && runs > 0 {
		b.ReportMetric((after-before).Seconds()/float64(runs), "cpu-s/op")
	}
}
