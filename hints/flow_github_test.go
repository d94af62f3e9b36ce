package hints

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/restls/restls/internal/openapitest"
	"github.com/restls/restls/openapi"
)

// Real descriptions, each from the npm package its authors publish
// (internal/openapitest): GitHub's (MIT), Blockfrost's (OpenAPI 3.0.3,
// MIT) and Okta's management API (Swagger 2.0, Apache-2.0).

// TestGitHubFlowReads holds the answer types against GitHub's own
// description (flowReads).
func TestGitHubFlowReads(t *testing.T) {
	flowReads(t, "api.github.com.json", openapitest.GitHub(t), 300)
}

// TestBlockfrostFlowReads: the same against Blockfrost's description.
func TestBlockfrostFlowReads(t *testing.T) {
	flowReads(t, "openapi.yaml", openapitest.Fetch(t, openapitest.Blockfrost), 60)
}

// TestOktaFlowReads: the same against Okta's (Swagger 2.0).
func TestOktaFlowReads(t *testing.T) {
	flowReads(t, "spec.yaml", openapitest.Fetch(t, openapitest.Okta), 60)
}

// flowReads checks every GET operation of the description at path with an
// answer schema that lists properties: a script hands the answer (or its
// first element) to a helper that reads every property the schema has,
// from a forEach callback and a for...of loop too. None of those reads is
// reported (no false positive from allOf, oneOf, anyOf, nullable or $ref
// cycles), one misspelled read is; completion after `x.` in the helper
// offers every property, and hover on the first read names its type and
// the operation. At least min operations must be checked.
func flowReads(t *testing.T, name, path string, min int) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := openapi.Build(name, data)
	if err != nil {
		t.Fatal(err)
	}
	reg := testRegistry(t)
	disp := Display{APIs: openapi.Attach(reg, []openapi.Doc{{ServiceID: "crm", Index: idx}})}
	api, _ := disp.APIs.API("crm")
	checked, failed := 0, 0
	fail := func(format string, a ...any) {
		t.Errorf(format, a...)
		if failed++; failed > 5 {
			t.Fatal("more")
		}
	}
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
		loop := "[1].forEach(function () { read(r.body" + elem + "); });\n"
		if elem != "" {
			loop += "for (var e of r.body) { read(e); }\n"
		}
		src := fmt.Sprintf("var p = \"p\";\nvar r = api.rest.v1.get(\"crm\", {pathParams: [%s]}, {});\n"+
			"function read(x) { return [%s, x.zzzNotAField]; }\nvar v = read(r.body%s);\n%s",
			strings.Join(lit, ", "), strings.Join(reads, ", "), elem, loop)
		doc := NewDocument(src)
		var got []string
		for _, d := range Diagnose(doc, reg, disp) {
			if d.Code == CodeOpenAPIUnknownRead {
				got = append(got, src[d.Range.Start:d.Range.End])
			}
		}
		checked++
		if len(got) != 1 || got[0] != "zzzNotAField" {
			fail("GET %s: unknown reads %q, want only zzzNotAField", op.Path, got)
		}
		at := strings.Index(src, "return [x") + len("return [x.")
		if len(schema.Props) <= 200 && isIdentifier(schema.Props[0].Name) {
			items := AppendCompletion(nil, doc, at, reg, CompleteOptions{Display: disp})
			have := map[string]bool{}
			for _, it := range items.Items {
				have[it.Label] = true
			}
			for _, p := range schema.Props {
				if !have[p.Name] {
					fail("GET %s: completion after x. lacks %q (%d items)", op.Path, p.Name, len(items.Items))
					break
				}
			}
			h, ok := HoverAt(doc, at, reg, disp)
			if !ok || !strings.Contains(h.Markdown, "**"+schema.Props[0].Name+"**") || !strings.Contains(h.Markdown, "GET "+op.Path) {
				fail("GET %s: hover on x.%s: %q", op.Path, schema.Props[0].Name, h.Markdown)
			}
		}
	}
	if checked < min {
		t.Fatalf("only %d operations checked, want at least %d", checked, min)
	}
	t.Logf("%s: %d GET operations' answers read through a helper", name, checked)
}
