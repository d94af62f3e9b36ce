//go:build unix

package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestChildrenLeaveNoTempDirs: a dry run through the binary (this test
// binary as restls, and the dry-run child it starts, both this binary
// again) leaves nothing in the temporary directory. Package-level set-up
// of the test binary once made a directory there in every child: tens of
// thousands by an afternoon, which every later run's stale-directory
// sweep (runtime/isolate.cleanStale) read whole.
func TestChildrenLeaveNoTempDirs(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	dir := t.TempDir()
	script := writeFile(t, dir, "main.js", "var x = 1;\n")
	mock := writeFile(t, dir, "none.json", "[]")
	cmd := restlsCommand(t, "run", "--json", "--config-root", filepath.Join(repoRoot(t), "testdata/config"), "--mock", mock, script)
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("restls run: %v\n%s", err, out)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("restls run left %s in the temporary directory", e.Name())
	}
}
