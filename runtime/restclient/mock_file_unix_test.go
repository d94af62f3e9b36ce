//go:build unix

// Unix only: a FIFO and /dev/zero as fixture files.

package restclient

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/restls/restls/config"
)

// TestLoadMockRegularFilesOnly: fixtures are read as configuration is, so
// /dev/zero, a FIFO or a directory named with --mock is an error naming
// the file, at once.
func TestLoadMockRegularFilesOnly(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fixtures.yml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, file := range []string{"/dev/zero", fifo, dir} {
		done := make(chan error, 1)
		go func() { _, err := LoadMock(file); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, config.ErrNotRegular) {
				t.Errorf("LoadMock(%s): %v, want config.ErrNotRegular", file, err)
			}
			if want := "read mock fixtures " + file + ": "; err == nil || len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
				t.Errorf("LoadMock(%s): %v, want it to name the file", file, err)
			}
		case <-time.After(time.Second):
			t.Fatalf("LoadMock(%s) still running after 1s", file)
		}
	}
}
