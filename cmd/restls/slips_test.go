package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/internal/goldentest"
)

// runIn runs the real binary in dir with no input and returns what it
// printed, as the golden files of testdata/golden/cli hold it.
func runIn(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	cmd := restlsCommand(t, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	rc := 0
	if err := cmd.Run(); err != nil {
		if cmd.ProcessState == nil {
			t.Fatal(err)
		}
		rc = cmd.ProcessState.ExitCode()
	}
	return "stdout:\n" + stdout.String() + "stderr:\n" + stderr.String(), rc
}

// TestVersionFlag: `restls --version` (and -version, as every flag of
// restls may be written) is `restls version`, flags included; -v is not
// taken (it is the verbose flag of run and test) but points at --version.
func TestVersionFlag(t *testing.T) {
	root := repoRoot(t)
	want, rc := runIn(t, root, "version")
	if rc != 0 || !strings.HasPrefix(want, "stdout:\nrestls ") {
		t.Fatalf("restls version: exit %d\n%s", rc, want)
	}
	wantJSON, _ := runIn(t, root, "version", "--json")
	for _, args := range [][]string{{"--version"}, {"-version"}} {
		if got, rc := runIn(t, root, args...); rc != 0 || got != want {
			t.Errorf("restls %s: exit %d\n%s\nwant exit 0 and\n%s", args[0], rc, got, want)
		}
		if got, rc := runIn(t, root, args[0], "--json"); rc != 0 || got != wantJSON {
			t.Errorf("restls %s --json: exit %d\n%s\nwant exit 0 and\n%s", args[0], rc, got, wantJSON)
		}
	}
	got, rc := runIn(t, root, "-v")
	if rc != 2 {
		t.Errorf("restls -v: exit %d, want 2", rc)
	}
	goldentest.Check(t, "testdata/golden/cli/dash-v.txt", got)
}

// TestTestMissingPath: `restls test` given a path that does not exist
// says so in words, with or without a configuration, before any
// complaint about the configuration.
func TestTestMissingPath(t *testing.T) {
	root := repoRoot(t)
	empty := t.TempDir() // no configuration here
	for _, tc := range []struct {
		name, dir string
		args      []string
	}{
		{"test-missing-path", root, []string{"test", "--config-root", "testdata/config", "nonexistdir"}},
		{"test-missing-path-no-config", empty, []string{"test", "nonexistdir"}},
		{"test-missing-path-missing-root", empty, []string{"test", "--config-root", "no-such-root", "nonexistdir"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, rc := runIn(t, tc.dir, tc.args...)
			if rc != 2 {
				t.Errorf("exit %d, want 2", rc)
			}
			goldentest.Check(t, filepath.Join("testdata/golden/cli", tc.name+".txt"), got)
		})
	}
	// A path that exists but holds no test file is a different slip.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.js"), []byte("return 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, rc := runIn(t, root, "test", "--config-root", "testdata/config", dir)
	if rc != 2 || !strings.Contains(got, "no test files (*.test.yaml) found") {
		t.Errorf("a directory without test files: exit %d\n%s", rc, got)
	}
}

// TestTestUpdateAdopts is docs/ci.md's adoption workflow: a test file
// whose cases give only their input (they expect nothing, so they pass)
// gets the actual result and calls written by --update; a case that
// expects something and passes stays as written, comments stay; a plain
// run then passes, and a second --update changes nothing.
func TestTestUpdateAdopts(t *testing.T) {
	dir := t.TempDir()
	script, err := os.ReadFile(filepath.Join("testdata", "scripttest", "summary.js"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.js"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	adopt := filepath.Join(dir, "adopt.test.yaml")
	if err := os.WriteFile(adopt, []byte(`# Adopted with restls test --update.
script: summary.js
fixtures:
  - serviceId: crm-customers
    path: "1"
    body: { id: 1, name: Ann, tags: [a, b] }
  - serviceId: crm-customers
    path: "2"
    status: 404
    body: { error: no customer 2 }
cases:
  - name: known customer   # expects nothing yet
    input: { id: "1" }
  - name: checked already
    input: { id: "1" }
    resultMatch: { name: Ann }
  - name: unknown customer
    input: { id: "2" }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	single := filepath.Join(dir, "single.test.yaml")
	if err := os.WriteFile(single, []byte("script: summary.js\ninput: { id: \"1\" }\nfixtures:\n  - { serviceId: crm-customers, body: { id: 1, name: Bo } }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	config, _ := filepath.Abs("../../testdata/config")
	stdout, _, rc := runBinary(t, "test", "--config-root", config, "--update", dir)
	if rc != 0 || !strings.Contains(stdout, "3 updated") {
		t.Errorf("--update: exit %d, want 0 and 3 updated (two cases that expect nothing, one that fails)\n%s", rc, stdout)
	}
	got, err := os.ReadFile(adopt)
	if err != nil {
		t.Fatal(err)
	}
	goldentest.Check(t, filepath.Join("testdata", "golden", "test", "adopted.test.yaml"), string(got))
	gotSingle, err := os.ReadFile(single)
	if err != nil {
		t.Fatal(err)
	}
	goldentest.Check(t, filepath.Join("testdata", "golden", "test", "adopted-single.test.yaml"), string(gotSingle))
	if stdout, _, rc := runBinary(t, "test", "--config-root", config, dir); rc != 0 {
		t.Errorf("a plain run after --update: exit %d, want 0\n%s", rc, stdout)
	}
	stdout, _, rc = runBinary(t, "test", "--config-root", config, "--update", dir)
	if again, _ := os.ReadFile(adopt); rc != 0 || strings.Contains(stdout, "updated") || string(again) != string(got) {
		t.Errorf("a second --update: exit %d, want 0 with nothing updated and the file unchanged\n%s", rc, stdout)
	}
}
