package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/internal/goldentest"
)

// TestFixturesGenerate (issue 27): restls fixtures generate writes a
// fixture for each call of a script into NAME.mock.yaml, created, from
// the description's example or a value built from the schema; a call a
// fixture already answers (one it just added too) gets none, a call no
// operation matches is named on stderr; the file replays with --mock;
// a second run adds nothing.
func TestFixturesGenerate(t *testing.T) {
	t.Parallel()
	dir := shopProject(t, "")
	writeFile(t, dir, "apis/shop.json", strings.Replace(shopDescription, `"404":{"description":"none"}}}}`,
		`"404":{"description":"none"}}}},"/orders/{id}/notes":{"post":{"responses":{"201":{"description":"made","content":{"application/json":{"schema":{"type":"object","required":["id","at"],"properties":{"id":{"type":"integer","minimum":1},"at":{"type":"string","format":"date-time"}}}}}}}}}`, 1))
	writeFile(t, dir, "orders.js", "var id = context.input.id;\n"+
		"var a = api.rest.v1.get(\"shop\", {pathParams: [\"orders\", id]}, {});\n"+
		"var b = api.rest.v1.get(\"shop\", {pathParams: [\"orders\", \"1\"]}, {});\n"+
		"var n = api.rest.v1.post(\"shop\", {pathParams: [\"orders\", id, \"notes\"]}, {text: \"hi\"}, {});\n"+
		"try { api.rest.v1.get(\"shop\", {pathParams: [\"carts\", \"1\"]}, {}); } catch (e) {}\n"+
		"return [a.body.items[0].qty, b.body.id, n.body.id];\n")
	out, errs, rc := runInDir(t, dir, "fixtures", "generate", "orders.js")
	if rc != 1 || errs != "orders.js:5: no operation of serviceId shop's description matches GET /carts/1\n" {
		t.Errorf("exit %d, stderr %q; want 1 and the call to carts", rc, errs)
	}
	if want := "orders.js:2: GET shop orders/*: status 200 from GET /orders/{id}\n" +
		"orders.js:4: POST shop orders/*/notes: status 201 from POST /orders/{id}/notes\n" +
		"orders.mock.yaml: 2 fixtures added\n"; out != want {
		t.Errorf("stdout:\n%s\nwant\n%s", out, want)
	}
	data, err := os.ReadFile(filepath.Join(dir, "orders.mock.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	goldentest.Check(t, filepath.Join("testdata", "golden", "fixtures", "orders.mock.yaml"), string(data))

	writeFile(t, dir, "in.json", `{"id": "5"}`)
	if out, errs, rc := runInDir(t, dir, "run", "--json", "--input", "in.json", "--mock", "orders.mock.yaml", "orders.js"); rc != 0 || !strings.Contains(out, `"result": [`) {
		t.Errorf("replay: exit %d\n%s%s", rc, out, errs)
	}
	if out, _, _ := runInDir(t, dir, "fixtures", "generate", "orders.js"); !strings.HasSuffix(out, "orders.mock.yaml: 0 fixtures added\n") {
		t.Errorf("second run:\n%s", out)
	}
	if again, _ := os.ReadFile(filepath.Join(dir, "orders.mock.yaml")); string(again) != string(data) {
		t.Errorf("the second run changed the file:\n%s", again)
	}
}

// TestFixturesGenerateEmptyPath (issue 33, point 20): a call with no
// pathParams was reported with "." for its path; the report says what
// the fixture answers instead.
func TestFixturesGenerateEmptyPath(t *testing.T) {
	t.Parallel()
	dir := shopProject(t, "")
	writeFile(t, dir, "apis/shop.json", `{"openapi":"3.1.0","info":{"title":"Shop","version":"1"},"paths":{"/":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"example":{"up":true}}}}}}}}}`)
	writeFile(t, dir, "orders.js", "return api.rest.v1.get(\"shop\", {}, {}).body.up;\n")
	out, errs, rc := runInDir(t, dir, "fixtures", "generate", "orders.js")
	if want := "orders.js:1: GET shop (no pathParams: the service's address): status 200 from GET /\n" +
		"orders.mock.yaml: 1 fixture added\n"; rc != 0 || out != want {
		t.Errorf("exit %d, stdout:\n%s\nwant\n%s\nstderr:\n%s", rc, out, want, errs)
	}
}

// TestFixturesGenerateAllOfBudget (issue 33, point 4): a description
// whose answer is an allOf of 10,000 parts, each requiring a property
// that is the allOf again, held restls fixtures generate for minutes (a
// quadratic walk per object, at every level). It ends within the
// generator's budget, writes the fixture with what fits, and says what
// it left out: on stderr, and above the fixture in the file.
func TestFixturesGenerateAllOfBudget(t *testing.T) {
	t.Parallel()
	dir := shopProject(t, "")
	var d strings.Builder
	d.WriteString(`{"openapi":"3.1.0","info":{"title":"Shop","version":"1"},"paths":{"/orders/{id}":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Big"}}}}}}}},"components":{"schemas":{"Big":{"allOf":[`)
	for i := range 10_000 {
		if i > 0 {
			d.WriteByte(',')
		}
		fmt.Fprintf(&d, `{"type":"object","required":["p%d"],"properties":{"p%d":{"$ref":"#/components/schemas/Big"}}}`, i, i)
	}
	d.WriteString(`]}}}}`)
	writeFile(t, dir, "apis/shop.json", d.String())
	writeFile(t, dir, "orders.js", "return api.rest.v1.get(\"shop\", {pathParams: [\"orders\", \"1\"]}, {}).body;\n")
	cmd := restlsCommand(t, "fixtures", "generate", "orders.js")
	cmd.Dir = dir
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	runWithin(t, cmd, 30*time.Second, func() string { return out.String() + errb.String() })
	t.Logf("took %v", time.Since(start))
	if cmd.ProcessState.ExitCode() != 0 || !strings.HasSuffix(out.String(), "orders.mock.yaml: 1 fixture added\n") {
		t.Errorf("exit %d, stdout:\n%s", cmd.ProcessState.ExitCode(), out.String())
	}
	cut := "orders.js:1: GET shop: the body is cut (the schema takes more than 100000 steps to build): "
	if !strings.HasPrefix(errb.String(), cut) || !strings.Contains(errb.String(), "left out, the first at body.p0") {
		t.Errorf("stderr %q, want it to say what was left out", errb.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, "orders.mock.yaml"))
	if err != nil || !strings.Contains(string(data), "\n# the body is cut (the schema takes more than 100000 steps") {
		t.Errorf("the file does not say the body is cut (%v):\n%.600s", err, data)
	}
}

func runInDir(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	if args[0] == "test" {
		return restlsTestIn(t, dir, args[1:]...)
	}
	cmd := restlsCommand(t, args...)
	cmd.Dir = dir
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	rc := 0
	if err != nil {
		rc = cmd.ProcessState.ExitCode()
	}
	return out.String(), errb.String(), rc
}
