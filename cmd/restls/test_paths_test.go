package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/internal/goldentest"
)

// TestTestAbsolutePaths: an absolute script: or fixtures: in a test file
// is refused, through the binary, naming the test file, the key's line
// and the path to write instead (relative to the test file). restls test
// joined it to the test file's directory, so script: /scripts/x.js ran
// tests/scripts/x.js without a word, and a path that holds on the
// author's machine failed in CI as a missing file under tests/.
func TestTestAbsolutePaths(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(base, "repo")
	for _, d := range []string{".git", "scripts", "fixtures", "tests/scripts", "tests/fixtures"} {
		if err := os.MkdirAll(filepath.Join(repo, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const fixture = "- serviceId: crm-customers\n  body: {}\n"
	writeFile(t, filepath.Join(repo, "scripts"), "x.js", "return 1;\n")
	writeFile(t, filepath.Join(repo, "fixtures"), "crm.yaml", fixture)
	// What the old join found: these made the tests below pass.
	writeFile(t, filepath.Join(repo, "tests", "scripts"), "x.js", "return 1;\n")
	writeFile(t, filepath.Join(repo, "tests", "fixtures"), "crm.yaml", fixture)
	writeFile(t, filepath.Join(repo, "tests"), "top.test.yaml", "script: /scripts/x.js\nresult: 1\n")
	writeFile(t, filepath.Join(repo, "tests"), "machine.test.yaml", "# copied from the editor\nscript: "+filepath.ToSlash(filepath.Join(repo, "scripts", "x.js"))+"\nresult: 1\n")
	writeFile(t, filepath.Join(repo, "tests"), "fixtures.test.yaml", "script: ../scripts/x.js\nfixtures: /fixtures/crm.yaml\nresult: 1\n")
	writeFile(t, filepath.Join(repo, "tests"), "ok.test.yaml", "script: ../scripts/x.js\nfixtures: ../fixtures/crm.yaml\nresult: 1\n")
	config, _ := filepath.Abs("../../testdata/config")

	stdout, stderr, rc := runBounded(t, repo, nil, time.Minute, "test", "--config-root", config, "tests")
	if rc != 1 {
		t.Errorf("exit %d, want 1 (failing tests); stderr %s", rc, stderr)
	}
	goldentest.Check(t, filepath.Join("testdata", "golden", "test", "absolute-paths.txt"), strings.ReplaceAll(stdout, repo, "$REPO"))

	stdout, stderr, rc = runBounded(t, repo, nil, time.Minute, "test", "--json", "--config-root", config, "tests")
	var rep struct {
		Tests []struct {
			File, Name string
			Line       int
			Passed     bool
		}
	}
	if err := json.NewDecoder(bytes.NewReader([]byte(stdout))).Decode(&rep); err != nil || rc != 1 {
		t.Fatalf("--json: exit %d, %v\n%s%s", rc, err, stdout, stderr)
	}
	var got []string
	for _, o := range rep.Tests {
		got = append(got, fmt.Sprintf("%s:%d %s passed=%v", o.File, o.Line, o.Name, o.Passed))
	}
	want := []string{
		"tests/fixtures.test.yaml:2 (test file) passed=false",
		"tests/machine.test.yaml:2 (test file) passed=false",
		"tests/ok.test.yaml:1 ok.test.yaml passed=true",
		"tests/top.test.yaml:1 (test file) passed=false",
	}
	if !slices.Equal(got, want) {
		t.Errorf("--json outcomes %q, want %q", got, want)
	}
}
