package hints

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/internal/goldentest"
	"github.com/restls/restls/openapi"
)

// orderScript fetches one order of shop.yaml (crm) and hands it around.
const orderScript = `var r = api.rest.v1.get("crm", {pathParams: ["orders", id]}, {});
function customerOf(order) { return order.customer; }
var who = customerOf(r.body);
var lines = r.body.items.map(function (it) { return it; });
`

// The text users read from the flow: hover of a value that reached a
// variable through a function, and the flow's diagnostics with their
// fixes.
func TestFlowGolden(t *testing.T) {
	reg := testRegistry(t)
	disp := apiDisplay(t)
	text, off := cursor(t, orderScript+"who.man|ager;\n")
	h, ok := HoverAt(NewDocument(text), off, reg, disp)
	if !ok {
		t.Fatal("no hover")
	}
	goldentest.Check(t, goldenPath("openapi", "hover flow"), h.Markdown)

	script := orderScript + strings.Join([]string{
		`who.nmae;`,
		`lines[0].skuu;`,
		`r.body.toString();`,
		`if (r.status.code == 404) {}`,
		`try { api.rest.v1.get("crm", {pathParams: ["orders", id]}, {}); } catch (e) { e.body.code; e.headers; e.body.length; if (e.status.code === 409) {} if (e.status.code === 404) {} }`,
	}, "\n")
	var b strings.Builder
	for _, d := range Diagnose(NewDocument(script), reg, disp) {
		fmt.Fprintf(&b, "%s %q (severity %d)\n  %s\n", d.Code, script[d.Range.Start:d.Range.End], d.Severity, d.Message)
		for _, f := range d.Fixes {
			fmt.Fprintf(&b, "  fix %q:", f.Title)
			for _, e := range f.Edits {
				fmt.Fprintf(&b, " at %d-%d insert %q", e.Range.Start, e.Range.End, e.NewText)
			}
			b.WriteString("\n")
		}
	}
	goldentest.Check(t, goldenPath("openapi", "diagnostics flow"), b.String())
}

// A value that may also be something restls does not know (a literal
// object, another function's result) completes with what is known but
// is never reported.
func TestFlowMixedIsNotReported(t *testing.T) {
	reg := testRegistry(t)
	disp := apiDisplay(t)
	for _, src := range []string{
		orderScript + "var c = who || {name: 'x'};\nc.nmae;\n",
		orderScript + "var c = who; c = unknown();\nc.nmae;\n",
		orderScript + "function f(x) { return x.nmae; }\nf(who); f(other);\n",
		orderScript + "var o = r.body; o.extra = 1;\no.extras;\n", // a write is no read, the read is
	} {
		var codes []string
		for _, d := range Diagnose(NewDocument(src), reg, disp) {
			codes = append(codes, d.Code)
		}
		want := 0
		if strings.Contains(src, "o.extras") {
			want = 1
		}
		if n := strings.Count(strings.Join(codes, " "), CodeOpenAPIUnknownRead); n != want {
			t.Errorf("%q: %d unknown reads, want %d (%v)", src, n, want, codes)
		}
	}
}

// Recorded answers (no description) make the unknown read an
// information.
func TestFlowRecordedIsInformation(t *testing.T) {
	idx, err := openapi.BuildRecorded("crm.mock.yaml", []byte("fixtures:\n  - serviceId: crm\n    path: customers\n    body: {id: 1, name: Ann}\n"))
	if err != nil {
		t.Fatal(err)
	}
	reg := testRegistry(t)
	disp := Display{APIs: openapi.Attach(reg, []openapi.Doc{{Index: idx}})}
	src := "var r = api.rest.v1.get(\"crm\", {pathParams: [\"customers\"]}, {});\nvar b = r.body;\nb.nmae;\n"
	var got []Diagnostic
	for _, d := range Diagnose(NewDocument(src), reg, disp) {
		if d.Code == CodeOpenAPIUnknownRead {
			got = append(got, d)
		}
	}
	if len(got) != 1 || got[0].Severity != SeverityInfo || !strings.Contains(got[0].Message, "crm.mock.yaml") {
		t.Fatalf("diagnostics = %+v", got)
	}
}

