package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/restls/restls/input"
	"github.com/restls/restls/internal/goldentest"
)

// TestWalksTooDeep: every command that walks a project (restls check for
// scripts, restls test for test files, restls fixtures schema for fixture
// files) stops past input.MaxWalkDepth directories, with exit 2 and a
// message naming the bound, the root and what to do (each package's
// TestFindIsBounded or walk test has the entries bound too).
func TestWalksTooDeep(t *testing.T) {
	t.Parallel()
	config := filepath.Join(repoRoot(t), "testdata/config")
	for _, tc := range []struct {
		name, file, text string // file: what lies past the bound ("" none)
		args             []string
	}{
		{"check", "a.js", "return 1;\n", []string{"check", "--config-root", config}},
		{"test", "a.test.yaml", "script: a.js\nresult: 1\n", []string{"test", "--config-root", config}},
		{"fixtures-schema", "", "", []string{"fixtures", "schema", "crm"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			deep := dir
			for i := range input.MaxWalkDepth + 1 {
				deep = filepath.Join(deep, fmt.Sprintf("d%d", i))
			}
			if err := os.MkdirAll(deep, 0o755); err != nil {
				t.Fatal(err)
			}
			if tc.file != "" {
				if err := os.WriteFile(filepath.Join(deep, tc.file), []byte(tc.text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, rc := runIn(t, dir, tc.args...)
			if rc != 2 {
				t.Errorf("exit %d, want 2", rc)
			}
			goldentest.Check(t, "testdata/golden/cli/"+tc.name+"-walk-too-deep.txt", got)
		})
	}
}
