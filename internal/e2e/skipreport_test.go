package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/internal/restlstest"
)

// envSkipLog names the file where tests that need a tool this machine
// lacks record that they skipped; `make unit` sets it, and `make test`
// prints the file at its end (the skipped-report target), so a pass without
// Neovim or Emacs says so rather than passing silently.
const envSkipLog = "RESTLS_SKIP_LOG"

// skipMissingTool skips t because tool is not installed, or fails it under
// CI=true, where .ci/run installs every tool. install says how to get it.
func skipMissingTool(t *testing.T, tool, install string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not installed but CI=true: .ci/run must install it (%s)", tool, install)
	}
	reason := fmt.Sprintf("%s is not installed (%s); CI installs it and runs this test", tool, install)
	if log := os.Getenv(envSkipLog); log != "" {
		f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatalf("%s: %v", envSkipLog, err)
		}
		// One short line per write: O_APPEND keeps lines of packages
		// testing at once whole.
		_, err = fmt.Fprintf(f, "%s: %s\n", t.Name(), reason)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatalf("%s: %v", envSkipLog, err)
		}
	}
	t.Skip(reason)
}

// TestSkippedEditorTestsReported runs the editor tests with no tool on
// PATH, as on a machine without Neovim and Emacs, and checks that `make
// test`'s last step (make skipped-report) names each of them and why.
func TestSkippedEditorTestsReported(t *testing.T) {
	t.Parallel()
	makeBin, err := exec.LookPath("make")
	if err != nil {
		t.Fatal("make is not installed: README.md's make test needs it")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "skipped.txt")
	editorTests := []string{"TestNeovimEndToEnd", "TestNeovimDocsSnippet", "TestNeovimDocsSnippetMissingBinary", "TestEmacsEglotDocsSnippet"}
	child := exec.Command(exe, "-test.run", "^("+strings.Join(editorTests, "|")+")$", "-test.count=1")
	// The child finds no go on PATH to build restls with: it is given
	// the one built here.
	child.Env = append(withoutEnv(os.Environ(), "PATH", "CI", envSkipLog), "PATH="+t.TempDir(), envSkipLog+"="+log,
		restlstest.EnvBinary+"="+restlstest.Binary(t))
	if out, err := child.CombinedOutput(); err != nil {
		t.Fatalf("the editor tests without their tools: %v\n%s", err, out)
	}
	report := exec.Command(makeBin, "-s", "--no-print-directory", "skipped-report", "SKIP_LOG="+log)
	report.Dir = repoRoot(t)
	out, err := report.CombinedOutput()
	if err != nil {
		t.Fatalf("make skipped-report: %v\n%s", err, out)
	}
	text := string(out)
	for _, name := range editorTests {
		if !strings.Contains(text, name+": ") {
			t.Errorf("make skipped-report does not name %s:\n%s", name, text)
		}
	}
	for _, why := range []string{"nvim is not installed (apt-get install neovim)", "emacs is not installed (apt-get install emacs-nox elpa-eglot)"} {
		if !strings.Contains(text, why) {
			t.Errorf("make skipped-report does not say %q:\n%s", why, text)
		}
	}

	// Nothing skipped: the report says every editor test ran.
	empty := filepath.Join(t.TempDir(), "none.txt")
	report = exec.Command(makeBin, "-s", "--no-print-directory", "skipped-report", "SKIP_LOG="+empty)
	report.Dir = repoRoot(t)
	out, err = report.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "every editor test ran") {
		t.Errorf("make skipped-report with nothing skipped: %v\n%s", err, out)
	}
}

// withoutEnv returns env without the variables named.
func withoutEnv(env []string, names ...string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, n := range names {
			drop = drop || k == n
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}
