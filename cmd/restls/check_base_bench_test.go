package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// envBenchBase names an older restls executable that BenchmarkCheckVsBase
// times beside this one, run for run (issue 38's bound: restls check of
// 10,000 scripts within 1.2x of its time before the answer types, commit
// 3c62799).
const envBenchBase = "RESTLS_BENCH_BASE"

// corpusDescription is an OpenAPI description of what the corpus's
// scripts call, attached to every service of the corpus: with it the
// answer types are inferred in every script (they are not without).
const corpusDescription = `openapi: 3.0.3
info: {title: corpus, version: "1"}
paths:
  /customers/{id}:
    get:
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: a customer
          content:
            application/json:
              schema:
                type: object
                properties:
                  id: {type: string}
                  name: {type: string}
                  address: {type: object, properties: {city: {type: string}, zip: {type: string}}}
  /customers/{id}/flags:
    put:
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      requestBody: {content: {application/json: {schema: {type: object}}}}
      responses: {"204": {description: set}}
  /orders:
    get:
      parameters:
        - {name: customer, in: query, schema: {type: string}}
        - {name: status, in: query, schema: {type: string}}
      responses:
        "200":
          description: orders
          content:
            application/json:
              schema:
                type: array
                items:
                  type: object
                  properties:
                    id: {type: string}
                    amount: {type: number}
                    lines: {type: array, items: {type: object, properties: {sku: {type: string}, qty: {type: integer}}}}
  /orders/{id}:
    patch:
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      requestBody: {content: {application/json: {schema: {type: object}}}}
      responses: {"200": {description: patched, content: {application/json: {schema: {type: object, properties: {state: {type: string}}}}}}}
  /invoices:
    post:
      requestBody: {content: {application/json: {schema: {type: object}}}}
      responses: {"201": {description: booked, content: {application/json: {schema: {type: object, properties: {number: {type: string}}}}}}}
  /carts/{id}:
    delete:
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"204": {description: gone}}
  /:
    get:
      parameters: [{name: id, in: query, schema: {type: string}}]
      responses: {"200": {description: audit, content: {application/json: {schema: {type: object, properties: {seen: {type: boolean}}}}}}}
`

// writeDescribedCorpus writes writeCheckCorpus's corpus into dir with
// corpusDescription attached to every service by restls.yaml (and, with
// limits, a timeLimits key, which builds before it reject).
func writeDescribedCorpus(tb testing.TB, dir string, limits bool) {
	tb.Helper()
	writeCheckCorpus(tb, dir)
	writeTree(tb, dir, describedProject(limits))
}

// describedProject is the description and the restls.yaml that attaches
// it to every service of the corpus.
func describedProject(limits bool) map[string]string {
	var y strings.Builder
	y.WriteString("configRoot: config\nopenapi:\n")
	for i := range corpusServices {
		fmt.Fprintf(&y, "  svc-%03d: corpus.yaml\n", i)
	}
	if limits {
		y.WriteString("timeLimits:\n  scriptService: 20000\n")
	}
	return map[string]string{"corpus.yaml": corpusDescription, "restls.yaml": y.String()}
}

