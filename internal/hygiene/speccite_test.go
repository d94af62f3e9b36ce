package hygiene_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/restls/restls/internal/restlstest"
)

// specCitation matches a reference to the platform's description of
// api.rest.v1 by its section numbers or its file, which a clone of restls
// does not have: "spec 5.1", "specification 8", "(spec §7)", "the spec's",
// its path. docs/api.md is restls's own page of the contract, and every
// message and page points into its sections instead.
var specCitation = regexp.MustCompile(`(?i)\bspec(?:ification)?\s*§?\s*\d|shared/spec|api-rest-v1\.md|beside this repository|\bthe spec\b`)

// TestNoSpecCitations: no file of the repository (code, messages, docs,
// schemas, examples, golden files) cites the platform's description
// instead of docs/api.md.
func TestNoSpecCitations(t *testing.T) {
	t.Parallel()
	root := restlstest.Root(t)
	out, err := exec.Command("git", "-C", root, "ls-files", "-co", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	checked := 0
	for _, name := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if name == "internal/hygiene/speccite_test.go" {
			continue // the pattern and its own examples
		}
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil || bytes.IndexByte(data, 0) >= 0 {
			continue // deleted in the work tree, or binary
		}
		checked++
		for i, line := range strings.Split(string(data), "\n") {
			if m := specCitation.FindString(line); m != "" {
				t.Errorf("%s:%d: cites %q: point into docs/api.md's sections instead (%s)", name, i+1, m, strings.TrimSpace(line))
			}
		}
	}
	if checked < 100 {
		t.Fatalf("checked %d files: git ls-files did not list the repository", checked)
	}
	for _, s := range []string{"spec 5.1", "(spec 8)", "Spec 7:", "specification 2.4", "shared/spec/x", "the spec's table"} {
		if !specCitation.MatchString(s) {
			t.Errorf("the pattern misses %q", s)
		}
	}
	for _, s := range []string{"the LSP specification asks", "docs/api.md#timeouts", "specs", "inspect 5"} {
		if specCitation.MatchString(s) {
			t.Errorf("the pattern matches %q", s)
		}
	}
}
