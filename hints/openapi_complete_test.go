package hints

import (
	"fmt"
	"strings"
	"testing"

	"github.com/restls/restls/internal/goldentest"
)

// The text users read from the API-description completion: the items'
// label, detail, insert text and documentation, with shop.yaml attached
// to serviceId crm.
func TestOpenAPICompleteGolden(t *testing.T) {
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
}
