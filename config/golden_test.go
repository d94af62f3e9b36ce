package config

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// The -update flag rewrites the golden files in testdata/golden. It is
// defined here unless a linked package (a shared golden helper) defines
// it already, so that both can live in one test binary.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files in testdata/golden")
	}
}

// updating reports whether golden files are rewritten: -update, or
// RESTLS_UPDATE_GOLDEN set.
func updating() bool {
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		return true
	}
	return os.Getenv("RESTLS_UPDATE_GOLDEN") != ""
}

// golden compares got with testdata/golden/name, or rewrites it when
// updating.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
