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

// TestRunPreviewGolden compares what the real `restls run` binary prints
// for the example script (mock mode), an uncaught error, syntax errors and
// a body that is not JSON with testdata/golden/run/<name>.txt; durations
// read "N ms" or DURATION, the repository root and the temporary directory
// $ROOT and $TMP.
func TestRunPreviewGolden(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	cfg := filepath.Join(root, "testdata/config")
	dir := t.TempDir()
	throws := writeFile(t, dir, "throws.js", "var a = 1;\napi.rest.v1.get(\"crm-custmers\", {}, {});\n")
	syntax := writeFile(t, dir, "syntax.js", "var x = foo(;\n\tif (x {\n  return 1;\n}\n")
	text := writeFile(t, dir, "text.js", "var r = api.rest.v1.get(\"crm-customers\", {pathParams: [\"42\"]}, {});\nreturn r.body;\n")
	textMock := writeFile(t, dir, "text.mock.yaml", "fixtures:\n  - serviceId: crm-customers\n    headers: {Content-Type: text/plain}\n    bodyText: '{\"id\":42,\"name\":\"Ann\"}'\n")
	// Answers held to a description (issue 27): a body that breaks the
	// schema (type, enum, required) and an undocumented status.
	contract := writeFile(t, dir, "contract.js", "var a = api.rest.v1.get(\"crm-customers\", {pathParams: [\"42\"]}, {});\n"+
		"try { api.rest.v1.get(\"crm-customers\", {pathParams: [\"43\"]}, {}); } catch (e) {}\nreturn a.body.name;\n")
	contractMock := writeFile(t, dir, "contract.mock.yaml", "fixtures:\n  - serviceId: crm-customers\n    path: \"42\"\n    body: {id: \"42\", name: Ann, tier: gold}\n"+
		"  - serviceId: crm-customers\n    path: \"43\"\n    status: 418\n    body: {error: teapot}\n")
	contractAPI := writeFile(t, dir, "customers.yaml", "openapi: 3.0.3\ninfo: {title: Customers, version: \"1\"}\npaths:\n  /{id}:\n    get:\n"+
		"      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]\n      responses:\n"+
		"        \"200\":\n          description: ok\n          content:\n            application/json:\n              schema:\n"+
		"                type: object\n                required: [id, name, email]\n                properties:\n"+
		"                  id: {type: integer}\n                  name: {type: string}\n                  tier: {type: string, enum: [bronze, silver]}\n"+
		"        \"404\": {description: none}\n")
	unmatched := writeFile(t, dir, "unmatched.js", "var r = api.rest.v1.get(\"crm-customers\", {pathParams: [\"42\"]}, {});\nreturn api.rest.v1.post(\"crm-customers\", {pathParams: [\"42\"]}, {}, {});\n")
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
		{"syntax-errors", []string{"run", "--config-root", cfg, syntax}, 1},
		{"text-body", []string{"run", "--config-root", cfg, "--mock", textMock, text}, 0},
		{"contract", []string{"run", "--config-root", cfg, "--mock", contractMock, "--openapi", "crm-customers=" + contractAPI, contract}, 0},
		// --mock-name: the fixtures are shown by that name, never by their path.
		{"mock-name", []string{"run", "--config-root", cfg, "--mock", filepath.Join(root, "testdata/mocks/customer-summary.yaml"), "--mock-name", "shared mocks", unmatched}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, rc := runBinary(t, tc.args...)
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
