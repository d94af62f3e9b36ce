package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/internal/goldentest"
	"github.com/restls/restls/openapi"
)

// TestFixturesSchema (issue 38): restls fixtures schema writes the
// answers recorded for a serviceId in the fixture files under the
// directory as an OpenAPI fragment: answers of one call merged across
// files (optional keys, a oneOf of types, an example), "*" segments as
// path parameters, other statuses listed. The fragment loads as a
// description, and attached it makes restls check warn where the
// recordings alone only informed.
func TestFixturesSchema(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, d := range []string{"config", "scripts/deep", ".hidden"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, dir, "config/application.yml", "scriptservice:\n  api:\n    - serviceId: crm\n      url: https://crm.example.test/api\n")
	writeFile(t, dir, "restls.yaml", "configRoot: config\n")
	writeFile(t, dir, "scripts/a.mock.yaml", "fixtures:\n"+
		"  - serviceId: crm\n    method: GET\n    path: \"customers/*\"\n    body: {id: 42, name: Ann, tags: [a, b], address: {city: Bern}}\n"+
		"  - serviceId: crm\n    method: GET\n    path: \"customers/*\"\n    status: 404\n    bodyText: '{\"error\":\"none\"}'\n"+
		"  - serviceId: other\n    method: GET\n    path: x\n    body: {z: 1}\n")
	writeFile(t, dir, "scripts/deep/b.mock.json", `{"fixtures": [`+
		`{"serviceId": "crm", "method": "GET", "path": "customers/*", "body": {"id": "43", "name": null, "vip": true}},`+
		`{"serviceId": "crm", "method": "POST", "path": "customers", "status": 201, "body": {"id": 44}}]}`)
	writeFile(t, dir, ".hidden/c.mock.yaml", "fixtures:\n  - serviceId: crm\n    path: hidden\n    body: {h: 1}\n")
	writeFile(t, dir, "scripts/main.js", "var r = api.rest.v1.get(\"crm\", {pathParams: [\"customers\", \"1\"]}, {});\nvar c = r.body;\nreturn c.nmae;\n")

	out, errs, rc := runInDir(t, dir, "fixtures", "schema", "crm")
	if rc != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", rc, errs)
	}
	goldentest.Check(t, filepath.Join("testdata", "golden", "fixtures", "crm.schema.yaml"), out)
	idx, err := openapi.Build("crm.yaml", []byte(out))
	if err != nil || len(idx.Ops) != 2 || len(idx.Problems) != 0 {
		t.Fatalf("the fragment does not load as a description: %v, %+v", err, idx)
	}

	// Recorded answers only: an information. Attached: a warning.
	check, _, _ := runInDir(t, dir, "check", "scripts/main.js")
	if !strings.Contains(check, "info: ") || !strings.Contains(check, "[openapi-unknown-read]") || strings.Contains(check, "warning: ") {
		t.Errorf("check with recorded answers: want the read as an information\n%s", check)
	}
	writeFile(t, dir, "crm.yaml", out)
	out, _, rc = runInDir(t, dir, "check", "--openapi", "crm=crm.yaml", "scripts/main.js")
	if !strings.Contains(out, "warning: ") || !strings.Contains(out, "[openapi-unknown-read]") {
		t.Errorf("check with the fragment attached: exit %d\n%s", rc, out)
	}

	if _, errs, rc := runInDir(t, dir, "fixtures", "schema", "nobody"); rc != 1 || !strings.Contains(errs, `no answer of serviceId "nobody"`) {
		t.Errorf("unknown serviceId: exit %d, stderr %q", rc, errs)
	}
	if _, errs, rc := runInDir(t, dir, "fixtures", "schema"); rc != 2 || !strings.Contains(errs, "name the serviceId") {
		t.Errorf("no serviceId: exit %d, stderr %q", rc, errs)
	}
}
