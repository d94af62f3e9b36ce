package hints

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/internal/goldentest"
)

// The registry of testdata: connection 2000/5000 ms, read 10000/20000 ms,
// so a plain call is 12 s, one with both maxima 25 s, and an OAuth call
// (hr) four exchanges: 48 s.
func TestWorstCaseLabel(t *testing.T) {
	reg := testRegistry(t)
	get := `api.rest.v1.get("crm", {}, {})`
	for _, tc := range []struct{ name, src, want string }{
		{"default timeouts", get + ";", "worst case 12 s"},
		{"two calls", get + ";\n" + get + ";", "worst case 24 s"},
		{"timeouts given", `api.rest.v1.get("crm", {}, {}, {connectionTimeout: 1000, readTimeout: 3000});`, "worst case 4 s"},
		{"one key given", `api.rest.v1.get("crm", {}, {}, {readTimeout: 500});`, "worst case 2.5 s"},
		{"above the maximum is clamped", `api.rest.v1.get("crm", {}, {}, {connectionTimeout: 90000, readTimeout: 99999});`, "worst case 25 s"},
		{"timeouts built at run time", `var t = {readTimeout: 1}; api.rest.v1.get("crm", {}, {}, t);`, "worst case 25 s"},
		{"a key built at run time", `api.rest.v1.get("crm", {}, {}, {readTimeout: n});`, "worst case 22 s"},
		{"post's timeouts are its fifth argument", `api.rest.v1.post("crm", {}, {}, {readTimeout: 1}, {readTimeout: 1000});`, "worst case 3 s"},
		{"oauth: token, call, token, retry", `api.rest.v1.get("hr", {}, {});`, "worst case 48 s"},
		{"basic is one exchange", `api.rest.v1.get("registry", {}, {});`, "worst case 12 s"},
		{"serviceId at run time may be oauth", `api.rest.v1.get(id, {}, {});`, "worst case 48 s"},
		{"for loop", "for (var i = 0; i < n; i++) { " + get + "; }", "worst case 12 s per loop iteration"},
		{"for of", "for (var x of xs) { " + get + "; }\n" + get + ";", "worst case 12 s + 12 s per loop iteration"},
		{"while", "while (more) { " + get + "; }", "worst case 12 s per loop iteration"},
		{"array callback", "xs.forEach(function (x) { " + get + "; });", "worst case 12 s per loop iteration"},
		{"arrow callback", "xs.map(x => " + get + ");", "worst case 12 s per loop iteration"},
		{"helper called twice", "function f() { return " + get + "; }\nf(); f();", "worst case 24 s"},
		{"helper of a helper", "function f() { return " + get + "; }\nfunction g() { f(); f(); }\ng(); g();", "worst case 48 s"},
		{"helper in a loop", "function f() { return " + get + "; }\nfor (;;) { f(); }", "worst case 12 s per loop iteration"},
		{"helper passed to forEach", "function f(x) { return " + get + "; }\nxs.forEach(f);", "worst case 12 s per loop iteration"},
		{"recursion", "function f(n) { " + get + "; if (n) f(n - 1); }\nf(3);", "worst case 12 s per loop iteration"},
		{"mutual recursion", "function f(n) { " + get + "; g(n); }\nfunction g(n) { if (n) f(n - 1); }\nf(3);", "worst case 12 s per loop iteration"},
		{"helper in a variable", "var f = function () { return " + get + "; };\nf(); f(); f();", "worst case 36 s"},
		{"method", "var o = {load: function () { return " + get + "; }};\no.load(); o.load();", "worst case 24 s"},
		{"iife", "(function () { " + get + "; })();", "worst case 12 s"},
		{"a helper nothing calls counts once", "function unused() { " + get + "; }", "worst case 12 s"},
		{"a loop inside a helper", "function f() { for (var x of xs) { " + get + "; } }\nf();", "worst case 12 s per loop iteration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, ok := WorstCaseOf(NewDocument(tc.src), reg, Display{})
			if !ok {
				t.Fatalf("no worst case for %q", tc.src)
			}
			if got := w.Label(); got != tc.want {
				t.Errorf("%q:\n got %q\nwant %q", tc.src, got, tc.want)
			}
		})
	}
}

// A call that fails before any exchange is not counted; a script without
// a counted call has no worst case.
func TestWorstCaseNone(t *testing.T) {
	reg := testRegistry(t)
	for _, src := range []string{
		``,
		`var x = 1;`,
		`api.rest.v1.get("nosuch", {}, {});`,
		`api.rest.v1.get("crm", {}, {}, {readTimeout: -1});`,
		`api.rest.v1.get("crm", {}, {}, {readTimeout: 1.5});`,
		`api.rest.v1.frobnicate("crm", {}, {});`,
		`api.rest.v1.get();`,
	} {
		if w, ok := WorstCaseOf(NewDocument(src), reg, Display{}); ok {
			t.Errorf("%q: worst case %q, want none", src, w.Label())
		}
	}
	if _, ok := WorstCaseOf(NewDocument(`api.rest.v1.get("crm", {}, {});`), nil, Display{}); ok {
		t.Error("a worst case without a registry")
	}
}

