package hygiene_test

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/internal/restlstest"
)

// TestMakeBuildStamps: `make build` (what README's quick start and
// `make demo` run) gives a binary that names its commit and a version like
// git describe's, not "dev (commit unknown)".
func TestMakeBuildStamps(t *testing.T) {
	// Independent of every other test (its own files and processes):
	// it runs beside the other slow ones (make test's time, issue 33).
	t.Parallel()
	if testing.Short() {
		t.Skip("builds restls with make")
	}
	root := restlstest.Root(t)
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse HEAD: %v (the test needs the git checkout make build stamps from)", err)
	}
	bin := filepath.Join(t.TempDir(), "restls")
	mk := exec.Command("make", "-s", "--no-print-directory", "build", "BIN="+bin)
	mk.Dir = root
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatalf("restls version --json: %v", err)
	}
	var b buildInfo
	if err := json.Unmarshal(out, &b); err != nil {
		t.Fatal(err)
	}
	commit := strings.TrimSpace(string(head))
	if b.Commit != commit && b.Commit != commit+"-dirty" {
		t.Errorf("make build's binary says commit %q, want %s (with -dirty for uncommitted changes)", b.Commit, commit)
	}
	if want := stampedVersion(t, root, commit); b.Version != want {
		t.Errorf("make build's binary says version %q, want %q", b.Version, want)
	}
}

// buildInfo is what `restls version --json` prints (cmd/restls/version.go).
type buildInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	GoVersion string `json:"goVersion"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
}

// text is what `restls version` prints for b: its documented line.
func (b buildInfo) text() string {
	return fmt.Sprintf("restls %s (commit %s, %s, %s/%s)\n", b.Version, b.Commit, b.GoVersion, b.OS, b.Arch)
}

// stampedVersion is the version make build and make dist stamp on commit,
// checked out at root: git describe's with a v* tag, else the release
// version's development pre-release for that commit.
func stampedVersion(t *testing.T, root, commit string) string {
	t.Helper()
	if tag, err := exec.Command("git", "-C", root, "describe", "--tags", "--match", "v*", "--dirty").Output(); err == nil {
		return strings.TrimSpace(string(tag)) // a release tag exists
	}
	return releaseVersion(t) + "-dev." + commit[:12]
}
