package goldentest

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed bool
	msg    string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.msg += fmt.Sprintf(format, args...)
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }
func (r *recorder) Logf(format string, args ...any)   {}

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "golden", "a.golden")

	// Missing: fails and says how to create it.
	r := &recorder{TB: t}
	check(r, path, "one\ntwo\n", false)
	if !r.failed || !strings.Contains(r.msg, "-update") {
		t.Fatalf("missing golden: failed %v, %q", r.failed, r.msg)
	}

	// -update writes it, creating the directory.
	r = &recorder{TB: t}
	check(r, path, "one\ntwo\n", true)
	if data, err := os.ReadFile(path); r.failed || err != nil || string(data) != "one\ntwo\n" {
		t.Fatalf("update: failed %v %q, file %q %v", r.failed, r.msg, data, err)
	}

	// Same output: passes.
	r = &recorder{TB: t}
	check(r, path, "one\ntwo\n", false)
	if r.failed {
		t.Fatalf("equal output failed: %s", r.msg)
	}

	// A changed word: fails with a line diff naming the file.
	r = &recorder{TB: t}
	check(r, path, "one\nthree\n", false)
	if !r.failed || !strings.Contains(r.msg, path) || !strings.Contains(r.msg, "two") || !strings.Contains(r.msg, "three") {
		t.Fatalf("changed output: failed %v, message:\n%s", r.failed, r.msg)
	}
	// A trailing newline counts.
	r = &recorder{TB: t}
	check(r, path, "one\ntwo", false)
	if !r.failed {
		t.Fatal("a lost trailing newline passed")
	}
}

func TestEnvironmentUpdates(t *testing.T) {
	t.Setenv(EnvUpdate, "")
	if Updating() != *update {
		t.Fatal("an empty variable must not update")
	}
	t.Setenv(EnvUpdate, "1")
	if !Updating() {
		t.Fatalf("%s=1 must update", EnvUpdate)
	}
}

// TestEveryTestPackageDefinesUpdate keeps `go test ./... -update` working:
// a test binary that does not link golden rejects -update.
func TestEveryTestPackageDefinesUpdate(t *testing.T) {
	const self = "github.com/restls/restls/internal/goldentest"
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found: %v", err)
	}
	imports := map[string]bool{} // package directory -> a test file imports golden
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if p != root {
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
			return nil
		}
		if !strings.HasSuffix(name, "_test.go") {
			return nil
		}
		dir := filepath.Dir(p)
		af, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		imports[dir] = imports[dir] || false
		for _, imp := range af.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == self {
				imports[dir] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	here, _ := filepath.Abs(".")
	if len(imports) < 2 {
		t.Fatalf("found only %d test packages under %s", len(imports), root)
	}
	for dir, ok := range imports {
		if !ok && dir != here {
			rel, _ := filepath.Rel(root, dir)
			t.Errorf("%s: no test file imports %s, so `go test ./... -update` fails there; add a blank import (see internal/goldentest/doc.go)", rel, self)
		}
	}
}
