//go:build unix

// Unix only: a FIFO and /dev/zero as fixture files.

package restclient

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/restls/restls/input"
	"github.com/restls/restls/internal/goldentest"
)

// TestLoadMockRegularFilesOnly: fixtures are read as configuration is, so
// /dev/zero, a FIFO or a directory named with --mock is an error naming
// the file, at once.
func TestLoadMockRegularFilesOnly(t *testing.T) {
	t.Parallel()
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
			if !errors.Is(err, input.ErrNotRegular) {
				t.Errorf("LoadMock(%s): %v, want input.ErrNotRegular", file, err)
			}
			if want := "read mock fixtures " + file + ": "; err == nil || len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
				t.Errorf("LoadMock(%s): %v, want it to name the file", file, err)
			}
		case <-time.After(time.Second):
			t.Fatalf("LoadMock(%s) still running after 1s", file)
		}
	}
}

// TestLoadMockAsNamesTheFileAsTold: fixtures loaded under a name (a
// temporary copy of pasted text) are shown by that name, with the lines
// of the text, in X-Restls-Mock, no-fixture, parse and read errors; the
// file's path and directory appear nowhere.
func TestLoadMockAsNamesTheFileAsTold(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "server-tmp")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) string {
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return file
	}
	var out strings.Builder
	good := write("designer.mock.yaml", "# pasted\n- {serviceId: a, method: GET, path: x}\n\n- {serviceId: a, method: GET, path: y, query: {page: 1}}\n")
	m, err := LoadMockAs(good, PastedMocks)
	if err != nil {
		t.Fatal(err)
	}
	_, header, err := answer(t, m, "GET", []string{"x"}, nil)
	fmt.Fprintf(&out, "X-Restls-Mock: %s (%v)\n", header, err)
	_, _, err = answer(t, m, "GET", []string{"y"}, []QueryParam{{"page", "2"}})
	fmt.Fprintln(&out, err)
	broken := write("broken.mock.json", "[\n  {\"serviceId\": \"a\"},\n  {\"method\": \"GET\"}\n]")
	_, err = LoadMockAs(broken, PastedMocks)
	fmt.Fprintln(&out, err)
	for _, file := range []string{filepath.Join(dir, "gone.yaml"), dir} {
		_, err = LoadMockAs(file, PastedMocks)
		fmt.Fprintln(&out, err)
	}
	if strings.Contains(out.String(), dir) || strings.Contains(out.String(), "server-tmp") {
		t.Errorf("the temporary file shows:\n%s", out.String())
	}
	goldentest.Check(t, "testdata/golden/mock/named.golden", out.String())

	// Without a name, the path is the name, as with LoadMock.
	if m, err := LoadMockAs(good, ""); err != nil || m.File != good {
		t.Errorf("LoadMockAs(%s, \"\") = %v, %v; want the file named by its path", good, m, err)
	}
}
