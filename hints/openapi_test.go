package hints

import (
	"fmt"
	"strings"
	"testing"

	"github.com/restls/restls/internal/goldentest"
)

// The text users read from the API-description hints: completion items
// (label, detail, insert text, documentation), hover, and diagnostics
// with their fixes, with shop.yaml attached to serviceId crm.
func TestOpenAPIGolden(t *testing.T) {
	reg := testRegistry(t)
	disp := apiDisplay(t)
	for _, tc := range []struct{ name, src string }{
		{"path segments", `api.rest.v1.post("crm", {pathParams: ["orders", |]}, {}, {});`},
		{"path segments in a string", `api.rest.v1.get("crm", {pathParams: ["|"]}, {});`},
		{"query keys", `api.rest.v1.get("crm", {pathParams: ["orders"], queryParams: {|}}, {});`},
		{"query enum", `api.rest.v1.get("crm", {pathParams: ["orders"], queryParams: {status: "|"}}, {});`},
		{"payload keys", `api.rest.v1.post("crm", {pathParams: ["orders"]}, {}, {address: {|}});`},
		{"response body", "var r = api.rest.v1.get(\"crm\", {pathParams: [\"orders\", id]}, {});\nr.body.customer.|"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, off := cursor(t, tc.src)
			got := AppendCompletion(nil, NewDocument(text), off, reg, CompleteOptions{Display: disp})
			if len(got.Items) == 0 {
				t.Fatal("no items")
			}
			var b strings.Builder
			for i, it := range got.Items {
				if i > 0 {
					b.WriteString("\n")
				}
				fmt.Fprintf(&b, "## %s\n\ndetail: %s\ninsert: %s\nsort: %s\n\n%s\n", it.Label, it.Detail, it.InsertText, it.SortText, it.Documentation)
			}
			goldentest.Check(t, goldenPath("openapi", "complete "+tc.name), b.String())
		})
	}
	text, off := cursor(t, `api.rest.v1.p|ost("crm", {pathParams: ["orders"]}, {}, {});`)
	h, ok := HoverAt(NewDocument(text), off, reg, disp)
	if !ok {
		t.Fatal("no hover")
	}
	goldentest.Check(t, goldenPath("openapi", "hover post orders"), h.Markdown)
	text, off = cursor(t, "try {\n  api.rest.v1.get(\"crm\", {pathParams: [\"orders\", id]}, {});\n} catch (e) {\n  log(e|.body);\n}")
	h, ok = HoverAt(NewDocument(text), off, reg, disp)
	if !ok {
		t.Fatal("no hover on the exception")
	}
	goldentest.Check(t, goldenPath("openapi", "hover exception"), h.Markdown)

	script := strings.Join([]string{
		`api.rest.v1.get("crm", {pathParams: ["ordrs"]}, {});`,
		`api.rest.v1.patch("crm", {pathParams: ["orders", id]}, {}, {});`,
		`api.rest.v1.get("crm", {pathParams: ["orders"], queryParams: {colour: "red"}}, {});`,
		`api.rest.v1.get("crm", {pathParams: ["orders"]}, {});`,
		`api.rest.v1.post("crm", {pathParams: ["orders"]}, {}, {});`,
		`api.rest.v1.delete("crm", {pathParams: ["orders", id]}, {});`,
		`api.rest.v1.get("crm", {pathParams: [id]}, {});`,
	}, "\n")
	var b strings.Builder
	for _, d := range Diagnose(NewDocument(script), reg, disp) {
		fmt.Fprintf(&b, "%s %q (severity %d, deprecated %v)\n  %s\n", d.Code, script[d.Range.Start:d.Range.End], d.Severity, d.Deprecated, d.Message)
		for _, f := range d.Fixes {
			fmt.Fprintf(&b, "  fix %q:", f.Title)
			for _, e := range f.Edits {
				fmt.Fprintf(&b, " at %d-%d insert %q", e.Range.Start, e.Range.End, e.NewText)
			}
			b.WriteString("\n")
		}
	}
	goldentest.Check(t, goldenPath("openapi", "diagnostics"), b.String())
}