// Helpers calling helpers twice at every level: the count stops at
// worstTimesCap and the figure says "at least".
func TestWorstCaseCapped(t *testing.T) {
	reg := testRegistry(t)
	var b strings.Builder
	b.WriteString(`function f0() { api.rest.v1.get("crm", {}, {}, {connectionTimeout: 1, readTimeout: 1}); }` + "\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "function f%d() { f%d(); f%d(); }\n", i, i-1, i-1)
	}
	b.WriteString("f40();\n")
	w, ok := WorstCaseOf(NewDocument(b.String()), reg, Display{})
	if !ok || !w.AtLeast || w.Calls[0].Times != worstTimesCap {
		t.Fatalf("got %+v, want a capped count", w)
	}
	if got, want := w.Label(), "worst case at least 2 s"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// The hover of the first line, the inlay label and the diagnostic above
// the limit, in one golden.
func TestWorstCaseGolden(t *testing.T) {
	reg := testRegistry(t)
	src := strings.Join([]string{
		`// restls-kind: scriptService`,
		`function load(id) {`,
		`  return api.rest.v1.get("crm", {pathParams: ["customers", id]}, {}, {readTimeout: 3000});`,
		`}`,
		`var a = load(1), b = load(2);`,
		`try {`,
		`  api.rest.v1.post("hr", {}, {}, {id: a.body.id});`,
		`} catch (e) {}`,
		`a.body.orders.forEach(function (o) {`,
		`  api.rest.v1.get("registry", {pathParams: [o.id]}, {});`,
		`});`,
	}, "\n") + "\n"
	doc := NewDocument(src)
	disp := Display{TimeLimit: 30 * time.Second}
	h, ok := HoverAt(doc, 3, reg, disp)
	if !ok {
		t.Fatal("no hover on the first line")
	}
	var b strings.Builder
	w, _ := WorstCaseOf(doc, reg, disp)
	fmt.Fprintf(&b, "inlay: %s\n\nhover %d-%d:\n%s\n", w.Label(), h.Range.Start, h.Range.End, h.Markdown)
	for _, d := range Diagnose(doc, reg, disp) {
		if d.Code == CodeWorstCaseTime {
			fmt.Fprintf(&b, "diagnostic %s %q (severity %d)\n  %s\n", d.Code, src[d.Range.Start:d.Range.End], d.Severity, d.Message)
		}
	}
	goldentest.Check(t, goldenPath("worstcase", "hover"), b.String())
}

// FuzzWorstCase: any text gives a worst case whose figures are the sum of
// its calls' (or none), a label, and a hover within the text.
func FuzzWorstCase(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	get := `api.rest.v1.get("crm", {}, {}, {readTimeout: 1000});`
	var deep, ring, wide strings.Builder
	deep.WriteString("function f0() { " + get + " }\n")
	for i := 1; i < 200; i++ {
		fmt.Fprintf(&deep, "function f%d() { f%d(); f%d(); }\n", i, i-1, i-1)
	}
	deep.WriteString("f199();\n")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&ring, "function r%d() { %s r%d(); }\n", i, get, (i+1)%100)
	}
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&wide, "for (var i%d of xs) { xs.forEach(function () { %s }); }\n", i, get)
	}
	f.Add(deep.String())
	f.Add(ring.String())
	f.Add(wide.String())
	f.Add(strings.Repeat("(function () { ", 300) + get + strings.Repeat(" })();", 300))
	f.Add(`api.rest.v1.get(id, {}, {}, {...t, readTimeout: -0}); api.rest.v1.post("hr", {}, {}, {}, {connectionTimeout: 1e99});`)
	reg := testRegistry(f)
	f.Fuzz(func(t *testing.T, text string) {
		doc := NewDocument(text)
		w, ok := WorstCaseOf(doc, reg, Display{TimeLimit: time.Second})
		if !ok {
			return
		}
		var once, per int64
		for _, c := range w.Calls {
			if c.Times < 1 || c.Times > worstTimesCap || c.ConnectMs <= 0 || c.ReadMs <= 0 || (c.Exchanges != 1 && c.Exchanges != oauthExchanges) {
				t.Fatalf("call %+v", c)
			}
			checkRange(t, text, c.NameRange, "call")
			if c.InLoop {
				per += c.Ms()
			} else {
				once += c.Ms()
			}
		}
		if once != w.OnceMs || per != w.PerIterationMs || w.Label() == "" {
			t.Fatalf("worst case %+v: calls add up to %d + %d", w, once, per)
		}
		if h, ok := HoverAt(doc, 0, reg, Display{}); ok {
			checkRange(t, text, h.Range, "hover")
		}
	})
}

// BenchmarkWorstCase is the worst case of a 10,000-line script (about
// 1,400 calls) with a 10,000-service registry, parsed already: what the
// first inlay hint, hover or diagnostic of a version costs (the document
// keeps it for the rest), and restls check per script with timeLimits.
func BenchmarkWorstCase(b *testing.B) {
	text, _ := bigScript(10000)
	reg := bigRegistry(10000)
	doc := NewDocument(text)
	doc.parse()
	b.ReportAllocs()
	for b.Loop() {
		// Not WorstCaseOf, which keeps the result on the document.
		if w := worstCase(doc, reg); len(w.Calls) < 1000 {
			b.Fatalf("%d calls", len(w.Calls))
		}
	}
}

// One computation per document and registry: another registry (a reload,
// another kind) computes it again.
func TestWorstCaseKeptPerRegistry(t *testing.T) {
	reg := testRegistry(t)
	doc := NewDocument(`api.rest.v1.get("crm", {}, {});`)
	a, _ := WorstCaseOf(doc, reg, Display{})
	b, _ := WorstCaseOf(doc, reg, Display{TimeLimit: time.Second})
	if &a.Calls[0] != &b.Calls[0] || b.Limit != time.Second {
		t.Error("the second ask computed it again, or lost its limit")
	}
	if c, _ := WorstCaseOf(doc.Unparsed(), reg, Display{}); &c.Calls[0] != &a.Calls[0] {
		t.Error("the document without its tree computed it again")
	}
	other := bigRegistry(1)
	if w, ok := WorstCaseOf(doc, other, Display{}); ok {
		t.Errorf("another registry, without crm, got %q", w.Label())
	}
}