// BenchmarkCheckVsBase times restls check on the 10,000 scripts of
// writeCheckCorpus (8 calls each), as it is built from this tree and,
// with RESTLS_BENCH_BASE=PATH, as another build is, one after the other
// in every iteration so both see the same load:
//
//   - plain: the corpus, no description (the answer types are not
//     inferred: nothing could be reported);
//   - described: an OpenAPI description attached to every service, so
//     every script's answer types are inferred and checked;
//   - limits: described, with restls.yaml's timeLimits, so every script's
//     worst case is added up too (this build only: older ones reject the
//     key).
//
// It reports the median wall and CPU seconds of each build and, with a
// base, the ratio of the CPU medians (issue 38: at most 1.2 against
// 3c62799). scripts/bench-check-vs-base.sh builds the base and runs it;
// run it with -benchtime 5x or more.
func BenchmarkCheckVsBase(b *testing.B) {
	ours := shippedRestls(b)
	base := os.Getenv(envBenchBase)
	timeRun := func(b *testing.B, dir, exe string) (wall, cpu time.Duration) {
		cmd := exec.Command(exe, "check", "scripts")
		cmd.Dir = dir
		var out, errs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errs
		start := time.Now()
		err := cmd.Run()
		d := time.Since(start)
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 {
			b.Fatalf("%s check: %v (want exit 1: the corpus has unknown serviceIds)\nstdout: %.1000s\nstderr: %.1000s", exe, err, out.String(), errs.String())
		}
		return d, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	median := func(ds []time.Duration) float64 {
		s := slices.Clone(ds)
		slices.Sort(s)
		return s[len(s)/2].Seconds()
	}
	for _, tc := range []struct {
		name            string
		described, lims bool
	}{{"plain", false, false}, {"described", true, false}, {"limits", true, true}} {
		b.Run(tc.name, func(b *testing.B) {
			dir := b.TempDir()
			if tc.described {
				writeDescribedCorpus(b, dir, tc.lims)
			} else {
				writeCheckCorpus(b, dir)
				writeTree(b, dir, map[string]string{"restls.yaml": "configRoot: config\n"})
			}
			withBase := base != "" && !tc.lims
			var wall, cpu, baseWall, baseCPU []time.Duration
			for b.Loop() {
				w, c := timeRun(b, dir, ours)
				wall, cpu = append(wall, w), append(cpu, c)
				if withBase {
					w, c := timeRun(b, dir, base)
					baseWall, baseCPU = append(baseWall, w), append(baseCPU, c)
				}
			}
			b.ReportMetric(median(wall), "restls-s")
			b.ReportMetric(median(cpu), "restls-cpu-s")
			if withBase {
				b.ReportMetric(median(baseWall), "base-s")
				b.ReportMetric(median(baseCPU), "base-cpu-s")
				b.ReportMetric(median(cpu)/median(baseCPU), "cpu-ratio")
			}
		})
	}
}

// TestDescribedCorpusChecks: with the description attached, restls check
// reads the corpus's answers through it (the benchmark measures the
// inference, not a description that failed to load), and with timeLimits
// every script's worst case is above the limit.
func TestDescribedCorpusChecks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The corpus's configuration and three of its scripts are enough to
	// see each diagnostic (the benchmark checks all 10,000), and a script
	// as the corpus's reading a field the description does not have
	// through the same helper: the inference runs on such scripts.
	files := describedProject(true)
	var yml strings.Builder
	yml.WriteString("scriptservice:\n  api:\n")
	for i := range corpusServices {
		fmt.Fprintf(&yml, "    - serviceId: svc-%03d\n      url: https://svc%d.example.com/api/v1\n", i, i)
	}
	files["config/application.yml"] = yml.String()
	scripts := []string{"scripts/00/script-00000.js", "scripts/01/script-00001.js", "scripts/02/script-00002.js", "scripts/misread.js"}
	for i, s := range scripts[:3] {
		files[s] = corpusScript(i)
	}
	files["scripts/misread.js"] = strings.Replace(corpusScript(3), "list[i].amount", "list[i].amout", 1)
	writeTree(t, dir, files)
	var args []string
	for _, s := range scripts {
		args = append(args, filepath.Join(dir, s))
	}
	out, errs, rc := runBinary(t, append([]string{"check", "--project", filepath.Join(dir, "restls.yaml"), "--format", "json"}, args...)...)
	if rc != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", rc, out, errs)
	}
	for _, want := range []string{`"worst-case-time"`, `"unknown-service"`, `"openapi-unknown-read"`} {
		if n := strings.Count(out, want); n < 1 {
			t.Errorf("%s: %d, want some\n%.2000s", want, n, out)
		}
	}
	if strings.Contains(out, "openapi-description") || strings.Contains(errs, "openapi") {
		t.Errorf("the description did not load:\n%.2000s\n%s", out, errs)
	}
}
