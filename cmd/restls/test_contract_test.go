package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/internal/goldentest"
)

// shopDescription is a small description: GET /orders/{id} answers 200
// with an order (id, items of sku and integer qty) or 404.
const shopDescription = `{"openapi":"3.1.0","info":{"title":"Shop","version":"1"},"paths":{"/orders/{id}":{"get":{
	"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],
	"responses":{"200":{"description":"ok","content":{"application/json":{"example":{"id":7,"items":[{"sku":"ab-1","qty":2}]},"schema":{"type":"object","required":["id","items"],"properties":{
		"id":{"type":"integer"},"items":{"type":"array","items":{"type":"object","required":["sku"],"properties":{"sku":{"type":"string"},"qty":{"type":"integer","minimum":1}}}}}}}}},
	"404":{"description":"none"}}}}}}`

// shopProject writes a project whose restls.yaml attaches shop's
// description, plus extra keys, and returns its directory.
func shopProject(t *testing.T, extra string) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"config", "apis"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, dir, "config/application.yml", "scriptservice:\n  api:\n    - serviceId: shop\n      url: https://shop.example.com/api\n")
	writeFile(t, dir, "restls.yaml", "configRoot: config\nopenapi:\n  shop: apis/shop.json\n"+extra)
	writeFile(t, dir, "apis/shop.json", shopDescription)
	writeFile(t, dir, "orders.js", "var a = api.rest.v1.get(\"shop\", {pathParams: [\"orders\", \"1\"]}, {});\n"+
		"var n = 0;\ntry { api.rest.v1.get(\"shop\", {pathParams: [\"orders\", \"2\"]}, {}); } catch (e) { n = e.status.code; }\nreturn [a.body.id, n];\n")
	return dir
}

// ordersTest is a test file whose fixtures break the description: qty
// is a string and 0 on the first answer, and 409 is not documented.
const ordersTest = `script: orders.js
%s
fixtures:
  - serviceId: shop
    method: GET
    path: orders/1
    body: {id: 1, items: [{sku: a, qty: "two"}, {qty: 0}]}
  - serviceId: shop
    path: orders/2
    status: 409
    body: {error: busy}
result: [1, 409]
`

func restlsTestIn(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := restlsCommand(t, append([]string{"test"}, args...)...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), 0
}

// TestTestValidateResponses (issue 27): fixture answers that break the
// description fail restls test with the JSON path and the rule, under
// --validate-responses or validateResponses in the project file; a test
// file's validateResponses wins over both. Without any, the test passes.
func TestTestValidateResponses(t *testing.T) {
	t.Parallel()
	dir := shopProject(t, "")
	writeFile(t, dir, "orders.test.yaml", strings.Replace(ordersTest, "%s\n", "", 1))
	if out, errs, rc := restlsTestIn(t, dir, "."); rc != 0 {
		t.Fatalf("without validation: exit %d, want 0\n%s%s", rc, out, errs)
	}
	out, errs, rc := restlsTestIn(t, dir, "--validate-responses", ".")
	if rc != 1 || errs != "" {
		t.Errorf("--validate-responses: exit %d, stderr %q; want 1 and nothing", rc, errs)
	}
	goldentest.Check(t, filepath.Join("testdata", "golden", "test", "validate-responses.txt"), out)

	// --update cannot mend it: the fixture or the description must change.
	if _, _, rc := restlsTestIn(t, dir, "--validate-responses", "--update", "."); rc != 1 {
		t.Errorf("--update: exit %d, want 1", rc)
	}

	// The project file turns it on; the test file turns it off again.
	dir = shopProject(t, "validateResponses: true\n")
	writeFile(t, dir, "orders.test.yaml", strings.Replace(ordersTest, "%s\n", "", 1))
	if out2, _, rc := restlsTestIn(t, dir, "."); rc != 1 || out2 != out {
		t.Errorf("validateResponses in restls.yaml: exit %d, want 1 and the same failure\n%s", rc, out2)
	}
	if _, _, rc := restlsTestIn(t, dir, "--validate-responses=false", "."); rc != 0 {
		t.Errorf("--validate-responses=false over the project file: exit %d, want 0", rc)
	}
	writeFile(t, dir, "orders.test.yaml", strings.Replace(ordersTest, "%s", "validateResponses: false", 1))
	if out, _, rc := restlsTestIn(t, dir, "--validate-responses", "."); rc != 0 {
		t.Errorf("validateResponses: false in the test file: exit %d, want 0\n%s", rc, out)
	}
}
