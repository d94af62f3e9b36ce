package hints

import (
	"fmt"
	"strings"
	"testing"

	"github.com/restls/restls/openapi"
)

// wideDisplay attaches to serviceId crm a description whose POST /wide
// takes and answers an object of n properties, p0 ... p<n-1>.
func wideDisplay(t *testing.T, n int) Display {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"wide","version":"1"},"paths":{"/wide":{"post":{` +
		`"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/W"}}}},` +
		`"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/W"}}}}}}}},` +
		`"components":{"schemas":{"W":{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"type":"string","description":"Property %d, which has a description of some length as real ones do."}`, i, i)
	}
	b.WriteString(`}}}}}`)
	idx, err := openapi.Build("wide.json", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return Display{APIs: openapi.Attach(testRegistry(t), []openapi.Doc{{ServiceID: "crm", Index: idx}})}
}

// TestFieldItemsCapped (issue 23): `r.body.` on a schema of 20,000
// properties answered 5.6 MB. The property items of r.body and of a
// payload are capped at maxFieldItems and the answer marked incomplete,
// so the editor asks again as the user types; what is typed picks the
// items (prefix first, then containing). A schema under the cap is
// offered whole and complete.
func TestFieldItemsCapped(t *testing.T) {
	wide := wideDisplay(t, 20_000)
	small := wideDisplay(t, maxFieldItems)
	const call = "var r = api.rest.v1.post(\"crm\", {pathParams: [\"wide\"]}, {}, "
	for _, tc := range []struct {
		name, src string
		disp      Display
		first     []string // the first labels, in order
		n         int      // how many items; -1: maxFieldItems
		complete  bool
	}{
		{"r.body, nothing typed", call + "{});\nr.body.|", wide, []string{"p0", "p1", "p10", "p100"}, -1, false},
		{"r.body, a prefix typed", call + "{});\nr.body.p1999|", wide, []string{"p1999", "p19990", "p19991"}, 11, false},
		{"r.body, a prefix typed in another case", call + "{});\nr.body.P1999|", wide, []string{"p1999", "p19990"}, 11, false},
		{"payload keys, a part typed", call + "{\"999|\"});", wide, []string{"p10999", "p11999", "p12999"}, 38, false},
		{"payload keys", call + "{|});", wide, []string{"p0", "p1", "p10"}, -1, false},
		{"payload keys in a string", call + "{\"p1999|\"});", wide, []string{"p1999", "p19990"}, 11, false},
		{"r.body under the cap", call + "{});\nr.body.|", small, []string{"p0", "p1", "p10"}, maxFieldItems, true},
		{"payload under the cap", call + "{|});", small, []string{"p0", "p1", "p10"}, maxFieldItems, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, off := cursor(t, tc.src)
			got := AppendCompletion(nil, NewDocument(text), off, testRegistry(t), CompleteOptions{Display: tc.disp})
			n := tc.n
			if n < 0 {
				n = maxFieldItems
			}
			if len(got.Items) != n || got.Incomplete == tc.complete {
				t.Fatalf("%d items, incomplete %v; want %d, incomplete %v", len(got.Items), got.Incomplete, n, !tc.complete)
			}
			size := 0
			for i, it := range got.Items {
				if i < len(tc.first) && it.Label != tc.first[i] {
					t.Errorf("item %d is %q, want %q", i, it.Label, tc.first[i])
				}
				size += len(it.Label) + len(it.Detail) + len(it.Documentation) + len(it.InsertText)
			}
			if size > 100<<10 {
				t.Errorf("the items hold %d bytes of text", size)
			}
		})
	}
}
