package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/restls/restls/internal/goldentest"
)

var (
	runDuration = regexp.MustCompile(`\(\d+(?:\.\d+)? ms`)
	runTook     = regexp.MustCompile(`(?m)^(restls run .*, )[0-9.]+[a-zµ]+\)$`)
)

// TestRunPreviewGolden compares what `restls run` prints for the example
// script (mock mode) and for an uncaught error with
// testdata/golden/run/<name>.txt; durations read "N ms" or DURATION, the
// repository root and the temporary directory $ROOT and $TMP.
func TestRunPreviewGolden(t *testing.T) {
	root := repoRoot(t)
	cfg := filepath.Join(root, "testdata/config")
	dir := t.TempDir()
	throws := writeFile(t, dir, "throws.js", "var a = 1;\napi.rest.v1.get(\"crm-custmers\", {}, {});\n")
	for _, tc := range []struct {
		name string
		args []string
		rc   int
	}{
		{"example", []string{"run", "--config-root", cfg, "--mock", filepath.Join(root, "testdata/mocks/customer-summary.yaml"),
			filepath.Join(root, "testdata/scripts/customer-summary.js")}, 0},
		{"uncaught", []string{"run", "--config-root", cfg, throws}, 1},
		{"curl", []string{"run", "--curl", "--config-root", cfg, "--mock", filepath.Join(root, "testdata/mocks/customer-summary.yaml"),
			filepath.Join(root, "testdata/scripts/customer-summary.js")}, 0},
		{"curl-uncaught", []string{"run", "--curl", "--config-root", cfg, throws}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, rc := run(t, nil, tc.args...)
			if rc != tc.rc || errs != "" {
				t.Fatalf("rc %d, want %d; stderr %q\n%s", rc, tc.rc, errs, out)
			}
			out = strings.ReplaceAll(out, dir, "$TMP")
			out = strings.ReplaceAll(out, root, "$ROOT")
			out = runDuration.ReplaceAllString(out, "(N ms")
			out = runTook.ReplaceAllString(out, "${1}DURATION)")
			goldentest.Check(t, filepath.Join("testdata", "golden", "run", tc.name+".txt"), out)
		})
	}
}
