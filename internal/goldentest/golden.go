package goldentest

import (
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// EnvUpdate is the environment variable that, set to a non-empty value,
// rewrites golden files like -update.
const EnvUpdate = "RESTLS_UPDATE_GOLDEN"

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden with the current output (also: "+EnvUpdate+"=1)")

// Updating reports whether golden files are rewritten rather than compared.
func Updating() bool { return *update || os.Getenv(EnvUpdate) != "" }

// Check compares got with the golden file at path, relative to the test's
// package directory (by convention testdata/golden/<area>/<name>.golden).
// On a mismatch it fails the test with a line diff; when Updating it
// writes got to the file instead.
func Check(t testing.TB, path, got string) {
	t.Helper()
	check(t, path, got, Updating())
}

func check(t testing.TB, path, got string, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("golden: %v", err)
		}
		old, err := os.ReadFile(path)
		if err == nil && string(old) == got {
			return
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatalf("golden: %v", err)
		}
		t.Logf("golden: wrote %s", path)
		return
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Errorf("golden file %s does not exist; run the test with -update to create it. The output is:\n%s", path, got)
		return
	}
	if err != nil {
		t.Fatalf("golden: %v", err)
	}
	if string(want) == got {
		return
	}
	t.Errorf("output differs from %s (-golden +got):\n%s\nIf the new output is right, run the test with -update and review the diff.",
		path, Diff(string(want), got))
}

// Diff is a readable line diff of two texts: lines only in want start
// with "-", lines only in got with "+".
func Diff(want, got string) string {
	return cmp.Diff(want, got)
}
