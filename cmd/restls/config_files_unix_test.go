//go:build unix

// Unix only: a symbolic link to /dev/zero and a FIFO as config files.

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServicesConfigRootNotRegular is the repro of issue #13 finding 6
// through the real binary: `restls services --config-root DIR` where
// DIR/application.yml is a symbolic link to /dev/zero (it grew by
// 0.7 GB/s) or a FIFO (it hung) reports the file and what it is and exits at once, with
// little memory.
func TestServicesConfigRootNotRegular(t *testing.T) {
	// Not in parallel: it bounds the wall time, which tests beside it would stretch.
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	for _, c := range []struct {
		name, what string
		make       func(path string) error
	}{
		{"devzero", "a character device", func(p string) error { return os.Symlink("/dev/zero", p) }},
		{"fifo", "a FIFO (named pipe)", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			yml := filepath.Join(dir, "application.yml")
			if err := c.make(yml); err != nil {
				t.Skip(err)
			}
			cmd := restlsCommand(t, "services", "--config-root", dir)
			var buf bytes.Buffer
			cmd.Stdout, cmd.Stderr = &buf, &buf
			start := time.Now()
			runWithin(t, cmd, 10*time.Second, buf.String)
			took := time.Since(start)
			out := buf.Bytes()
			if took > 3*time.Second {
				t.Errorf("restls services took %v, want about a second at most", took)
			}
			if cmd.ProcessState.ExitCode() != 0 {
				t.Errorf("exit status %d, want 0 (1 only with --strict)", cmd.ProcessState.ExitCode())
			}
			if !strings.Contains(string(out), yml+":1:1: error: ") || !strings.Contains(string(out), c.what) {
				t.Errorf("output does not name the file and what it is:\n%s", out)
			}
			if rss, ok := peakRSS(cmd.ProcessState); ok && rss > 200<<20 {
				t.Errorf("peak RSS %d KiB", rss>>10)
			}
		})
	}
}
