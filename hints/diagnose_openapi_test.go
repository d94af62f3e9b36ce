package hints

import (
	"fmt"
	"strings"
	"testing"

	"github.com/restls/restls/internal/goldentest"
)

// The text users read from the API-description diagnostics and their
// fixes, with shop.yaml attached to serviceId crm.
func TestOpenAPIDiagnosticsGolden(t *testing.T) {
	reg := testRegistry(t)
	disp := apiDisplay(t)
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
