package hints

import (
	"testing"

	"github.com/restls/restls/internal/goldentest"
)

// The text users read from the API-description hover: a call's
// operation and a catch block's exception, with shop.yaml attached to
// serviceId crm.
func TestOpenAPIHoverGolden(t *testing.T) {
	reg := testRegistry(t)
	disp := apiDisplay(t)
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
}
