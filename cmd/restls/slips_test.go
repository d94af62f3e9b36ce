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
