//go:build unix

package input

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReadHead: ReadHead (the project index's look at the script: line
// of a test file too large for ReadFile) reads at most n bytes of a
// regular file, through a link too, and refuses at once, saying what it
// is, anything else: a FIFO without a writer, a directory, /dev/zero.
func TestReadHead(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.test.yaml")
	if err := os.WriteFile(big, bytes.Repeat([]byte("x"), 5<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(dir, "small.test.yaml")
	if err := os.WriteFile(small, []byte("script: a.js\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.test.yaml")
	if err := os.Symlink(small, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		n    int
		want string
	}{
		{big, 64 << 10, strings.Repeat("x", 64<<10)},
		{small, 64 << 10, "script: a.js\n"},
		{small, 6, "script"},
		{link, 64 << 10, "script: a.js\n"},
	} {
		got, err := ReadHead(c.path, TestFile, c.n)
		if err != nil || string(got) != c.want {
			t.Errorf("ReadHead(%s, %d) = %d bytes, %v; want %d bytes", filepath.Base(c.path), c.n, len(got), err, len(c.want))
		}
	}

	fifo := filepath.Join(dir, "fifo.test.yaml")
	if err := mkfifo(fifo); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for path, what := range map[string]string{fifo: "a FIFO (named pipe)", dir: "a directory", "/dev/zero": ""} {
		done := make(chan error, 1)
		go func() {
			_, err := ReadHead(path, TestFile, 64<<10)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), what) {
				t.Errorf("ReadHead(%s): %v, want it refused as not a regular file (%s)", path, err, what)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("ReadHead(%s): still reading after 5 s", path)
		}
	}
}
