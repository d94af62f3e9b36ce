//go:build unix

package isolate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// Issue 23: a killed server left /tmp/restls-run-* behind. A new Runner
// removes the run directories of servers that are gone, and only those.
func TestNewRemovesStaleRunDirectories(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	// A process that has ended: its pid names no process now.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	mk := func(name string) string {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "designer.mock.yaml"), []byte("fixtures: []\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := mk("restls-run-" + strconv.Itoa(dead.Process.Pid) + "-123")
	live := mk("restls-run-" + strconv.Itoa(os.Getppid()) + "-456") // the go command, alive
	old := mk("restls-run-789")                                     // an older version's: no pid
	other := mk("restls-runner-" + strconv.Itoa(dead.Process.Pid) + "-1")

	New(Options{})
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the dead server's directory is still there: %v", err)
	}
	for _, p := range []string{live, old, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}
