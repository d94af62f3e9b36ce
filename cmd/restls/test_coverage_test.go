package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/internal/goldentest"
)

// TestTestCoverage: restls test --coverage through the binary writes
// lcov.info (golden) and cobertura.xml (it parses, its counts are the
// summary's), and after the report a summary per script (golden): lines
// and branches run, and each call site's outcomes (2XX, 404,
// read-timeout at the GET; the POST never called). --coverage-min fails
// the run below it, and the project file sets both.
func TestTestCoverage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stdout, stderr, rc := runBinary(t, testArgs("--coverage", "--coverage-dir", dir, "testdata/coverage")...)
	if rc != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q\n%s", rc, stderr, stdout)
	}
	goldentest.Check(t, filepath.Join("testdata", "golden", "test", "coverage.txt"), stdout)
	lcov, err := os.ReadFile(filepath.Join(dir, "lcov.info"))
	if err != nil {
		t.Fatal(err)
	}
	goldentest.Check(t, filepath.Join("testdata", "golden", "test", "coverage.lcov"), string(lcov))
	raw, err := os.ReadFile(filepath.Join(dir, "cobertura.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var cob struct {
		LinesCovered    int `xml:"lines-covered,attr"`
		LinesValid      int `xml:"lines-valid,attr"`
		BranchesCovered int `xml:"branches-covered,attr"`
		BranchesValid   int `xml:"branches-valid,attr"`
		Classes         []struct {
			Filename string `xml:"filename,attr"`
			Lines    []struct {
				Number int `xml:"number,attr"`
				Hits   int `xml:"hits,attr"`
			} `xml:"lines>line"`
		} `xml:"packages>package>classes>class"`
	}
	if err := xml.Unmarshal(raw, &cob); err != nil {
		t.Fatalf("cobertura.xml: %v\n%s", err, raw)
	}
	if cob.LinesCovered != 10 || cob.LinesValid != 12 || cob.BranchesCovered != 6 || cob.BranchesValid != 8 ||
		len(cob.Classes) != 1 || cob.Classes[0].Filename != "testdata/coverage/orders.js" || len(cob.Classes[0].Lines) != 12 {
		t.Errorf("cobertura.xml counts differ from the summary:\n%s", raw)
	}

	t.Run("min", func(t *testing.T) {
		t.Parallel()
		out, errs, rc := runBinary(t, testArgs("--coverage-min", "90", "--coverage-dir", t.TempDir(), "testdata/coverage")...)
		if rc != 1 || !strings.Contains(errs, "coverage 83.3% of lines is below --coverage-min 90%") {
			t.Errorf("--coverage-min 90: exit %d, stderr %q\n%s", rc, errs, out)
		}
		if !strings.Contains(out, "coverage testdata/coverage/orders.js: lines 10/12") {
			t.Errorf("--coverage-min implies --coverage: no summary\n%s", out)
		}
		if _, _, rc := runBinary(t, testArgs("--coverage-min", "80", "--coverage-dir", t.TempDir(), "testdata/coverage")...); rc != 0 {
			t.Errorf("--coverage-min 80: exit %d, want 0", rc)
		}
		if _, errs, rc := runBinary(t, testArgs("--coverage-min", "101", "testdata/coverage")...); rc != 2 || !strings.Contains(errs, "not a percentage") {
			t.Errorf("--coverage-min 101: exit %d, stderr %q; want 2", rc, errs)
		}
	})

	t.Run("project file", func(t *testing.T) {
		t.Parallel()
		proj := t.TempDir()
		cfg, err := filepath.Abs("../../testdata/config")
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(proj, "restls.yaml")
		if err := os.WriteFile(file, []byte("configRoot: "+cfg+"\ncoverage:\n  min: 90\n  dir: reports\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errs, rc := runBinary(t, "test", "--project", file, "testdata/coverage")
		if rc != 1 || !strings.Contains(errs, "below --coverage-min 90%") {
			t.Errorf("coverage.min 90 in the project file: exit %d, stderr %q\n%s", rc, errs, out)
		}
		if _, err := os.Stat(filepath.Join(proj, "reports", "lcov.info")); err != nil {
			t.Errorf("coverage.dir: %v", err)
		}
		if _, _, rc := runBinary(t, "test", "--project", file, "--coverage-min", "50", "testdata/coverage"); rc != 0 {
			t.Errorf("--coverage-min 50 over the file's 90: exit %d, want 0", rc)
		}
	})
}
