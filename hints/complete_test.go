package hints

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/internal/goldentest"
)

var allCalls = []string{"get", "delete", "post", "put", "patch"}
var allIDs = []string{"crm", "crm-orders", "hr", "registry", "wetter-zürich"}
var headerNames = []string{"Accept", "Accept-Language", "Cache-Control", "Content-Type", "If-Match",
	"If-None-Match", "User-Agent", "X-Correlation-ID", "X-Request-ID"}

func TestComplete(t *testing.T) {
	farDecl := "var far = api.rest.v1.get(\"crm\", {}, {});\n" + strings.Repeat("var pad = 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx';\n", 1500)
	longCatch := "try {\n  api.rest.v1.get(\"crm\", {}, {});\n} catch (err) {\n" +
		strings.Repeat("  log('a line of a long catch block, longer than the near window');\n", 120)
	longPath := "api.rest.v1.get(\"crm\", {pathParams: [\n" + strings.Repeat("  'segment', 'segment', 'segment', 'segment',\n", 120) + "], "
	tests := []struct {
		name     string
		src      string
		nilReg   bool
		want     []string // labels in order; nil means no items
		replaced string   // the text the first item's Replace covers
		insert   string   // the first item's InsertText, when set
	}{
		{name: "api", src: `api.|`, want: []string{"rest"}},
		{name: "api partial", src: `api.re|`, want: []string{"rest"}, replaced: "re"},
		{name: "api.rest", src: `var a = api.rest.|`, want: []string{"v1"}},
		{name: "calls", src: `api.rest.v1.|`, want: allCalls,
			insert: `get("${1:serviceId}", ${2:{\}}, ${3:{\}})`},
		{name: "calls partial", src: "x = 1;\napi.rest.v1.po|", want: allCalls, replaced: "po"},
		{name: "post snippet", src: `api.rest.v1.|`, want: allCalls},
		{name: "api identifier", src: `var x = ap|`, want: []string{"api"}, replaced: "ap"},
		{name: "member of unknown", src: `foo.ap|`},
		{name: "member of other api", src: `foo.api.|`},

		{name: "serviceId before string", src: `var x = api.rest.v1.get(|`, want: allIDs, insert: `"crm"`},
		{name: "serviceId unquoted prefix", src: `api.rest.v1.get(cr|`, want: []string{"crm", "crm-orders"},
			replaced: "cr", insert: `"crm"`},
		{name: "serviceId in empty string", src: `api.rest.v1.get("|")`, want: allIDs, insert: "crm"},
		{name: "serviceId replaces whole id", src: `api.rest.v1.get("cr|m-x", {}, {})`,
			want: []string{"crm", "crm-orders"}, replaced: "crm-x", insert: "crm"},
		{name: "serviceId single quote unclosed", src: `api.rest.v1.delete('h|`,
			want: []string{"hr", "wetter-zürich"}, replaced: "h"},
		{name: "serviceId case-insensitive", src: `api.rest.v1.get("CRM-|")`, want: []string{"crm-orders"}, replaced: "CRM-"},
		{name: "serviceId non-ASCII", src: `var ä = "ö"; api.rest.v1.get("wetter-zü|`,
			want: []string{"wetter-zürich"}, replaced: "wetter-zü"},
		{name: "serviceId nil registry", src: `api.rest.v1.get("|")`, nilReg: true},
		{name: "api nil registry", src: `api.|`, nilReg: true, want: []string{"rest"}},
		{name: "serviceId half-typed multi-line", src: "if (ok) {\n  var r = api.rest.v1.post(\n    |\n", want: allIDs},
		{name: "after the serviceId string", src: `api.rest.v1.get("crm"|`},
		{name: "after the serviceId string and a space", src: `api.rest.v1.get("crm" |`},
		{name: "after a complete key", src: `api.rest.v1.get("crm", {"pathParams"|`},
		{name: "after a header value", src: `api.rest.v1.get("crm", {}, {"Content-Type": "application/json" |`},
		{name: "second argument is no serviceId", src: `api.rest.v1.get("crm", "|`},

		{name: "in line comment", src: `// api.|`},
		{name: "in block comment", src: `/* api.rest.v1.get("| */`},
		{name: "in unrelated string", src: `var s = "api.|"`},
		{name: "template text", src: "var s = `api.|`"},
		{name: "template expression", src: "var s = `${api.|}`", want: []string{"rest"}},
		{name: "after template", src: "var s = `a ${b} {c}`; api.rest.v1.get(\"|", want: allIDs},
		{name: "in regex", src: `var re = /api.|/`},
		{name: "after regex with slash in class", src: `var re = /[/]"/; api.|`, want: []string{"rest"}},
		{name: "division is no regex", src: `var a = b / 2; api.|`, want: []string{"rest"}},
		{name: "unclosed string on earlier line", src: "var s = \"abc\napi.|", want: []string{"rest"}},
		{name: "stray closers", src: `))) }}} ]] api.rest.v1.get("|`, want: allIDs},

		{name: "path keys", src: `api.rest.v1.get("crm", {|})`, want: []string{"pathParams", "queryParams"},
			insert: "pathParams: [$1]"},
		{name: "path keys after comma", src: `api.rest.v1.get("crm", {pathParams: ["a"], |})`,
			want: []string{"pathParams", "queryParams"}},
		{name: "path keys after a long value", src: longPath + "|", want: []string{"pathParams", "queryParams"}},
		{name: "path value", src: `api.rest.v1.get("crm", {pathParams: |`},
		{name: "path quoted key", src: `api.rest.v1.get("crm", {"q|"})`, want: []string{"pathParams", "queryParams"},
			replaced: "q", insert: "pathParams"},
		{name: "inside queryParams", src: `api.rest.v1.get("crm", {queryParams: {|`},

		{name: "timeouts", src: `api.rest.v1.get("crm", {}, {}, {|})`, want: []string{"connectionTimeout", "readTimeout"},
			insert: "connectionTimeout: ${1:2000}"},
		{name: "timeouts nil registry", src: `api.rest.v1.delete("crm", {}, {}, {r|`, nilReg: true,
			want: []string{"connectionTimeout", "readTimeout"}, replaced: "r", insert: "connectionTimeout: ${1:1000}"},
		{name: "post payload", src: `api.rest.v1.post("crm", {}, {}, {|`},
		{name: "post timeouts", src: `api.rest.v1.post("crm", {}, {}, {}, {|`, want: []string{"connectionTimeout", "readTimeout"}},

		{name: "header names", src: `api.rest.v1.get("crm", {}, {|})`, want: headerNames, insert: `"Accept": `},
		{name: "header names quoted", src: `api.rest.v1.get("crm", {}, {"Con|"})`, want: headerNames,
			replaced: "Con", insert: "Accept"},
		{name: "content type values", src: `api.rest.v1.post("crm", {}, {"Content-Type": |})`,
			want: []string{"application/json", "multipart/form-data"}, insert: `"application/json"`},
		{name: "content type in string", src: `api.rest.v1.post("crm", {}, {'content-type': 'mu|'}, {})`,
			want: []string{"application/json", "multipart/form-data"}, replaced: "mu", insert: "application/json"},
		{name: "other header value", src: `api.rest.v1.post("crm", {}, {Accept: "|"})`},

		{name: "response", src: "var r = api.rest.v1.get(\"crm\", {}, {});\nr.|", want: []string{"status", "headers", "body"}},
		{name: "response status", src: "let resp = api.rest.v1.post(\"crm\", {}, {}, {});\nresp.status.|",
			want: []string{"code", "message"}},
		{name: "response declared far back", src: farDecl + "far.|", want: []string{"status", "headers", "body"}},
		{name: "call result", src: "return api.rest.v1.get(\"crm\", {}, {}).b|", want: []string{"status", "headers", "body"}, replaced: "b"},
		{name: "other call result", src: "return foo(api.rest.v1.get(\"crm\", {}, {})).|"},
		{name: "reassigned", src: `var r = api.rest.v1.get("crm", {}, {}); r = 5; r.|`},
		{name: "exception", src: "try {\n  api.rest.v1.get(\"crm\", {}, {});\n} catch (e) {\n  e.|\n}",
			want: []string{"status", "body"}},
		{name: "exception status", src: "try { api.rest.v1.get(\"crm\", {}, {}) } catch (e) { if (e.status) { e.status.| } }",
			want: []string{"code", "message"}},
		{name: "exception in a long catch", src: longCatch + "  err.|", want: []string{"status", "body"}},
		{name: "catch without a call", src: `try { foo(); } catch (e) { e.| }`},
		{name: "catch parameter out of scope", src: `try { api.rest.v1.get("crm", {}, {}) } catch (e) { } e.|`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text, off := cursor(t, tc.src)
			var reg *config.Registry
			if !tc.nilReg {
				reg = testRegistry(t)
			}
			got := Complete(NewDocument(text), off, reg)
			if !slices.Equal(labels(got.Items), tc.want) {
				t.Fatalf("labels = %q, want %q", labels(got.Items), tc.want)
			}
			if len(got.Items) == 0 {
				return
			}
			it := got.Items[0]
			r := it.Replace
			if r.Start > off || r.End < off || r.Start < 0 || r.End > len(text) {
				t.Fatalf("replace %v does not hold the cursor %d", r, off)
			}
			if s := text[r.Start:r.End]; s != tc.replaced {
				t.Errorf("replace covers %q, want %q", s, tc.replaced)
			}
			if tc.insert != "" && it.InsertText != tc.insert {
				t.Errorf("insert = %q, want %q", it.InsertText, tc.insert)
			}
		})
	}
}

