package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/restls/restls/internal/goldentest"
)

var testConfig = []string{"--config-root", "../../testdata/config"}

func testArgs(args ...string) []string {
	return append(append([]string{"test"}, testConfig...), args...)
}

// TestTestOutcomes: passing, failing (result, calls, a missing fixture,
// an expected error), erroring and malformed tests through the real
// binary; the text users read is a golden file.
func TestTestOutcomes(t *testing.T) {
	t.Parallel()
	stdout, stderr, rc := runBinary(t, testArgs("testdata/scripttest")...)
	if rc != 1 || stderr != "" {
		t.Errorf("exit %d, stderr %q; want 1 and nothing", rc, stderr)
	}
	goldentest.Check(t, filepath.Join("testdata", "golden", "test", "outcomes.txt"), stdout)

	stdout, _, rc = runBinary(t, testArgs("testdata/scripttest/passing.test.yaml")...)
	if rc != 0 {
		t.Errorf("passing tests: exit %d, want 0\n%s", rc, stdout)
	}
	goldentest.Check(t, filepath.Join("testdata", "golden", "test", "passing.txt"), stdout)
}

// TestTestJUnit: the JUnit XML parses, has a testsuite per file and
// counts that match the tests; failures hold the diff.
func TestTestJUnit(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "junit.xml")
	stdout, _, rc := runBinary(t, testArgs("--junit", file, "--json", "testdata/scripttest")...)
	if rc != 1 {
		t.Fatalf("exit %d, want 1", rc)
	}
	var rep struct {
		Tests []struct {
			File, Name string
			Passed     bool
		} `json:"tests"`
		Passed, Failed, Files int
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, stdout)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Cases    []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &suites); err != nil {
		t.Fatalf("the JUnit XML does not parse: %v\n%s", err, data)
	}
	if suites.Tests != len(rep.Tests) || suites.Failures != rep.Failed || len(suites.Suites) != rep.Files {
		t.Errorf("JUnit counts %d tests, %d failures, %d suites; --json says %d, %d, %d files",
			suites.Tests, suites.Failures, len(suites.Suites), len(rep.Tests), rep.Failed, rep.Files)
	}
	if rep.Passed != 2 || rep.Failed != 9 || rep.Files != 6 {
		t.Errorf("passed %d, failed %d, files %d; want 2, 8, 6", rep.Passed, rep.Failed, rep.Files)
	}
	cases, failures := 0, 0
	for _, s := range suites.Suites {
		n, f := 0, 0
		for _, c := range s.Cases {
			n++
			if c.Failure != nil {
				f++
				if c.Failure.Text == "" || c.Failure.Message == "" {
					t.Errorf("%s / %s: a failure without its diff", s.Name, c.Name)
				}
			}
		}
		if n != s.Tests || f != s.Failures {
			t.Errorf("suite %s says %d tests, %d failures; holds %d, %d", s.Name, s.Tests, s.Failures, n, f)
		}
		cases, failures = cases+n, failures+f
	}
	if cases != suites.Tests || failures != suites.Failures {
		t.Errorf("testsuites says %d tests, %d failures; the suites hold %d, %d", suites.Tests, suites.Failures, cases, failures)
	}
}

