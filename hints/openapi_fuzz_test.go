package hints

import (
	"os"
	"strings"
	"testing"

	"github.com/restls/restls/openapi"
)

// apiDisplay is a Display with ../openapi/testdata/shop.yaml attached to
// serviceId crm of the test registry.
func apiDisplay(t testing.TB) Display {
	t.Helper()
	data, err := os.ReadFile("../openapi/testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	idx, err := openapi.Build("shop.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	return Display{APIs: openapi.Attach(testRegistry(t), []openapi.Doc{{ServiceID: "crm", Index: idx}})}
}

var openAPISeeds = []string{
	`var r = api.rest.v1.get("crm", {pathParams: ["orders", id, "items"], queryParams: {status: "open", limit: "2"}}, {}); r.body[0].sku`,
	`var o = api.rest.v1.post("crm", {pathParams: ["orders"]}, {}, {item: "a", address: {city: "B", street: [{`,
	`var c = api.rest.v1.get("crm", {pathParams: ["customers", "c1"]}, {}); c.body.manager.manager.name; c.body[0][1].x.`,
	`api.rest.v1.put("crm", {pathParams: ["customers", "c1", "photo"]}, {}, {...x, file: "f"}); api.rest.v1.delete("crm", {pathParams: ["orders", 'x\'y', ` + "`t${1}`" + `]}, {})`,
	`api.rest.v1.get("crm", {pathParams: ["ord /* c */", /* "x" */ "rs"], queryParams: {"status": "a", [k]: 1}}, {}) // "`,
	// Deep: brackets nested far down a payload and a pathParams list.
	`api.rest.v1.post("crm", {pathParams: ["orders"]}, {}, ` + strings.Repeat("{a: [", 300) + strings.Repeat("]}", 300) + `)`,
	`api.rest.v1.get("crm", {pathParams: [` + strings.Repeat(`"orders", `, 2000) + `]}, {})`,
}

// FuzzOpenAPIHints runs completion, hover, definition and diagnostics
// with a description attached: the literal reader (literal_text.go), the
// body paths and the matching must not panic on any text.
func FuzzOpenAPIHints(f *testing.F) {
	for _, s := range append(openAPISeeds, fuzzSeeds...) {
		f.Add(s, len(s)/2)
	}
	reg := testRegistry(f)
	disp := apiDisplay(f)
	f.Fuzz(func(t *testing.T, text string, off int) {
		doc := NewDocument(text)
		for _, o := range offsets(text, off) {
			for _, it := range AppendCompletion(nil, doc, o, reg, CompleteOptions{Display: disp}).Items {
				checkRange(t, text, it.Replace, it.Label)
			}
			if h, ok := HoverAt(doc, o, reg, disp); ok {
				checkRange(t, text, h.Range, "hover")
			}
			if d, ok := DefinitionAt(doc, o, reg, disp); ok && d.File == "" {
				t.Fatalf("definition without a file: %+v", d)
			}
		}
		for _, d := range Diagnose(doc, reg, disp) {
			checkRange(t, text, d.Range, d.Code)
			for _, fx := range d.Fixes {
				for _, e := range fx.Edits {
					checkRange(t, text, e.Range, fx.Title)
				}
			}
		}
	})
}

func TestReadCall(t *testing.T) {
	text := `get("crm", {pathParams: ["a", b, 'c\'d', ` + "`e`" + `, f(1, 2), "g" /* x */], queryParams: {q: "1", "r-s": x}}, {})`
	ct := readCall(text, 0, 3)
	if ct.serviceID != "crm" || len(ct.segs) != 6 || len(ct.query) != 2 || ct.query[1].key != "r-s" {
		t.Fatalf("readCall = %+v", ct)
	}
	want := []openapi.Seg{{Text: "a"}, {Computed: true}, {Text: "c'd"}, {Text: "e"}, {Computed: true}, {Text: "g"}}
	for i, s := range want {
		if ct.segs[i] != s {
			t.Errorf("segment %d = %+v, want %+v", i, ct.segs[i], s)
		}
	}
}