func TestCompleteServiceDetails(t *testing.T) {
	reg := testRegistry(t)
	text, off := cursor(t, `api.rest.v1.get("|")`)
	got := Complete(NewDocument(text), off, reg)
	byID := map[string]CompletionItem{}
	for _, it := range got.Items {
		byID[it.Label] = it
	}
	hr := byID["hr"]
	if hr.Detail != "https://hr.example.com/rest" || hr.Kind != ItemValue {
		t.Errorf("hr: detail %q kind %d", hr.Detail, hr.Kind)
	}
	if orders := byID["crm-orders"]; orders.Detail != "https://crm.example.com/api/v2/orders" {
		t.Errorf("crm-orders: %q", orders.Detail)
	}
	// The documentation of each item is in testdata/golden/complete/serviceIds.md.
	if _, ok := byID["broken"]; ok {
		t.Error("an unusable serviceId is offered")
	}
}

// AppendCompletion with LazyDocs gives the items of Complete without the serviceId
// documentation, which ServiceDoc builds on demand; other items keep theirs.
// AppendCompletion appends the same items to its slice, in its array when
// it has room.
func TestCompleteWithOptions(t *testing.T) {
	reg := testRegistry(t)
	for _, src := range []string{`api.rest.v1.get("|")`, `api.rest.v1.get(|`, `api.rest.v1.|`, `api.rest.v1.get("crm", {}, {"Content-Type": "|"})`} {
		text, off := cursor(t, src)
		full := Complete(NewDocument(text), off, reg)
		lazy := AppendCompletion(nil, NewDocument(text), off, reg, CompleteOptions{LazyDocs: true})
		if len(full.Items) == 0 || len(lazy.Items) != len(full.Items) || lazy.Incomplete != full.Incomplete {
			t.Fatalf("%s: %d lazy items, %d items", src, len(lazy.Items), len(full.Items))
		}
		for i, it := range lazy.Items {
			want := full.Items[i]
			if it.LazyDoc {
				if it.Documentation != "" || it.Kind != ItemValue {
					t.Errorf("%s: lazy item %+v", src, it)
				}
				it.Documentation, it.LazyDoc = ServiceDoc(reg, it.Label, Display{}), false
			}
			if it != want {
				t.Errorf("%s: item %d\n lazy %+v\n full %+v", src, i, it, want)
			}
		}
	}
	for _, src := range []string{`api.rest.v1.get("|")`, `api.rest.v1.|`, `// nothing here |`} {
		text, off := cursor(t, src)
		want := append([]string{"kept"}, labels(Complete(NewDocument(text), off, reg).Items)...)
		for _, room := range []int{1, 200} {
			dst := make([]CompletionItem, 1, room)
			dst[0].Label = "kept"
			got := AppendCompletion(dst, NewDocument(text), off, reg, CompleteOptions{})
			if !slices.Equal(labels(got.Items), want) {
				t.Errorf("%s, room %d: %q, want %q", src, room, labels(got.Items), want)
			}
			if inPlace := &got.Items[0] == &dst[0]; inPlace != (room >= len(want)) {
				t.Errorf("%s, room %d: items in dst's array: %v", src, room, inPlace)
			}
		}
		// An empty dst with room holds the serviceId items.
		dst := make([]CompletionItem, 0, 200)
		if got := AppendCompletion(dst, NewDocument(text), off, reg, CompleteOptions{}); src == `api.rest.v1.get("|")` && (len(got.Items) == 0 || &got.Items[0] != &dst[:1][0]) {
			t.Errorf("%s: the serviceId items are not in dst", src)
		}
	}
	if ServiceDoc(reg, "no-such-service", Display{}) != "" || ServiceDoc(nil, "crm", Display{}) != "" {
		t.Error("ServiceDoc of an unknown service is not empty")
	}
}

