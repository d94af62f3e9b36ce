package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/hints"
	scriptrt "github.com/restls/restls/runtime"
	"github.com/restls/restls/runtime/restclient"
)

// TestLiteralChecksMatchTheRuntime holds the editor and the dry run to the
// same answer on literal arguments: a call the dry run rejects with a
// TypeError gets an error diagnostic first, and a call the editor shows
// clean of errors runs. hints and runtime cannot import each other, so the
// check lives here, where both are wired.
func TestLiteralChecksMatchTheRuntime(t *testing.T) {
	t.Parallel()
	reg := config.Load(config.Sources{ConfigRoot: filepath.Join(repoRoot(t), "testdata/config")}).For(config.ScriptService)
	mock, err := restclient.ParseMock("answers.yaml", []byte("fixtures:\n  - serviceId: crm-customers\n    body: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	calls := []string{
		// Accepted by both.
		`api.rest.v1.get("crm-customers", {}, {})`,
		`api.rest.v1.get("crm-customers", {pathParams: ["a", "b"], queryParams: {q: "1"}}, {Accept: "application/json"})`,
		"api.rest.v1.get(\"crm-customers\", {pathParams: [`x${1}`], queryParams: null}, {})",
		`api.rest.v1.get("crm-customers", {pathParams: null}, {}, null)`,
		`api.rest.v1.get("crm-customers", {}, {}, {readTimeout: 1000, connectionTimeout: 50000})`,
		`api.rest.v1.post("crm-customers", {}, {}, {a: [1, {b: null}]})`,
		`api.rest.v1.post("crm-customers", {}, {}, 42)`,
		// Rejected by both.
		`api.rest.v1.get("crm-customers", {pathParams: [42]}, {})`,
		`api.rest.v1.get("crm-customers", {pathParams: ["a", true]}, {})`,
		`api.rest.v1.get("crm-customers", {pathParams: ["a", null]}, {})`,
		`api.rest.v1.get("crm-customers", {pathParams: [["a"]]}, {})`,
		`api.rest.v1.get("crm-customers", {pathParams: "a/b"}, {})`,
		`api.rest.v1.get("crm-customers", {queryParams: {page: 1}}, {})`,
		`api.rest.v1.get("crm-customers", {queryParams: {page: -1}}, {})`,
		`api.rest.v1.get("crm-customers", {queryParams: {page: undefined}}, {})`,
		`api.rest.v1.get("crm-customers", {queryParams: {page: /x/}}, {})`,
		`api.rest.v1.get("crm-customers", {queryParams: "page=1"}, {})`,
		`api.rest.v1.get("crm-customers", {pathParam: ["a"]}, {})`,
		`api.rest.v1.get("crm-customers", [], {})`,
		`api.rest.v1.get("crm-customers", null, {})`,
		`api.rest.v1.get("crm-customers", {}, "json")`,
		`api.rest.v1.get("crm-customers", {}, {"X-Page": 2})`,
		`api.rest.v1.get(42, {}, {})`,
		`api.rest.v1.get("", {}, {})`,
		`api.rest.v1.get("crm-customers", {}, {}, 5000)`,
		`api.rest.v1.get("crm-customers", {}, {}, {readTimeout: "1000"})`,
		`api.rest.v1.get("crm-customers", {}, {}, {readTimeout: 0})`,
		`api.rest.v1.get("crm-customers", {}, {}, {readTimeout: 1.5})`,
		`api.rest.v1.get("crm-customers", {}, {}, {readTimout: 1000})`,
		`api.rest.v1.post("crm-customers", {}, {}, undefined)`,
		`api.rest.v1.post("crm-customers", {}, {}, function(){})`,
		`api.rest.v1.post("crm-customers", {}, {})`,
		`api.rest.v1.get("crm-customers", {}, {}, {readTimeout: 1}, 2)`,
	}
	for _, call := range calls {
		src := "var r = " + call + ";\nreturn 1;"
		var diagErrs []string
		for _, d := range hints.Diagnose(hints.NewDocument(src), reg, hints.Display{}) {
			if d.Severity == hints.SeverityError {
				diagErrs = append(diagErrs, d.Code+": "+d.Message)
			}
		}
		res := scriptrt.Run(context.Background(), scriptrt.Options{Source: src, Registry: reg, Mock: mock})
		threw := res.Error != nil && res.Error.Name == "TypeError"
		if res.Error != nil && !threw {
			t.Errorf("%s: the dry run failed with %s: %s; the test wants a TypeError or success", call, res.Error.Name, res.Error.Message)
			continue
		}
		switch {
		case threw && len(diagErrs) == 0:
			t.Errorf("%s: the dry run throws %q but the editor shows no error", call, res.Error.Message)
		case !threw && len(diagErrs) > 0:
			t.Errorf("%s: the dry run succeeds but the editor shows %s", call, strings.Join(diagErrs, "; "))
		}
	}
}