// TestTestUpdate: --update writes the actual outcome into the failing
// tests' expectations; a plain run then passes. A malformed file is left
// alone and still fails.
func TestTestUpdate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"summary.js", "failing.test.yaml", "passing.test.yaml", "malformed.test.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "scripttest", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	config, _ := filepath.Abs("../../testdata/config")
	passing, _ := os.ReadFile(filepath.Join(dir, "passing.test.yaml"))
	stdout, _, rc := runBinary(t, "test", "--config-root", config, dir, "--update")
	if rc != 1 || !strings.Contains(stdout, "5 updated") {
		t.Errorf("--update: exit %d, want 1 (the malformed file)\n%s", rc, stdout)
	}
	updated, err := os.ReadFile(filepath.Join(dir, "failing.test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	goldentest.Check(t, filepath.Join("testdata", "golden", "test", "updated.test.yaml"), string(updated))
	if now, _ := os.ReadFile(filepath.Join(dir, "passing.test.yaml")); string(now) != string(passing) {
		t.Errorf("--update rewrote a passing test file:\n%s", now)
	}
	if err := os.Remove(filepath.Join(dir, "malformed.test.yaml")); err != nil {
		t.Fatal(err)
	}
	stdout, _, rc = runBinary(t, "test", "--config-root", config, dir)
	if rc != 0 {
		t.Errorf("a plain run after --update: exit %d, want 0\n%s", rc, stdout)
	}
}

// TestTestSelectionAndUsage: --run selects tests; usage errors exit 2.
func TestTestSelectionAndUsage(t *testing.T) {
	t.Parallel()
	stdout, _, rc := runBinary(t, testArgs("--run", "passing.*/part", "testdata/scripttest")...)
	if rc != 0 || !strings.Contains(stdout, "1 test in 6 files: 1 passed, 0 failed") {
		t.Errorf("--run: exit %d\n%s", rc, stdout)
	}
	for _, args := range [][]string{
		testArgs("testdata/no-such-dir"),
		testArgs("--run", "(", "testdata/scripttest"),
		testArgs("testdata/check"), // no test files
		{"test", "--config-root", "testdata/check/none", "testdata/scripttest"},
	} {
		if _, stderr, rc := runBinary(t, args...); rc != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", args, rc, stderr)
		}
	}
}

// TestTestLive: a call no fixture answers fails with no-fixture offline
// and goes to the service with --live.
func TestTestLive(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"path":%q}`, r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("application.yml", "scriptservice:\n  api:\n    - serviceId: local\n      url: "+srv.URL+"/api\n")
	write("s.js", `return api.rest.v1.get("local", { pathParams: ["x"] }, {}).body;`)
	write("s.test.yaml", "script: s.js\nresult: { path: /api/x }\n")
	args := []string{"test", "--properties", filepath.Join(dir, "application.yml"), dir}
	stdout, _, rc := runBinary(t, args...)
	if rc != 1 || !strings.Contains(stdout, "[no-fixture]") {
		t.Errorf("offline: exit %d, want 1 with no-fixture\n%s", rc, stdout)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("offline: the service got %d requests, want none", n)
	}
	stdout, _, rc = runBinary(t, append(args, "--live")...)
	if rc != 0 {
		t.Errorf("--live: exit %d, want 0\n%s", rc, stdout)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("--live: the service got %d requests, want 1", n)
	}
}

// TestCIDemo: the example repository of make demo-ci is clean and its
// tests pass, with no configuration flag: testdata/restls.yaml, found
// from the PATH, names the configuration (as README.md and make demo-ci
// rely on). Without the file, check would exit 2 (no configuration).
func TestCIDemo(t *testing.T) {
	t.Parallel()
	stdout, errs, rc := runBinary(t, "check", "--format", "json", "../../testdata/ci")
	if rc != 0 {
		t.Errorf("restls check testdata/ci: exit %d\n%s%s", rc, stdout, errs)
	}
	var rep struct{ Scripts int }
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep.Scripts < 3 {
		t.Errorf("restls check testdata/ci checked %d scripts (%v)", rep.Scripts, err)
	}
	stdout, _, rc = runBinary(t, "test", "../../testdata/ci")
	if rc != 0 {
		t.Errorf("restls test testdata/ci: exit %d\n%s", rc, stdout)
	}
}

// TestShippedProjectFile: README's quick start, restls run on the shipped
// example with no configuration flag, runs against testdata/config (its
// four calls answered from the fixtures) because testdata/restls.yaml,
// found from the script, names it.
func TestShippedProjectFile(t *testing.T) {
	t.Parallel()
	stdout, errs, rc := runBinary(t, "run", "--json", "--mock", "../../testdata/mocks/customer-summary.yaml", "../../testdata/scripts/customer-summary.js")
	if rc != 0 {
		t.Fatalf("restls run: exit %d\n%s%s", rc, stdout, errs)
	}
	var res struct {
		Calls []struct {
			ServiceID string `json:"serviceId"`
			ErrorCode string `json:"errorCode"`
		} `json:"calls"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Calls) != 4 {
		t.Fatalf("%d calls, want the example's 4:\n%s", len(res.Calls), stdout)
	}
	for _, c := range res.Calls {
		if c.ErrorCode == "unknown-service" {
			t.Errorf("serviceId %s unknown: the project file's configuration was not used", c.ServiceID)
		}
	}
}
