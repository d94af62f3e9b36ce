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

// mayCite is false for a line specCitation cannot match: an ASCII line
// (whose case folds as ASCII does) holding none of the literal parts every
// match has. The pattern, case-insensitive with five alternatives, ran
// over every line of the repository (8 MB) and was most of the test's CPU.
func mayCite(line string) bool {
	for i := 0; i < len(line); i++ {
		if line[i] >= 0x80 {
			return true // (?i) folds some non-ASCII letters to s or k
		}
	}
	lower := strings.ToLower(line)
	return strings.Contains(lower, "spec") || strings.Contains(lower, "api-rest-v1.md") || strings.Contains(lower, "beside this repository")
}

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
			if !mayCite(line) {
				continue
			}
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
	// What the pattern matches, the filter lets through.
	for _, s := range []string{"spec 5.1", "SPEC 5", "Shared/Spec", "API-REST-V1.MD", "Beside This Repository", "ſhared/ſpec", "api-reſt-v1.md"} {
		if specCitation.MatchString(s) && !mayCite(s) {
			t.Errorf("mayCite skips %q, which the pattern matches", s)
		}
	}
}
