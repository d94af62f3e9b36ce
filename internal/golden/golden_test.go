package golden

import (
	"fmt"
	"os"
	"path/filepath"
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
