//go:build linux

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY returns the two ends of a new pseudo-terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open pts: %v", err)
	}
	return m, s
}

// TestRunColorAutoOnATerminal runs `restls run` with stdout on a real
// pseudo-terminal: the default --color auto colours it, unless NO_COLOR
// is set to anything non-empty.
func TestRunColorAutoOnATerminal(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	args := []string{"run", "--config-root", filepath.Join(root, "testdata/config"), "--mock", filepath.Join(root, "testdata/mocks/customer-summary.yaml"),
		filepath.Join(root, "testdata/scripts/customer-summary.js")}
	for _, tc := range []struct {
		noColor string
		color   bool
	}{{"", true}, {"1", false}, {"false", false}} {
		m, s := openPTY(t)
		done := make(chan []byte)
		go func() {
			var buf bytes.Buffer
			_, _ = io.Copy(&buf, m) // ends with EIO once the slave is closed
			done <- buf.Bytes()
		}()
		var errb bytes.Buffer
		env := map[string]string{"NO_COLOR": tc.noColor}
		rc := runMain(&cliEnv{stdin: strings.NewReader(""), stdout: s, stderr: &errb, getenv: func(k string) string { return env[k] }}, args)
		s.Close()
		out := <-done
		m.Close()
		if rc != 0 || !bytes.Contains(out, []byte("result:")) {
			t.Fatalf("NO_COLOR=%q: rc %d, stderr %q\n%s", tc.noColor, rc, errb.String(), out)
		}
		if got := bytes.Contains(out, []byte("\x1b[")); got != tc.color {
			t.Errorf("NO_COLOR=%q on a terminal: colour %v, want %v", tc.noColor, got, tc.color)
		}
	}
}
