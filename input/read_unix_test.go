//go:build unix

// Unix only: FIFOs and Unix sockets.

package input

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNotRegular: a FIFO without a writer, a socket and a directory are
// refused at once, saying what they are, by ReadFile and ReadFileIn.
func TestNotRegular(t *testing.T) {
	dir, err := os.MkdirTemp("", "in") // short: a socket path is limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	fifo, sock, sub := filepath.Join(dir, "f"), filepath.Join(dir, "s"), filepath.Join(dir, "d")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skip("no Unix sockets here:", err)
	}
	defer l.Close()
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for path, what := range map[string]string{fifo: "a FIFO (named pipe)", sock: "a socket", sub: "a directory"} {
		for _, in := range []bool{false, true} {
			done := make(chan error, 1)
			go func() {
				var err error
				if in {
					_, err = ReadFileIn(dir, path, Ignore)
				} else {
					_, err = ReadFile(path, Ignore)
				}
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), what) {
					t.Errorf("%s (in root: %v): %v", what, in, err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s (in root: %v): still reading after 5 s", what, in)
			}
		}
	}
}

// TestInputPipe: restls run --input reads a pipe (--input <(...)),
// bounded by the limit; other kinds refuse it.
func TestInputPipe(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	go func() { _, _ = pw.Write([]byte(`{"n":1}`)); pw.Close() }()
	path := "/dev/fd/" + strconv.Itoa(int(pr.Fd()))
	if _, err := os.Stat(path); err != nil {
		t.Skip("no /dev/fd here:", err)
	}
	data, err := ReadFile(path, Input)
	if err != nil || string(data) != `{"n":1}` {
		t.Errorf("--input from a pipe: %q, %v", data, err)
	}
	pr2, pw2, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr2.Close()
	defer pw2.Close()
	if _, err := ReadFile("/dev/fd/"+strconv.Itoa(int(pr2.Fd())), Script); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a script from a pipe: %v", err)
	}
	if _, err := ReadFile("/dev/zero", Input); !errors.Is(err, ErrNotRegular) {
		t.Errorf("--input /dev/zero: %v", err)
	}
}

// TestWritableIn (issue 33, point 9): a fixture file about to be created
// or replaced may be nothing yet, a file, or a link that stays inside the
// root; a link out is ErrOutside and a link to nothing ErrDanglingLink,
// whichever way it points (an editor creating the file would create the
// link's target outside the repository).
func TestWritableIn(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "repo"), filepath.Join(base, "outside")
	for _, d := range []string{root, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(root, "file.yaml"), filepath.Join(outside, "there.yaml")} {
		if err := os.WriteFile(f, []byte("[]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"in.yaml":           "file.yaml",
		"out.yaml":          "../outside/there.yaml",
		"dangling-out.yaml": "../outside/missing.yaml",
		"dangling-abs.yaml": filepath.Join(outside, "missing.yaml"),
		"dangling-in.yaml":  "missing.yaml",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]error{
		"new.yaml": nil, "file.yaml": nil, "in.yaml": nil,
		"out.yaml":          ErrOutside,
		"dangling-out.yaml": ErrDanglingLink,
		"dangling-abs.yaml": ErrDanglingLink,
		"dangling-in.yaml":  ErrDanglingLink,
	} {
		err := WritableIn(root, filepath.Join(root, name), Fixtures)
		if (want == nil) != (err == nil) || want != nil && !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", name, err, want)
		}
	}
	err := WritableIn(root, filepath.Join(root, "dangling-out.yaml"), Fixtures)
	if want := "the path is a symbolic link to " + filepath.Join(outside, "missing.yaml") + ", which does not exist; remove the link, or create the file it names"; err == nil || err.Error() != want {
		t.Errorf("message %v, want %s", err, want)
	}
	if _, err := os.Stat(filepath.Join(outside, "missing.yaml")); err == nil {
		t.Error("the check created the link's target")
	}
}

// TestReadRegular: the four-call read takes a regular file of 1 to limit
// bytes, a link to one included, and leaves everything else (empty, too
// large, missing, a directory, a FIFO, a link with noFollow) to the
// general path, which reads or refuses it as before.
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	small := write("small.js", "var a = 1;\n")
	empty := write("empty.js", "")
	big := write("big.js", strings.Repeat("x", 100))
	link := filepath.Join(dir, "link.js")
	if err := os.Symlink(small, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{small, link} {
		if data, ok, _ := readRegular(p, 100, 0, Room{}); !ok || string(data) != "var a = 1;\n" {
			t.Errorf("readRegular(%s) = %q, %v; want the file", p, data, ok)
		}
	}
	if data, ok, _ := readRegular(big, 100, 0, Room{}); !ok || len(data) != 100 {
		t.Errorf("a file of exactly the limit: %d bytes, %v", len(data), ok)
	}
	for _, tc := range []struct {
		name  string
		path  string
		limit int64
		extra int
	}{
		{"empty", empty, 100, 0},
		{"too large", big, 99, 0},
		{"missing", filepath.Join(dir, "none.js"), 100, 0},
		{"directory", dir, 100, 0},
		{"FIFO", fifo, 100, 0},
		{"link with noFollow", link, 100, noFollow},
	} {
		if data, ok, _ := readRegular(tc.path, tc.limit, tc.extra, Room{}); ok {
			t.Errorf("%s: read %q; want it left to the general path", tc.name, data)
		}
	}
	// The general path after it: the same answers as before.
	if data, err := ReadFile(empty, Script); err != nil || len(data) != 0 {
		t.Errorf("empty script: %q, %v", data, err)
	}
	var fe *FileError
	if _, err := ReadFile(fifo, Script); !errors.As(err, &fe) || !errors.Is(err, ErrNotRegular) {
		t.Errorf("FIFO: %v; want not a regular file", err)
	}
}
