//go:build unix

package e2e_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeHTTPPageURLFileNotRegular: a --page-url-file that is a FIFO
// neither hangs serve at start (an open for writing waits for a reader)
// nor receives the key: serve stops at once and says what the path is.
func TestServeHTTPPageURLFileNotRegular(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "page-url")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	cmd := restlsCommand(t, "serve", "--http", "127.0.0.1:0", "--page-url-file", fifo)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	runWithin(t, cmd, 20*time.Second, errb.String)
	if rc := cmd.ProcessState.ExitCode(); rc == 0 || !strings.Contains(errb.String(), fifo+": the path is a FIFO (named pipe), not a regular file") {
		t.Errorf("restls serve --page-url-file FIFO: exit %d, stderr:\n%s", rc, errb.String())
	}
}
