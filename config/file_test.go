package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/internal/goldentest"
)

// loadWithin loads src and fails the test when that takes more than d: a
// FIFO or a device must give a diagnostic, never a hang.
func loadWithin(t *testing.T, d time.Duration, src Sources) *Snapshot {
	t.Helper()
	done := make(chan *Snapshot, 1)
	go func() { done <- Load(src) }()
	select {
	case s := <-done:
		return s
	case <-time.After(d):
		t.Fatalf("Load(%+v) still running after %v", src, d)
		return nil
	}
}

// diagText writes a registry's diagnostics one a line, dir replaced by ROOT.
func diagText(r *Registry, dir string) string {
	var b strings.Builder
	for _, d := range r.Diagnostics {
		fmt.Fprintf(&b, "%s %s %s\n", strings.ReplaceAll(d.Position.String(), dir, "ROOT"), d.Code, d.Message)
	}
	return b.String()
}

const okYAML = "scriptservice:\n  api:\n    - serviceId: crm\n      url: https://crm.example.com\n"

// TestExplicitDevZero: properties: ["/dev/zero"], as an editor setting
// or --properties sends it.
func TestExplicitDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	r := loadWithin(t, time.Second, Sources{Properties: []string{"/dev/zero"}}).For(ScriptService)
	d := findDiag(r, CodeNotRegularFile)
	if len(d) != 1 || d[0].File != "/dev/zero" || !strings.Contains(d[0].Message, "a character device") {
		t.Fatalf("got %+v", r.Diagnostics)
	}
}

// TestConfigFileTooLarge: a file over MaxFileSize is refused by its size,
// before it is read.
func TestConfigFileTooLarge(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "application.yml")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// A sparse 17 MiB file: its size is what counts.
	if err := f.Truncate(17 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r := loadWithin(t, time.Second, Sources{ConfigRoot: dir}).For(ScriptService)
	if d := findDiag(r, CodeFileTooLarge); len(d) != 1 {
		t.Fatalf("want one %s, got:\n%s", CodeFileTooLarge, diagText(r, dir))
	}
	goldentest.Check(t, filepath.Join("testdata", "golden", "files/too-large.golden"), diagText(r, dir))
}
