package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"
)

// The side-by-side of restls check and oxlint (issue 34's acceptance:
// restls check of 10,000 scripts in at most oxlint's wall time with
// no-undef on the same files). scripts/bench-check-vs-oxlint.sh installs
// oxlint under a temporary directory and runs BenchmarkCheckVsOxlint with
// it; make bench-oxlint runs that script.
const (
	corpusScripts  = 10_000
	corpusCalls    = 8
	corpusServices = 500
	// envOxlint names the oxlint executable; without it oxlint is looked
	// for on PATH, and without that only restls is timed.
	envOxlint = "RESTLS_OXLINT"
	// envBenchRestls names another restls executable to time instead of
	// the one built from this package (an older build, for before and
	// after on the same corpus).
	envBenchRestls = "RESTLS_BENCH_RESTLS"
)

// writeCheckCorpus writes the corpus into dir, the same bytes every time:
// application.yml with corpusServices services, corpusScripts scripts of
// 27 lines with corpusCalls calls each in scripts/NN/, one script in
// 50 calling an unknown serviceId and one in 100 reading an undefined
// variable (so both tools report something), and .oxlintrc.json turning
// on no-undef with the scripts' globals.
func writeCheckCorpus(tb testing.TB, dir string) {
	tb.Helper()
	var yml strings.Builder
	yml.WriteString("scriptservice:\n  api:\n")
	for i := range corpusServices {
		fmt.Fprintf(&yml, "    - serviceId: svc-%03d\n      url: https://svc%d.example.com/api/v1\n", i, i)
	}
	files := map[string]string{
		"config/application.yml": yml.String(),
		".oxlintrc.json": `{
  "globals": {"api": "readonly", "context": "readonly", "console": "readonly"},
  "rules": {"no-undef": "error"}
}
`,
	}
	for i := range corpusScripts {
		files[fmt.Sprintf("scripts/%02d/script-%05d.js", i%100, i)] = corpusScript(i)
	}
	writeTree(tb, dir, files)
}

// corpusScript is script i of the corpus: corpusCalls calls of every
// method, with path and query parameters, headers, payloads and
// timeouts, a helper function, a loop and a try/catch.
func corpusScript(i int) string {
	svc := func(k int) string { return fmt.Sprintf("svc-%03d", (i*7+k*61)%corpusServices) }
	unknown := svc(7)
	if i%50 == 0 {
		unknown = fmt.Sprintf("svc-missing-%d", i)
	}
	total := "total"
	if i%100 == 1 {
		total = "totl" // not defined: oxlint's no-undef reports it
	}
	var s strings.Builder
	fmt.Fprintf(&s, "// Script %d: reads a customer and its orders, then books an invoice.\n", i)
	s.WriteString("var input = context.input || {};\n")
	fmt.Fprintf(&s, "var customerId = String(input.customerId || %d);\n", 1000+i)
	fmt.Fprintf(&s, "var customer = api.rest.v1.get(%q, { pathParams: [\"customers\", customerId] }, { Accept: \"application/json\" });\n", svc(0))
	fmt.Fprintf(&s, "var orders = api.rest.v1.get(%q, { pathParams: [\"orders\"], queryParams: { customer: customerId, status: \"open\" } }, {});\n", svc(1))
	s.WriteString(`var total = 0;
function sum(list) {
  var s = 0;
  for (var i = 0; i < list.length; i++) {
    s += list[i].amount || 0;
  }
  return s;
}
if (orders.status.code === 200 && orders.body) {
  total = sum(orders.body);
}
`)
	fmt.Fprintf(&s, `try {
  api.rest.v1.post(%q, { pathParams: ["invoices"] }, { "Content-Type": "application/json" }, { customer: customerId, total: %s }, { readTimeout: 5000 });
} catch (e) {
  console.log("invoice failed: " + e.message);
}
`, svc(2), total)
	fmt.Fprintf(&s, "api.rest.v1.put(%q, { pathParams: [\"customers\", customerId, \"flags\"] }, {}, { invoiced: true });\n", svc(3))
	fmt.Fprintf(&s, "api.rest.v1.patch(%q, { pathParams: [\"orders\", customerId] }, {}, { state: \"billed\" }, { connectionTimeout: 2000 });\n", svc(4))
	fmt.Fprintf(&s, "api.rest.v1.delete(%q, { pathParams: [\"carts\", customerId] }, {});\n", svc(5))
	fmt.Fprintf(&s, "var audit = api.rest.v1.get(%q, { queryParams: { id: customerId } }, {});\n", svc(6))
	fmt.Fprintf(&s, "api.rest.v1.post(%q, {}, {}, { event: \"invoiced\", customer: customerId });\n", unknown)
	s.WriteString("return { customer: customer.body, total: total, audit: audit.status.code };\n")
	return s.String()
}