// A new version that does not parse (the line being typed) completes from
// the analysis of the version before it.
func TestFlowNextCompletesHalfTypedText(t *testing.T) {
	reg := testRegistry(t)
	disp := apiDisplay(t)
	old := NewDocument(orderScript + "\n")
	old.flow()
	text, off := cursor(t, orderScript+"who.|\n")
	doc := old.Next(text)
	if doc.flow().parsed() {
		t.Fatal("the half-typed text parsed")
	}
	got := labels(AppendCompletion(nil, doc, off, reg, CompleteOptions{Display: disp}).Items)
	if !slices.Contains(got, "manager") || !slices.Contains(got, "email") {
		t.Fatalf("completion = %q", got)
	}
	// Without the earlier version, nothing is known of who.
	got = labels(AppendCompletion(nil, NewDocument(text), off, reg, CompleteOptions{Display: disp}).Items)
	if slices.Contains(got, "manager") {
		t.Fatalf("completion without the earlier version = %q", got)
	}
}

// The analysis is bounded: long chains of functions, recursion between
// them and deep nesting end in bounded time with what is known.
func TestFlowBounds(t *testing.T) {
	reg := testRegistry(t)
	disp := apiDisplay(t)
	for name, src := range flowSeeds(2000, 300, 200, 5000) {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			doc := NewDocument(src)
			res := doc.flow()
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("analysis took %v", d)
			}
			if !res.parsed() {
				t.Fatalf("not analysed")
			}
			Diagnose(doc, reg, disp)
		})
	}
}

// flowSeeds are deep and large scripts for the analysis: a chain of
// functions, functions calling each other in a ring, functions nested
// in functions, and a long script.
func flowSeeds(chainN, ringN, nestN, longN int) map[string]string {
	var chain, rec, nested, long strings.Builder
	chain.WriteString("var r = api.rest.v1.get(\"crm\", {pathParams: [\"orders\", id]}, {});\nfunction f0(x) { return x; }\n")
	for i := 1; i < chainN; i++ {
		fmt.Fprintf(&chain, "function f%d(x) { return f%d(x); }\n", i, i-1)
	}
	fmt.Fprintf(&chain, "f%d(r.body).customer.name;\n", chainN-1)
	rec.WriteString("var r = api.rest.v1.get(\"crm\", {pathParams: [\"orders\", id]}, {});\n")
	for i := 0; i < ringN; i++ {
		fmt.Fprintf(&rec, "function g%d(x, y) { if (y) return g%d(y, x.items); return g%d(x.customer, y); }\n", i, (i+1)%ringN, (i+7)%ringN)
	}
	rec.WriteString("g0(r.body, r.body).manager.name;\n")
	nested.WriteString("var r = api.rest.v1.get(\"crm\", {pathParams: [\"orders\", id]}, {});\n")
	for i := 0; i < nestN; i++ {
		fmt.Fprintf(&nested, "(function (a%d) {\n", i)
	}
	fmt.Fprintf(&nested, "a%d.customer;\n", nestN-1)
	for i := nestN - 1; i >= 0; i-- {
		fmt.Fprintf(&nested, "})(%s);\n", map[bool]string{true: "r.body", false: fmt.Sprintf("a%d", i-1)}[i == 0])
	}
	long.WriteString("var r = api.rest.v1.get(\"crm\", {pathParams: [\"orders\", id]}, {});\nvar v0 = r.body;\n")
	for i := 1; i < longN; i++ {
		fmt.Fprintf(&long, "var v%d = v%d.customer || v%d.manager; v%d = v%d.items[0];\n", i, i-1, i-1, i-1, i)
	}
	return map[string]string{"chain": chain.String(), "recursion": rec.String(), "nested": nested.String(), "long": long.String()}
}

// FuzzFlow: any script, with answers handed through functions, loops and
// callbacks, never panics the analysis, completion, hover or diagnostics.
func FuzzFlow(f *testing.F) {
	for _, s := range flowSeeds(100, 30, 60, 200) {
		f.Add(s, len(s)/2)
	}
	f.Add(orderScript+"who.|", len(orderScript)+4)
	f.Add("var {a: [{b = r.body}] = []} = api.rest.v1.get('crm', {pathParams: ['orders', 1]}, {}); for (const [k] of a) k.x; try {} catch ({status}) { status.code == 1 }", 40)
	f.Add("var r = api.rest.v1.get('crm', {}, {}); r.body.items.reduce((acc, x) => acc.concat(x), []).map(y => y.sku)[0].", 20)
	reg := testRegistry(f)
	disp := apiDisplay(f)
	f.Fuzz(func(t *testing.T, src string, off int) {
		if len(src) > 1<<16 {
			return
		}
		doc := NewDocument(src)
		Diagnose(doc, reg, disp)
		if off < 0 {
			off = -off
		}
		off %= len(src) + 1
		AppendCompletion(nil, doc, off, reg, CompleteOptions{Display: disp})
		HoverAt(doc, off, reg, disp)
		DefinitionAt(doc, off, reg, disp)
		next := doc.Next(src[:off] + "." + src[off:])
		AppendCompletion(nil, next, off+1, reg, CompleteOptions{Display: disp})
		HoverAt(next, off, reg, disp)
	})
}