func TestCompleteManyServices(t *testing.T) {
	reg := bigRegistry(500)
	text, off := cursor(t, `api.rest.v1.get("|`)
	got := Complete(NewDocument(text), off, reg)
	if len(got.Items) != maxServiceItems || !got.Incomplete {
		t.Fatalf("%d items, incomplete %v; want %d, true", len(got.Items), got.Incomplete, maxServiceItems)
	}
	text, off = cursor(t, `api.rest.v1.get("SERVICE-0042|`)
	got = Complete(NewDocument(text), off, reg)
	want := make([]string, 10)
	for i := range want {
		want[i] = fmt.Sprintf("service-%05d", 420+i)
	}
	if !slices.Equal(labels(got.Items), want) || got.Incomplete {
		t.Fatalf("labels %q incomplete %v, want %q", labels(got.Items), got.Incomplete, want)
	}
	// Containing matches come after prefix matches.
	text, off = cursor(t, `api.rest.v1.get("0042|`)
	got = Complete(NewDocument(text), off, reg)
	if len(got.Items) != 11 || got.Items[0].Label != "service-00042" {
		t.Fatalf("contains matches: %q", labels(got.Items))
	}
	// Matches of one kind sort by label: no sort text is needed.
	for _, src := range []string{`api.rest.v1.get("0042|`, `api.rest.v1.get("service-0004|`} {
		text, off = cursor(t, src)
		got = Complete(NewDocument(text), off, reg)
		for _, it := range got.Items {
			if it.SortText != "" {
				t.Errorf("%s: %s has sort text %q", src, it.Label, it.SortText)
			}
		}
	}
	// Containing matches sort after prefix matches.
	text, off = cursor(t, `api.rest.v1.get("r|`)
	got = Complete(NewDocument(text), off, testRegistry(t))
	if len(got.Items) < 3 || got.Items[0].Label != "registry" || got.Items[0].SortText != "0registry" {
		t.Fatalf("mixed matches: %+v", got.Items)
	}
	for _, it := range got.Items[1:] {
		if it.SortText != "1"+it.Label {
			t.Errorf("containing match %s: sort text %q", it.Label, it.SortText)
		}
	}
}