// BenchmarkCheckVsOxlint times restls check (the binary as make dist
// builds it) and oxlint with no-undef on the corpus of writeCheckCorpus,
// one after the other in each iteration, so both see the same load on a
// shared machine. It reports the median wall seconds of each, their ratio
// (the acceptance: ratio <= 1), and the median CPU seconds of each. Without oxlint it times restls
// only. make bench-oxlint runs it with oxlint installed; run it with
// -benchtime 10x or more.
func BenchmarkCheckVsOxlint(b *testing.B) {
	dir := b.TempDir()
	writeCheckCorpus(b, dir)
	restls := os.Getenv(envBenchRestls)
	if restls == "" {
		restls = shippedRestls(b)
	}
	oxlint := os.Getenv(envOxlint)
	if oxlint == "" {
		oxlint, _ = exec.LookPath("oxlint")
	}
	// Wall time, and CPU time (user and system) which depends less on
	// the neighbours on a shared machine.
	timeRun := func(wantExit int, exe string, args ...string) (wall, cpu time.Duration) {
		cmd := exec.Command(exe, args...)
		cmd.Dir = dir
		var out, errs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errs
		start := time.Now()
		err := cmd.Run()
		d := time.Since(start)
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != wantExit {
			b.Fatalf("%s %s: %v (want exit %d)\nstdout: %.1000s\nstderr: %.1000s", exe, strings.Join(args, " "), err, wantExit, out.String(), errs.String())
		}
		return d, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	var ours, theirs, oursCPU, theirsCPU []time.Duration
	for b.Loop() {
		w, c := timeRun(1, restls, "check", "--config-root", "config", "scripts")
		ours, oursCPU = append(ours, w), append(oursCPU, c)
		if oxlint != "" {
			w, c := timeRun(1, oxlint, "-c", ".oxlintrc.json", "--quiet", "scripts")
			theirs, theirsCPU = append(theirs, w), append(theirsCPU, c)
		}
	}
	median := func(ds []time.Duration) float64 {
		s := slices.Clone(ds)
		slices.Sort(s)
		return s[len(s)/2].Seconds()
	}
	b.ReportMetric(median(ours), "restls-s")
	b.ReportMetric(median(oursCPU), "restls-cpu-s")
	if len(theirs) > 0 {
		b.ReportMetric(median(theirs), "oxlint-s")
		b.ReportMetric(median(theirsCPU), "oxlint-cpu-s")
		b.ReportMetric(median(ours)/median(theirs), "ratio")
	}
}

// BenchmarkCheckCorpusInProcess is restls check of the side-by-side's
// corpus inside the test process, with the garbage collection target the
// binary sets, so a profile sees where its time goes:
//
//	go test -run '^$' -bench CheckCorpusInProcess -benchtime 5x \
//	  -cpuprofile cpu.out ./cmd/restls && go tool pprof -top -focus check.Run cpu.out
//
// (writing the corpus is in the profile too, hence -focus; the
// process's start-up is not: GODEBUG=inittrace=1 shows that).
func BenchmarkCheckCorpusInProcess(b *testing.B) {
	dir := b.TempDir()
	writeCheckCorpus(b, dir)
	defer debug.SetGCPercent(debug.SetGCPercent(checkGCPercent))
	args := []string{"check", "--config-root", filepath.Join(dir, "config"), filepath.Join(dir, "scripts")}
	for b.Loop() {
		var out, errs bytes.Buffer
		env := &cliEnv{stdout: &out, stderr: &errs, getenv: func(string) string { return "" }}
		if rc := runMain(env, args); rc != 1 {
			b.Fatalf("restls check: exit %d, want 1\n%.1000s", rc, errs.String())
		}
	}
}

// TestCheckCorpusScripts: every script of the side-by-side's corpus
// makes corpusCalls calls, as the figures say.
func TestCheckCorpusScripts(t *testing.T) {
	t.Parallel()
	for _, i := range []int{0, 1, 2, 50, corpusScripts - 1} {
		if n := strings.Count(corpusScript(i), "api.rest.v1."); n != corpusCalls {
			t.Errorf("script %d has %d calls, want %d", i, n, corpusCalls)
		}
	}
}
