package hygiene_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/internal/restlstest"
)

// TestFuzzSmoke runs scripts/fuzz-smoke.sh (make fuzz-smoke) on a module
// of two fuzz targets, one with a finding: it counts the targets as it
// goes, prints one line for a target that passes (none of the fuzzer's
// progress lines: make test once printed thousands), prints the fuzzer's
// report for the finding, runs the targets after it, and exits non-zero.
func TestFuzzSmoke(t *testing.T) {
	// Independent of every other test (its own files and processes):
	// it runs beside the other slow ones (make test's time, issue 33).
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and fuzzes a small module")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the fuzz smoke needs the go command: %v", err)
	}
	mod := t.TempDir()
	script, err := os.ReadFile(filepath.Join(restlstest.Root(t), "scripts", "fuzz-smoke.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"go.mod":                 "module example.com/smoke\n\ngo 1.26\n",
		"scripts/fuzz-smoke.sh":  string(script),
		"a/a.go":                 "package a\n",
		"a/a_test.go":            "package a\n\nimport \"testing\"\n\nfunc FuzzFinds(f *testing.F) {\n\tf.Add(\"ab\")\n\tf.Fuzz(func(t *testing.T, s string) {\n\t\tif len(s) > 3 {\n\t\t\tt.Fatalf(\"long input %q\", s)\n\t\t}\n\t})\n}\n",
		"b/b.go":                 "package b\n",
		"b/b_test.go":            "package b\n\nimport \"testing\"\n\nfunc FuzzFine(f *testing.F) {\n\tf.Add(1)\n\tf.Fuzz(func(t *testing.T, n int) {})\n}\n\nfunc FuzzAlsoFine(f *testing.F) {\n\tf.Add(2)\n\tf.Fuzz(func(t *testing.T, n int) {})\n}\n",
		"b/not_a_target_test.go": "package b\n\nimport \"testing\"\n\nfunc TestFuzzLike(t *testing.T) {}\n",
	} {
		p := filepath.Join(mod, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("bash", filepath.Join(mod, "scripts", "fuzz-smoke.sh"))
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GO="+goTool, "FUZZTIME=300x", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	got := string(out)
	t.Logf("make fuzz-smoke said:\n%s", got)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("fuzz smoke with a finding: %v, want exit status 1\n%s", err, got)
	}
	for _, want := range []string{
		"fuzz smoke: 3 targets, -fuzztime 300x each\n",
		"fuzz target 1 of 3: ./a FuzzFinds: FAIL (exit status 1",
		"Failing input written to testdata/fuzz/FuzzFinds/",
		"fuzz target 2 of 3: ./b FuzzAlsoFine: ok, 300 execs in ",
		"fuzz target 3 of 3: ./b FuzzFine: ok, 300 execs in ",
		"fuzz smoke: FAIL: 1 of 3 targets failed",
		"  ./a FuzzFinds\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("fuzz smoke output lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "fuzz: elapsed"); n > strings.Count(got[:strings.Index(got, "fuzz target 2 of 3")], "fuzz: elapsed") {
		t.Errorf("a passing target printed the fuzzer's progress lines:\n%s", got)
	}
	if found, _ := filepath.Glob(filepath.Join(mod, "a", "testdata", "fuzz", "FuzzFinds", "*")); len(found) != 1 {
		t.Errorf("the finding's input is not in a/testdata/fuzz/FuzzFinds: %q", found)
	}
}
