package hints

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/restls/restls/internal/openapitest"
	"github.com/restls/restls/openapi"
)

// referenceSegmentItems builds the path-segment items of candidates next
// as pathSegmentItems did before their text was kept on the index
// (segmentText): every item and its documentation built for the call.
// The differential tests hold pathSegmentItems to it.
func referenceSegmentItems(next []openapi.Next, method string, rng Range, quote byte) []CompletionItem {
	items := make([]CompletionItem, 0, len(next))
	for _, n := range next {
		it := CompletionItem{Label: n.Segment, Kind: ItemValue, Replace: rng, SortText: "0" + n.Segment}
		ops, total := n.Ops, n.NOps
		if total == 0 {
			ops, total = n.Other, n.NOther
			it.SortText = "1" + n.Segment
			it.Detail = "no " + method + " below: " + strings.Join(n.OtherMethods, ", ")
		} else {
			it.Detail = method
			if n.NOther > 0 {
				it.Detail += "; also " + strings.Join(n.OtherMethods, ", ")
			}
		}
		var doc strings.Builder
		if n.Param != nil {
			name := strings.Trim(n.Segment, "{}")
			it.InsertText = "${1:" + snippetEscape(name) + "}"
			if quote == 0 {
				it.InsertText = `"` + it.InsertText + `"`
			}
			it.Snippet = true
			it.FilterText = name
			doc.WriteString("Path parameter `" + name + "`")
			if n.Param.Type != "" {
				doc.WriteString(" (" + n.Param.Type + ")")
			}
			if n.Param.Description != "" {
				doc.WriteString(": ")
				writeText(&doc, n.Param.Description)
			}
			doc.WriteString("\n\n")
		} else {
			it.InsertText = quoted(n.Segment, quote)
		}
		for _, o := range ops {
			doc.WriteString("- `" + o.Method + " " + o.Path + "`")
			if o.Summary != "" {
				doc.WriteString(": ")
				writeText(&doc, o.Summary)
			}
			if o.Deprecated {
				doc.WriteString(" (deprecated)")
			}
			doc.WriteString("\n")
		}
		if total > len(ops) {
			fmt.Fprintf(&doc, "- and %d more\n", total-len(ops))
		}
		it.Documentation = doc.String()
		items = append(items, it)
		if n.Param != nil {
			name := strings.Trim(n.Segment, "{}")
			for _, v := range n.Param.Enum {
				items = append(items, CompletionItem{Label: v, Kind: ItemValue, Detail: n.Segment,
					InsertText: quoted(v, quote), Replace: rng, SortText: "0" + name + "\x00" + v})
			}
		}
	}
	return items
}

// segmentPrefixes returns the distinct path prefixes of the operations
// after prefix, each as script elements (a literal string, or the
// variable v for a parameter) and as openapi segments.
func segmentPrefixes(idx *openapi.Index, prefix []string) (elems [][]string, segs [][]openapi.Seg) {
	seen := map[string]bool{}
	for _, o := range idx.Ops {
		if len(o.Segments) < len(prefix) || !slices.Equal(o.Segments[:len(prefix)], prefix) {
			continue
		}
		rest := o.Segments[len(prefix):]
		for k := 0; k <= len(rest); k++ {
			var e []string
			var s []openapi.Seg
			for _, t := range rest[:k] {
				if openapi.IsParam(t) {
					e = append(e, "v")
					s = append(s, openapi.Seg{Computed: true})
				} else {
					e = append(e, strconv.Quote(t))
					s = append(s, openapi.Seg{Text: t})
				}
			}
			if key := strings.Join(e, ","); !seen[key] {
				seen[key] = true
				elems, segs = append(elems, e), append(segs, s)
			}
		}
	}
	return elems, segs
}

// segmentContexts are where the cursor is in the pathParams list: code,
// a string just opened, a string with a letter typed.
var segmentContexts = []struct {
	open, close string
	quote       byte
}{{"", "", 0}, {`"`, `"`, '"'}, {`'`, `'`, '\''}, {`"i`, `"`, '"'}}

// checkSegments holds the path-segment completion of service id, whose
// description is api, to referenceSegmentItems for every path prefix,
// call and context, twice (the text built, then kept).
func checkSegments(t *testing.T, id string, api openapi.API, disp Display, contexts int) {
	t.Helper()
	reg := testRegistry(t)
	elems, segs := segmentPrefixes(api.Index, api.Prefix)
	if len(elems) == 0 {
		t.Fatalf("%s: no path prefixes", id)
	}
	items := 0
	defer func() { t.Logf("%s: %d path prefixes, %d items", id, len(elems), items) }()
	for i := range elems {
		for _, c := range calls {
			for _, ctx := range segmentContexts[:contexts] {
				list := strings.Join(append(slices.Clone(elems[i]), ""), ", ")
				before := "api.rest.v1." + c.Name + `("` + id + `", {pathParams: [` + list + ctx.open
				after := ctx.close + "]}, {}"
				if c.HasPayload {
					after += ", {}"
				}
				after += ");"
				want := referenceSegmentItems(api.Next(c.Method, segs[i]), c.Method, Range{}, ctx.quote)
				for round := range 2 {
					got := AppendCompletion(nil, NewDocument(before+after), len(before), reg, CompleteOptions{Display: disp}).Items
					for j := range want {
						if j < len(got) {
							want[j].Replace = got[j].Replace
						}
					}
					items += len(got)
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s round %d:\n%s|%s\ngot  %+v\nwant %+v", id, round, before, after, got, want)
					}
				}
			}
		}
	}
}

