//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// TestOnlyServersSweepTheTempDir: the sweep of run directories a killed
// server of an earlier version left (runtime/isolate.cleanStale) reads
// the whole temporary directory. restls serve does it once at its start;
// a one-shot restls run does not (on this machine it was a sixth of a
// trivial run's CPU), so a stale directory is left to the next server.
func TestOnlyServersSweepTheTempDir(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(tmp, "restls-run-"+strconv.Itoa(dead.Process.Pid)+"-1")
	if err := os.Mkdir(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := writeFile(t, dir, "main.js", "var x = 1;\n")
	mock := writeFile(t, dir, "none.json", "[]")
	config := filepath.Join(repoRoot(t), "testdata/config")
	run := restlsCommand(t, "run", "--json", "--config-root", config, "--mock", mock, script)
	run.Env = append(run.Env, "TMPDIR="+tmp)
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("restls run: %v\n%s", err, out)
	}
	if _, err := os.Stat(stale); err != nil {
		t.Errorf("restls run swept the temporary directory: %v", err)
	}
	// serve on a closed stdin: it starts, sweeps, reads the end and exits.
	serve := restlsCommand(t, "serve", "--stdio", "--config-root", config)
	serve.Env = append(serve.Env, "TMPDIR="+tmp)
	_ = serve.Run()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("restls serve left the dead server's run directory: %v", err)
	}
}
