package hints

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/restls/restls/internal/openapitest"
	"github.com/restls/restls/openapi"
)

// TestGitHubFlowReads holds the answer types against GitHub's own
// description: for every GET operation with an answer schema that lists
// properties, a script hands the answer (or its first element) to a
// helper that reads every property the schema has, in a loop callback
// too; none of those reads is reported (no false positive from allOf,
// oneOf, anyOf, nullable or $ref cycles), and one misspelled read is.
func TestGitHubFlowReads(t *testing.T) {
	path := openapitest.GitHub(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := openapi.Build("api.github.com.json", data)
	if err != nil {
		t.Fatal(err)
	}
	reg := testRegistry(t)
	disp := Display{APIs: openapi.Attach(reg, []openapi.Doc{{ServiceID: "crm", Index: idx}})}
	api, _ := disp.APIs.API("crm")
	checked, flagged := 0, 0
	for _, op := range idx.Ops {
		if op.Method != "GET" || op.Response == nil {
			continue
		}
		schema, elem := op.Response, ""
		if schema.Type == "array" && schema.Items != nil {
			schema, elem = schema.Items, "[0]"
		}
		if len(schema.Props) == 0 || schema.Open {
			continue
		}
		var segs []openapi.Seg
		var lit []string
		for _, s := range op.Segments {
			if openapi.IsParam(s) {
				segs = append(segs, openapi.Seg{Computed: true})
				lit = append(lit, "p")
			} else {
				segs = append(segs, openapi.Seg{Text: s})
				lit = append(lit, fmt.Sprintf("%q", s))
			}
		}
		if m, _ := api.Match("GET", segs); m != op {
			continue // another operation answers these segments
		}
		var reads []string
		for _, p := range schema.Props {
			if isIdentifier(p.Name) {
				reads = append(reads, "x."+p.Name)
			} else {
				reads = append(reads, fmt.Sprintf("x[%q]", p.Name))
			}
		}
		src := fmt.Sprintf("var p = \"p\";\nvar r = api.rest.v1.get(\"crm\", {pathParams: [%s]}, {});\n"+
			"function read(x) { return [%s, x.zzzNotAField]; }\nvar v = read(r.body%s);\n[1].forEach(function () { read(r.body%s); });\n",
			strings.Join(lit, ", "), strings.Join(reads, ", "), elem, elem)
		var got []string
		for _, d := range Diagnose(NewDocument(src), reg, disp) {
			if d.Code == CodeOpenAPIUnknownRead {
				got = append(got, src[d.Range.Start:d.Range.End])
			}
		}
		checked++
		if len(got) != 1 || got[0] != "zzzNotAField" {
			t.Errorf("GET %s: unknown reads %q, want only zzzNotAField", op.Path, got)
			if flagged++; flagged > 5 {
				t.Fatal("more")
			}
		}
	}
	if checked < 300 {
		t.Fatalf("only %d operations checked", checked)
	}
	t.Logf("%d GET operations' answers read through a helper", checked)
}
