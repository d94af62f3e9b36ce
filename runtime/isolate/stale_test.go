//go:build unix

package isolate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// Issue 23: a killed server left /tmp/restls-run-* behind. A new
// server's Runner (Options.Sweep) removes the run directories of servers
// that are gone, and only those; any other Runner (a one-shot command's)
// does not read the temporary directory.
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
	if _, err := os.Stat(stale); err != nil {
		t.Errorf("a Runner without Sweep removed the dead server's directory: %v", err)
	}
	New(Options{Sweep: true})
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the dead server's directory is still there: %v", err)
	}
	for _, p := range []string{live, old, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}

// cleanStale reads the temporary directory in batches: a stale run
// directory among thousands of other entries (a shared /tmp) is found
// whichever batch it comes in.
func TestCleanStaleAmongManyEntries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	manyEntries(t, dir, 1500) // more than one batch of 1024
	var stale []string
	for i := range 10 { // some in a later batch, whatever the order
		p := filepath.Join(dir, "restls-run-"+strconv.Itoa(dead.Process.Pid)+"-"+strconv.Itoa(i))
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		stale = append(stale, p)
	}
	if n := cleanStale(dir); n != len(stale) {
		t.Errorf("cleanStale removed %d directories, want %d", n, len(stale))
	}
	for _, p := range stale {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", p, err)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 1500 {
		t.Errorf("%d entries left, want the 1500 others", len(left))
	}
}

// BenchmarkCleanStale sweeps a temporary directory of 20,000 other
// entries, as every server start does:
//
//	go test ./runtime/isolate -run '^$' -bench CleanStale -benchtime 20x
func BenchmarkCleanStale(b *testing.B) {
	dir := b.TempDir()
	manyEntries(b, dir, 20000)
	for b.Loop() {
		cleanStale(dir)
	}
}

// manyEntries makes n empty directories in dir, named as other tests'
// temporary directories are.
func manyEntries(tb testing.TB, dir string, n int) {
	tb.Helper()
	for i := range n {
		if err := os.Mkdir(filepath.Join(dir, "restls-peak-"+strconv.Itoa(i)), 0o700); err != nil {
			tb.Fatal(err)
		}
	}
}