// Without any description the analysis is not made, but the catch
// parameter's own reads are still checked.
func TestCatchReadsWithoutDescription(t *testing.T) {
	src := "try { api.rest.v1.get(\"crm\", {}, {}); } catch (e) { e.body.code; e.headers; e.body.length; e.status.code; }\n" +
		"try { JSON.parse(x); } catch (e) { e.body.code; }\n"
	var got []string
	for _, d := range Diagnose(NewDocument(src), testRegistry(t), Display{}) {
		got = append(got, d.Code+" "+src[d.Range.Start:d.Range.End])
	}
	want := []string{CodeExceptionBodyField + " code", CodeExceptionHeaders + " headers"}
	if !slices.Equal(got, want) {
		t.Fatalf("diagnostics = %q, want %q", got, want)
	}
}

// Chains that start at no name complete while typed: the half-typed line
// does not parse, and the version before it has the call's result (or
// the name read inside the parentheses) ending where the chain starts.
// A call whose result is not an answer (JSON.stringify) offers nothing.
func TestFlowChainsWithoutName(t *testing.T) {
	reg := testRegistry(t)
	disp := apiDisplay(t)
	call := `api.rest.v1.get("crm", {pathParams: ["orders", id]}, {})`
	for _, tc := range []struct {
		before, typed string // the script up to the chain's last dot, without and with it
		want          []string
	}{
		{call + ".body", call + ".body.", []string{"address", "customer", "id", "item", "items", "quantity"}},
		{"var r = " + call + ";\n(r.body)", "var r = " + call + ";\n(r.body).", []string{"address", "customer", "id", "item", "items", "quantity"}},
		{"function f() { return " + call + "; }\nf().body", "function f() { return " + call + "; }\nf().body.", []string{"address", "customer", "id", "item", "items", "quantity"}},
		{"var r = " + call + ";\nr.body.items.find(function (x) { return x; })", "var r = " + call + ";\nr.body.items.find(function (x) { return x; }).", []string{"price", "sku"}},
		{"var r = " + call + ";\nJSON.stringify(r.body)", "var r = " + call + ";\nJSON.stringify(r.body).", nil},
		{"var r = " + call + ";\nr.body.items[n + 1]", "var r = " + call + ";\nr.body.items[n + 1].", []string{"price", "sku"}},
		{"var r = " + call + ";\nr.body.items[r.body.items.length - 1]", "var r = " + call + ";\nr.body.items[r.body.items.length - 1].", []string{"price", "sku"}},
	} {
		old := NewDocument(tc.before + ";\n")
		Diagnose(old, reg, disp)
		doc := old.Next(tc.typed + ";\n")
		got := AppendCompletion(nil, doc, len(tc.typed), reg, CompleteOptions{Display: disp})
		var names []string
		for _, it := range got.Items {
			if it.Kind == ItemField {
				names = append(names, it.Label)
			}
		}
		if !slices.Equal(names, tc.want) {
			t.Errorf("%q: got %v, want %v", tc.typed, names, tc.want)
		}
	}
}

// A value's hover lists the values recorded answers held ("Seen") and
// those its schema allows ("Values"), each as inline code.
func TestFlowHoverListsSeenAndValues(t *testing.T) {
	reg := testRegistry(t)
	rec, err := openapi.BuildRecorded("crm.mock.yaml", []byte("fixtures:\n  - serviceId: crm\n    path: customers\n    body: {state: open}\n  - serviceId: crm\n    path: customers\n    body: {state: \"a`b\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	desc, err := openapi.Build("d.yaml", []byte(`openapi: 3.0.0
info: {title: d, version: "1"}
paths:
  /orders:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  state: {type: string, enum: [open, closed]}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		doc  openapi.Doc
		path string
		want string
	}{
		{openapi.Doc{Index: rec}, "customers", "Seen: `open`, ``a`b``\n\n"},
		{openapi.Doc{ServiceID: "crm", Index: desc}, "orders", "Values: `open`, `closed`\n\n"},
	} {
		disp := Display{APIs: openapi.Attach(reg, []openapi.Doc{c.doc})}
		text, off := cursor(t, `var r = api.rest.v1.get("crm", {pathParams: ["`+c.path+`"]}, {});`+"\nr.body.sta|te;\n")
		h, ok := HoverAt(NewDocument(text), off, reg, disp)
		if !ok || !strings.Contains(h.Markdown, c.want) {
			t.Errorf("%s: hover %q (%v), want it to hold %q", c.path, h.Markdown, ok, c.want)
		}
	}
}