func attachTo(t testing.TB, idx *openapi.Index) Display {
	t.Helper()
	return Display{APIs: openapi.Attach(testRegistry(t), []openapi.Doc{{ServiceID: "crm", Index: idx}})}
}

func buildFile(t testing.TB, file string) *openapi.Index {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := openapi.Build(file, data)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// TestPathSegmentItemsMatchReference: the items built from the text kept
// on the index are the ones built for every keystroke before, on the
// hand-written 3.0 and 3.1 descriptions, one with merged candidates
// (merge.yaml), through a serviceId and through a service defined by
// reference (crm-orders = crm/orders: a path prefix), and on GitHub's.
func TestPathSegmentItemsMatchReference(t *testing.T) {
	for _, file := range []string{"../openapi/testdata/shop.yaml", "../openapi/testdata/things31.json", "../openapi/testdata/merge.yaml"} {
		t.Run(file, func(t *testing.T) {
			disp := attachTo(t, buildFile(t, file))
			for _, id := range []string{"crm", "crm-orders"} {
				api, ok := disp.APIs.API(id)
				if !ok {
					t.Fatalf("%s has no description", id)
				}
				if e, _ := segmentPrefixes(api.Index, api.Prefix); len(e) == 0 {
					continue // no paths under the prefix
				}
				checkSegments(t, id, api, disp, len(segmentContexts))
			}
		})
	}
	t.Run("GitHub", func(t *testing.T) {
		disp := attachTo(t, buildFile(t, openapitest.GitHub(t)))
		api, _ := disp.APIs.API("crm")
		checkSegments(t, "crm", api, disp, 2)
	})
}

// TestPathSegmentItemsConcurrent completes path segments on one fresh
// index from several goroutines at once (go test -race): the text kept on
// the index is built once and read by all.
func TestPathSegmentItemsConcurrent(t *testing.T) {
	disp := attachTo(t, buildFile(t, "../openapi/testdata/merge.yaml"))
	api, _ := disp.APIs.API("crm")
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			checkSegments(t, "crm", api, disp, 1)
		}()
	}
	wg.Wait()
}

// TestPathSegmentTextKept: a second completion at the same place reuses
// the documentation built by the first, for a candidate of one trie node;
// one merged from two nodes ("generate": /repos/{owner}/{repo}/generate/...
// and /repos/{template_owner}/{template_repo}/generate) is built again.
func TestPathSegmentTextKept(t *testing.T) {
	disp := attachTo(t, buildFile(t, "../openapi/testdata/merge.yaml"))
	reg := testRegistry(t)
	text, off := cursor(t, `api.rest.v1.get("crm", {pathParams: ["repos", o, r, |]}, {});`)
	docs := func() map[string]*byte {
		out := map[string]*byte{}
		for _, it := range AppendCompletion(nil, NewDocument(text), off, reg, CompleteOptions{Display: disp}).Items {
			out[it.Label] = unsafe.StringData(it.Documentation)
		}
		return out
	}
	first, second := docs(), docs()
	if first["issues"] == nil || first["issues"] != second["issues"] || first["{sha}"] != second["{sha}"] {
		t.Errorf("the documentation of issues and {sha} was built again")
	}
	if first["generate"] == nil || first["generate"] == second["generate"] {
		t.Errorf("generate (merged) = %p then %p: want built for each call", first["generate"], second["generate"])
	}
}

// TestBodyTextKept: a second completion after `r.body.` reuses the text
// built by the first; the same schema reached from another operation's
// answer gets its own (its documentation names that answer), equal apart
// from that.
func TestBodyTextKept(t *testing.T) {
	reg := testRegistry(t)
	disp := apiDisplay(t)
	docs := func(src string) map[string]string {
		text, off := cursor(t, src)
		out := map[string]string{}
		for _, it := range AppendCompletion(nil, NewDocument(text), off, reg, CompleteOptions{Display: disp}).Items {
			out[it.Label] = it.Documentation
		}
		if len(out) == 0 {
			t.Fatalf("no items for %s", src)
		}
		return out
	}
	one := "var r = api.rest.v1.get(\"crm\", {pathParams: [\"orders\", id]}, {});\nr.body.customer.|"
	first, second := docs(one), docs(one)
	for label, doc := range first {
		if unsafe.StringData(doc) != unsafe.StringData(second[label]) {
			t.Errorf("the documentation of %s was built again", label)
		}
	}
	other := docs("var r = api.rest.v1.get(\"crm\", {pathParams: [\"customers\", id]}, {});\nr.body.|")
	shared := 0
	for label, doc := range other {
		want, ok := first[label]
		if !ok {
			continue
		}
		shared++
		if !strings.Contains(doc, "`GET /customers/{id}`") || strings.Replace(want, "/orders/{orderId}", "/customers/{id}", 1) != doc {
			t.Errorf("%s from another answer: %q (first was %q)", label, doc, want)
		}
	}
	if shared == 0 {
		t.Errorf("the two answers share no field: %v, %v", first, other)
	}
}