func TestCompleteOddOffsets(t *testing.T) {
	reg := testRegistry(t)
	text := `api.rest.v1.get("zü`
	for off := -3; off <= len(text)+3; off++ {
		got := Complete(NewDocument(text), off, reg)
		for _, it := range got.Items {
			r := it.Replace
			if r.Start < 0 || r.End > len(text) || r.Start > r.End {
				t.Fatalf("offset %d: bad range %v", off, r)
			}
			if !isRuneBoundary(text, r.Start) || !isRuneBoundary(text, r.End) {
				t.Fatalf("offset %d: range %v splits a character", off, r)
			}
		}
	}
	if got := Complete(nil, 0, reg); len(got.Items) != 0 {
		t.Fatal("nil document has items")
	}
}

func isRuneBoundary(s string, i int) bool {
	return i == 0 || i == len(s) || i > 0 && i < len(s) && (s[i]&0xC0) != 0x80
}

// TestCompletionDocumentation compares the label, detail and Markdown
// documentation of the items offered at each kind of place with
// testdata/golden/complete/<name>.md.
func TestCompletionDocumentation(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"api", `var x = ap|`},
		{"api members", `api.|`},
		{"rest members", `api.rest.|`},
		{"calls", `api.rest.v1.|`},
		{"serviceIds", `api.rest.v1.get("|")`},
		{"path keys", `api.rest.v1.get("crm", {|})`},
		{"header names", `api.rest.v1.get("crm", {}, {|})`},
		{"content type values", `api.rest.v1.post("crm", {}, {"Content-Type": |})`},
		{"timeouts", `api.rest.v1.get("crm", {}, {}, {|})`},
		{"response", "var r = api.rest.v1.get(\"crm\", {}, {});\nr.|"},
		{"response status", "var r = api.rest.v1.get(\"crm\", {}, {});\nr.status.|"},
		{"exception", "try {\n  api.rest.v1.get(\"crm\", {}, {});\n} catch (e) {\n  e.|\n}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, off := cursor(t, tc.src)
			got := Complete(NewDocument(text), off, testRegistry(t))
			if len(got.Items) == 0 {
				t.Fatal("no items")
			}
			var b strings.Builder
			for i, it := range got.Items {
				if i > 0 {
					b.WriteString("\n")
				}
				fmt.Fprintf(&b, "## %s\n\n", it.Label)
				if it.Detail != "" {
					fmt.Fprintf(&b, "detail: %s\n\n", it.Detail)
				}
				fmt.Fprintf(&b, "%s\n", it.Documentation)
			}
			goldentest.Check(t, goldenPath("complete", tc.name), stableMarkdown(t, b.String()))
		})
	}
}
