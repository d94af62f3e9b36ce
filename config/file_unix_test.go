//go:build unix

// Unix only: the paths under test are a symbolic link to /dev/zero, a FIFO and a Unix socket.

package config

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/restls/restls/internal/goldentest"
)

// TestConfigFileNotRegular is the repro of issue #13 finding 6: a
// symbolic link to /dev/zero, a FIFO, a directory or a socket at a path
// restls reads is a diagnostic naming the file and what it is, given
// within a second, and the other sources still load.
func TestConfigFileNotRegular(t *testing.T) {
	cases := []struct {
		name string
		make func(t *testing.T, path string)
	}{
		{"devzero", func(t *testing.T, path string) {
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
		}},
		{"fifo", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Skip("no FIFOs here:", err)
			}
		}},
		{"dir", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"socket", func(t *testing.T, path string) {
			l, err := net.Listen("unix", path)
			if err != nil {
				t.Skip("no Unix sockets here:", err)
			}
			t.Cleanup(func() { l.Close() })
		}},
	}
	var all strings.Builder
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// A short root: a Unix socket path is limited to about 100 bytes.
			dir, err := os.MkdirTemp("", "cfg")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			c.make(t, filepath.Join(dir, "application.yml"))
			if err := os.WriteFile(filepath.Join(dir, "application.properties"), []byte("scriptservice.api[0].serviceId=crm\nscriptservice.api[0].url=https://crm.example.com\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r := loadWithin(t, time.Second, Sources{ConfigRoot: dir}).For(ScriptService)
			if d := findDiag(r, CodeNotRegularFile); len(d) != 1 || d[0].File != filepath.Join(dir, "application.yml") {
				t.Fatalf("want one %s diagnostic on application.yml, got:\n%s", CodeNotRegularFile, diagText(r, dir))
			}
			if _, ok := r.Service("crm"); !ok {
				t.Errorf("the regular file beside it was not read:\n%s", diagText(r, dir))
			}
			fmt.Fprintf(&all, "%s:\n%s", c.name, diagText(r, dir))
		})
	}
	if !t.Failed() && len(cases) == strings.Count(all.String(), ":\n") {
		goldentest.Check(t, filepath.Join("testdata", "golden", "files/not-regular.golden"), all.String())
	}
}
