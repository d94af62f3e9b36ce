package e2e_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

// TestTestMemoryLimit: restls test runs each case in a runtime of its
// own, in its process, through the run engine, under the memory watchdog
// every dry run has: a case whose script keeps growing an array is
// stopped with memory-limit at --max-memory, long before --timeout, and
// the case beside it still passes. Before, a restls test case had no watchdog: it ran until its
// timeout, or until the machine ran out of memory.
func TestTestMemoryLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "application.yml", "scriptservice:\n  api:\n    - serviceId: crm\n      url: http://127.0.0.1:9\n")
	writeFile(t, dir, "grow.js", "var a = [];\nwhile (true) { a.push({i: a.length, s: \"abc\" + a.length}); }\n")
	writeFile(t, dir, "ok.js", "return 1;\n")
	writeFile(t, dir, "grow.test.yaml", "script: grow.js\nerror: {code: memory-limit}\n")
	writeFile(t, dir, "ok.test.yaml", "script: ok.js\nresult: 1\n")
	start := time.Now()
	out, errs, rc := runBinary(t, "test", "--json", "--max-memory", "64MiB", "--timeout", "2m",
		"--config-root", dir, filepath.Join(dir, "grow.test.yaml"), filepath.Join(dir, "ok.test.yaml"))
	took := time.Since(start)
	var rep struct {
		Tests []struct {
			Name   string `json:"name"`
			Passed bool   `json:"passed"`
			Error  *struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		} `json:"tests"`
		Passed int `json:"passed"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("rc %d: %v\n%s%s", rc, err, out, errs)
	}
	if rc != 0 || rep.Passed != 2 || len(rep.Tests) != 2 || rep.Tests[0].Error == nil || rep.Tests[0].Error.Code != "memory-limit" {
		t.Fatalf("rc %d after %v, want both tests to pass, the growing one stopped with memory-limit:\n%s%s", rc, took, out, errs)
	}
	if took > time.Minute {
		t.Errorf("restls test took %v: the watchdog did not stop the growing script, its timeout did", took)
	}
}
