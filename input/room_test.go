package input

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestReadFileRoom: ReadFileRoom reads what ReadFile reads, the same
// bytes or the same error, whatever room is asked around them: a script,
// a link to one, an empty, a too large, a missing, a non-text file, a
// directory, a FIFO.
func TestReadFileRoom(t *testing.T) {
	dir := t.TempDir()
	write := func(in, name string, data []byte) string {
		p := filepath.Join(in, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	paths := []string{
		write(dir, "small.js", []byte("var a = 1;\n")),
		write(dir, "empty.js", nil),
		write(dir, "big.js", bytes.Repeat([]byte("x"), int(Ignore.Limit())+1)),
		write(dir, "nul.js", []byte("var a\x00 = 1;\n")),
		filepath.Join(dir, "missing.js"),
		filepath.Join(dir, "sub"),
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		link := filepath.Join(dir, "link.js")
		if err := os.Symlink(paths[0], link); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, link)
		fifo := filepath.Join(dir, "fifo")
		if err := mkfifo(fifo); err == nil {
			paths = append(paths, fifo)
		}
	}
	for _, k := range []Kind{Script, Ignore} {
		for _, room := range []Room{{}, {Before: 12, After: 3}} {
			for _, p := range paths {
				name := fmt.Sprintf("%s as %s, room %+v", filepath.Base(p), k, room)
				want, wantErr := ReadFile(p, k)
				got, err := ReadFileRoom(p, k, room)
				if fmt.Sprint(err) != fmt.Sprint(wantErr) || fmt.Sprintf("%T", err) != fmt.Sprintf("%T", wantErr) {
					t.Errorf("%s: error %v (%T), want %v (%T)", name, err, err, wantErr, wantErr)
					continue
				}
				if err != nil {
					continue
				}
				if len(got) != room.Before+len(want)+room.After {
					t.Errorf("%s: %d bytes, want %d and the room", name, len(got), len(want))
					continue
				}
				if !bytes.Equal(got[room.Before:len(got)-room.After], want) {
					t.Errorf("%s: %q, want %q", name, got[room.Before:len(got)-room.After], want)
				}
				if strings.Trim(string(got[:room.Before])+string(got[len(got)-room.After:]), "\x00") != "" {
					t.Errorf("%s: the room holds %q", name, string(got[:room.Before])+string(got[len(got)-room.After:]))
				}
			}
		}
	}
}

// TestReadFileMissing: a missing file is the error os.Open gives, as
// callers test it.
func TestReadFileMissing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "none.js")
	_, err := ReadFile(p, Script)
	_, want := os.Open(p)
	if fmt.Sprint(err) != fmt.Sprint(want) || !os.IsNotExist(err) || fmt.Sprintf("%T", err) != "*fs.PathError" {
		t.Errorf("ReadFile of a missing file: %v (%T), want %v", err, err, want)
	}
}
