package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cpuOf is the CPU time an ended command (and the children it waited
// for) spent.
func cpuOf(st *os.ProcessState) time.Duration { return st.UserTime() + st.SystemTime() }

// Issue 23, finding 12: "()=>" repeated 50,000 times (200 KB) took
// restls check 12.8 s and restls run 22 s in goja's parser, which walks
// down every expression-bodied arrow's body. The parse budget refuses it
// in one linear pass: check reports the file and checks the others, run
// fails with script-too-deep; each within a CPU bound (generous: a busy
// 2-core machine).
func TestParseBudgetThroughTheBinary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "arrows.js", strings.Repeat("()=>", 50000)+"1\n")
	writeFile(t, dir, "labels.js", strings.Repeat("a:", 100000)+"1\n")
	writeFile(t, dir, "other.js", "api.rest.v1.get('no-such-service', {}, {});\n")
	const bound = 4 * time.Second

	cmd := restlsCommand(t, "check", "--config-root", "testdata/check/config", dir)
	out, err := cmd.Output()
	if err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	cpu := cpuOf(cmd.ProcessState)
	t.Logf("restls check: %v CPU", cpu)
	if rc := cmd.ProcessState.ExitCode(); rc != 1 {
		t.Fatalf("check exit %d:\n%s", rc, out)
	}
	for _, want := range []string{"arrows.js:1:4001", "labels.js:1:726", "[script-too-deep]", "other.js:1:"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("check output lacks %q:\n%.2000s", want, out)
		}
	}
	if strings.Count(string(out), "[script-too-deep]") != 2 {
		t.Errorf("want one script-too-deep per refused file:\n%.2000s", out)
	}
	if cpu > bound {
		t.Errorf("restls check spent %v of CPU, want under %v", cpu, bound)
	}

	cfg := filepath.Join(repoRoot(t), "testdata/config")
	for _, name := range []string{"arrows.js", "labels.js"} {
		cmd = restlsCommand(t, "run", "--json", "--config-root", cfg, filepath.Join(dir, name))
		out, err = cmd.Output()
		if err != nil && cmd.ProcessState == nil {
			t.Fatal(err)
		}
		cpu = cpuOf(cmd.ProcessState)
		t.Logf("restls run %s: %v CPU", name, cpu)
		if e, _, _ := oneJSONObject(t, string(out)); cmd.ProcessState.ExitCode() != 1 || e.Code != "script-too-deep" || e.Name != "RangeError" {
			t.Errorf("run %s: exit %d, error %+v", name, cmd.ProcessState.ExitCode(), e)
		}
		if cpu > bound {
			t.Errorf("restls run %s spent %v of CPU, want under %v", name, cpu, bound)
		}
	}
}

// restls test: the refused script fails its own test with the budget's
// message, and the other test files still run (issue 23, finding 12).
func TestParseBudgetInRestlsTest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "arrows.js", strings.Repeat("()=>", 50000)+"1\n")
	writeFile(t, dir, "arrows.test.yaml", "script: arrows.js\ncases:\n  - name: refused\n    result: 1\n")
	writeFile(t, dir, "one.js", "return 1;\n")
	writeFile(t, dir, "one.test.yaml", "script: one.js\ncases:\n  - name: runs\n    result: 1\n")
	cmd := restlsCommand(t, append(testArgs("--json"), dir)...)
	out, err := cmd.Output()
	if err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	cpu := cpuOf(cmd.ProcessState)
	t.Logf("restls test: %v CPU", cpu)
	var rep struct {
		Tests []struct {
			File, Name string
			Passed     bool
		} `json:"tests"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("--json: %v\n%.1000s", err, out)
	}
	got := map[string]bool{}
	for _, tc := range rep.Tests {
		got[filepath.Base(tc.File)+" "+tc.Name] = tc.Passed
	}
	if pass, ok := got["arrows.test.yaml refused"]; !ok || pass {
		t.Errorf("the refused script's test: %+v", rep.Tests)
	}
	if !got["one.test.yaml runs"] {
		t.Errorf("the other file's test did not pass: %+v", rep.Tests)
	}
	if !strings.Contains(string(out), "script-too-deep") {
		t.Errorf("no script-too-deep in the report:\n%.1000s", out)
	}
	if cpu > 4*time.Second {
		t.Errorf("restls test spent %v of CPU", cpu)
	}
}
