package hints

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/restls/restls/config"
)

// applyFix returns text with the fix's edits applied.
func applyFix(t *testing.T, text string, f Fix) string {
	t.Helper()
	edits := slices.Clone(f.Edits)
	sort.Slice(edits, func(i, j int) bool { return edits[i].Range.Start > edits[j].Range.Start })
	for _, e := range edits {
		if e.Range.Start < 0 || e.Range.End > len(text) || e.Range.Start > e.Range.End {
			t.Fatalf("fix %q: bad range %v", f.Title, e.Range)
		}
		text = text[:e.Range.Start] + e.NewText + text[e.Range.End:]
	}
	return text
}

func TestDiagnose(t *testing.T) {
	type want struct {
		code   string
		covers string // the text the diagnostic's range covers
		msg    string // a substring of the message
		fixed  string // the text after applying the preferred fix; "" = no fix expected
	}
	tests := []struct {
		name   string
		src    string
		nilReg bool
		want   []want
	}{
		{name: "clean script", src: `// restls-kind: scriptService
var r = api.rest.v1.get("crm", {pathParams: ["customers", id], queryParams: {page: "1", q: String(n)}},
    {"Content-Type": "application/json"}, {connectionTimeout: 5000, readTimeout: 100});
api.rest.v1.post("crm-orders", {}, {}, {name: "x"});
api.rest.v1.delete("registry", {}, {}, {});
try { api.rest.v1.put("hr", {}, {}, {}, {}); } catch (e) { if (e.status && e.status.code) { return null; } throw e; }
return r.body;`},
		{name: "syntax error", src: "var ä = \"ö\";\nvar x = ;", want: []want{{CodeSyntax, ";", "Unexpected token", ""}}},
		{name: "syntax error after CRLF and U+2028", src: "var a = '\u2028';\r\nvar b = 1;\r\nvar c = )", want: []want{{CodeSyntax, ")", "Unexpected", ""}}},
		{name: "syntax error at end", src: `api.rest.v1.get("crm", {}, {}`, want: []want{{CodeSyntax, "", "end of input", ""}}},
		{name: "stray brace", src: "var a = 1;\n}\nreturn a;", want: []want{{CodeSyntax, "}", "closes more than is open", ""}}},
		{name: "stray paren", src: "var a = (1));\nvar b = ;", want: []want{{CodeSyntax, ")", "closes more than is open", ""}}},
		{name: "stray brace making a call", src: "}\n(function(){", want: []want{{CodeSyntax, "", "", ""}}},
		{name: "top-level return", src: "return 1;"},
		{name: "unknown service", src: `var ü = "€"; api.rest.v1.get("crn", {}, {})`,
			want: []want{{CodeUnknownService, "crn", `did you mean "crm"`, `var ü = "€"; api.rest.v1.get("crm", {}, {})`}}},
		{name: "unknown service single quotes", src: `api.rest.v1.get('hx', {}, {})`,
			want: []want{{CodeUnknownService, "hx", `"hr"`, `api.rest.v1.get('hr', {}, {})`}}},
		{name: "unknown service far from all", src: `api.rest.v1.get("zzzzzzzzzz", {}, {})`,
			want: []want{{CodeUnknownService, "zzzzzzzzzz", "no service with this id", ""}}},
		{name: "unknown service nil registry", src: `api.rest.v1.get("crn", {}, {})`, nilReg: true},
		{name: "serviceId in a variable", src: `api.rest.v1.get(id, {}, {})`},
		{name: "unusable service", src: `api.rest.v1.get("broken", {}, {})`,
			want: []want{{CodeUnusableService, "broken", "script-service-api.xml:15:3", ""}}},
		{name: "unknown call", src: `api.rest.v1.gett("crm", {}, {})`,
			want: []want{{CodeUnknownCall, "gett", "no call", `api.rest.v1.get("crm", {}, {})`}}},
		{name: "missing arguments", src: `api.rest.v1.post("crm")`,
			want: []want{{CodeMissingArgument, "post", "missing path, header, payload", ""}}},
		{name: "extra argument", src: `api.rest.v1.get("crm", {}, {}, {readTimeout: 1}, 2, 3)`,
			want: []want{{CodeExtraArgument, "2, 3", "at most 4", `api.rest.v1.get("crm", {}, {}, {readTimeout: 1})`}}},
		{name: "payload to get", src: `api.rest.v1.get("crm", {}, {}, {name: "x"})`,
			want: []want{{CodePayloadNotAllowed, `{name: "x"}`, "sends no payload", `api.rest.v1.get("crm", {}, {})`}}},
		{name: "payload and timeouts to delete", src: `api.rest.v1.delete("crm", {}, {}, body, {readTimout: 1})`,
			want: []want{
				{CodePayloadNotAllowed, "body", "delete sends no payload", `api.rest.v1.delete("crm", {}, {}, {readTimout: 1})`},
				{CodeUnknownTimeoutKey, "readTimout", `"readTimeout"`, `api.rest.v1.delete("crm", {}, {}, body, {readTimeout: 1})`},
			}},
		{name: "authorization only header", src: `api.rest.v1.get("crm", {}, {Authorization: "Bearer x", })`,
			want: []want{{CodeHardcodedAuthorization, `Authorization: "Bearer x"`, `configure authorization for serviceId "crm"`,
				`api.rest.v1.get("crm", {}, {})`}}},
		{name: "authorization only header, spaced", src: `api.rest.v1.get("crm", {}, { Authorization: "Bearer x" })`,
			want: []want{{CodeHardcodedAuthorization, `Authorization: "Bearer x"`, "", `api.rest.v1.get("crm", {}, {})`}}},
		{name: "authorization only header, on its own line", src: "api.rest.v1.get(\"crm\", {}, {\n  Authorization: \"Bearer x\",\n})",
			want: []want{{CodeHardcodedAuthorization, `Authorization: "Bearer x"`, "", `api.rest.v1.get("crm", {}, {})`}}},
		{name: "authorization only header, a comment stays", src: `api.rest.v1.get("crm", {}, { /* why */ Authorization: "Bearer x" })`,
			want: []want{{CodeHardcodedAuthorization, `Authorization: "Bearer x"`, "", `api.rest.v1.get("crm", {}, { /* why */  })`}}},
		{name: "authorization first", src: `api.rest.v1.get("registry", {}, {"authorization": "x", Accept: "a"})`,
			want: []want{{CodeHardcodedAuthorization, `"authorization": "x"`, "has basic authorization configured, which replaces",
				`api.rest.v1.get("registry", {}, {Accept: "a"})`}}},
		{name: "authorization last", src: "api.rest.v1.get(\"hr\", {}, {\n  Accept: \"a\",\n  AUTHORIZATION: token\n})",
			want: []want{{CodeHardcodedAuthorization, "AUTHORIZATION: token", "oAuth client_credentials",
				"api.rest.v1.get(\"hr\", {}, {\n  Accept: \"a\"\n})"}}},
		{name: "timeout above maximum", src: `api.rest.v1.post("crm", {}, {}, {}, {connectionTimeout: 6000, readTimeout: 20000.5})`,
			want: []want{
				{CodeTimeoutAboveMaximum, "6000", "will be clamped to 5000", `api.rest.v1.post("crm", {}, {}, {}, {connectionTimeout: 5000, readTimeout: 20000.5})`},
				{CodeTimeoutNotNumber, "20000.5", "positive whole number", `api.rest.v1.post("crm", {}, {}, {}, {connectionTimeout: 6000, readTimeout: 20000})`},
			}},
		{name: "path segment number", src: `api.rest.v1.get("crm", {pathParams: ["customers", 42, true, x]}, {})`,
			want: []want{
				{CodePathParamNotString, "42", "must be strings, not the number 42", `api.rest.v1.get("crm", {pathParams: ["customers", "42", true, x]}, {})`},
				{CodePathParamNotString, "true", "not the boolean true", `api.rest.v1.get("crm", {pathParams: ["customers", 42, "true", x]}, {})`},
			}},
		{name: "pathParams not an array", src: `api.rest.v1.get("crm", {pathParams: "customers/1"}, {})`,
			want: []want{{CodePathParamNotString, `"customers/1"`, "array of strings", ""}}},
		{name: "pathParams null and template", src: "api.rest.v1.get(\"crm\", {pathParams: [`c${i}`]}, {}); api.rest.v1.get(\"crm\", {pathParams: null}, {})"},
		{name: "serviceId not a string", src: `api.rest.v1.get(42, {}, {}); api.rest.v1.get("", {}, {})`,
			want: []want{
				{CodeServiceIDNotString, "42", "not the number 42", ""},
				{CodeUnknownService, "", `unknown serviceId ""`, ""},
			}},
		{name: "path and header not objects", src: `api.rest.v1.get("crm", [], null)`,
			want: []want{
				{CodeArgumentNotObject, "[]", "PATH must be an object, not an array", ""},
				{CodeArgumentNotObject, "null", "HEADER must be an object, not null", ""},
			}},
		{name: "queryParams not an object", src: `api.rest.v1.get("crm", {queryParams: "a=1"}, {}); api.rest.v1.get("crm", {queryParams: null}, {})`,
			want: []want{{CodeArgumentNotObject, `"a=1"`, "PATH.queryParams must be an object", ""}}},
		{name: "header value number", src: `api.rest.v1.get("crm", {}, {"X-Page": 2, "X-Id": id})`,
			want: []want{{CodeHeaderValueNotString, "2", "header values must be strings", `api.rest.v1.get("crm", {}, {"X-Page": "2", "X-Id": id})`}}},
		{name: "payload undefined or function", src: `api.rest.v1.post("crm", {}, {}, undefined); api.rest.v1.put("crm", {}, {}, function(){})`,
			want: []want{
				{CodeArgumentNotObject, "undefined", "PAYLOAD is undefined", ""},
				{CodeArgumentNotObject, "function(){}", "PAYLOAD is a function", ""},
			}},
		{name: "timeouts not numbers", src: `api.rest.v1.get("crm", {}, {}, {readTimeout: "1000", connectionTimeout: 0}); api.rest.v1.get("crm", {}, {}, 5000)`,
			want: []want{
				{CodeTimeoutNotNumber, `"1000"`, "not a string", `api.rest.v1.get("crm", {}, {}, {readTimeout: 1000, connectionTimeout: 0}); api.rest.v1.get("crm", {}, {}, 5000)`},
				{CodeTimeoutNotNumber, "0", "not the number 0", ""},
				{CodeArgumentNotObject, "5000", "TIMEOUTS must be an object", ""},
			}},
		{name: "timeouts null", src: `api.rest.v1.get("crm", {}, {}, null)`},
		{name: "timeout defaults without registry", src: `api.rest.v1.get(x, {}, {}, {readTimeout: 30001})`, nilReg: true,
			want: []want{{CodeTimeoutAboveMaximum, "30001", "clamped to 30000", `api.rest.v1.get(x, {}, {}, {readTimeout: 30000})`}}},
		{name: "quoted unknown timeout key", src: `api.rest.v1.get(x, {}, {}, {"connectTimeout": 1})`,
			want: []want{{CodeUnknownTimeoutKey, `"connectTimeout"`, "", `api.rest.v1.get(x, {}, {}, {"connectionTimeout": 1})`}}},
		{name: "unknown path key", src: `api.rest.v1.get(x, {pathParam: ["a"], extra: 1}, {})`,
			want: []want{
				{CodeUnknownPathKey, "pathParam", `"pathParams"`, `api.rest.v1.get(x, {pathParams: ["a"], extra: 1}, {})`},
				{CodeUnknownPathKey, "extra", "pathParams and queryParams", ""},
			}},
		{name: "non-ASCII shorthand path key", src: `api.rest.v1.get(x, {äöü, pathParams}, {})`,
			want: []want{{CodeUnknownPathKey, "äöü", "", ""}}},
		{name: "query values", src: `api.rest.v1.get(x, {queryParams: {a: 1, b: true, c: null, d: "ok", e: n}}, {})`,
			want: []want{
				{CodeQueryValueNotString, "1", "always strings", `api.rest.v1.get(x, {queryParams: {a: "1", b: true, c: null, d: "ok", e: n}}, {})`},
				{CodeQueryValueNotString, "true", "", `api.rest.v1.get(x, {queryParams: {a: 1, b: "true", c: null, d: "ok", e: n}}, {})`},
				{CodeQueryValueNotString, "null", "", ""},
			}},
		{name: "context.api", src: `var r = context.api("x", "GET");`, want: []want{{CodeContextAPI, "context.api", "api.rest.v1", ""}}},
		{name: "nested in functions and templates", src: "var f = () => [1].map(function (x) { return `${api.rest.v1.get(\"crn\", {}, {})}`; });",
			want: []want{{CodeUnknownService, "crn", "", "var f = () => [1].map(function (x) { return `${api.rest.v1.get(\"crm\", {}, {})}`; });"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var reg *config.Registry
			if !tc.nilReg {
				reg = testRegistry(t)
			}
			got := Diagnose(NewDocument(tc.src), reg, Display{})
			var gotDesc []string
			for _, d := range got {
				gotDesc = append(gotDesc, fmt.Sprintf("%s %q: %s", d.Code, tc.src[d.Range.Start:d.Range.End], d.Message))
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d diagnostics, want %d:\n%s", len(got), len(tc.want), strings.Join(gotDesc, "\n"))
			}
			for i, w := range tc.want {
				d := got[i]
				if d.Code != w.code || tc.src[d.Range.Start:d.Range.End] != w.covers && w.covers != "" || !strings.Contains(d.Message, w.msg) {
					t.Errorf("diagnostic %d = %s\nwant %s %q: ...%s...", i, gotDesc[i], w.code, w.covers, w.msg)
				}
				if d.Severity < SeverityError || d.Severity > SeverityHint {
					t.Errorf("diagnostic %d: severity %d", i, d.Severity)
				}
				var preferred *Fix
				for j := range d.Fixes {
					if d.Fixes[j].Preferred {
						if preferred != nil {
							t.Errorf("diagnostic %d: two preferred fixes", i)
						}
						preferred = &d.Fixes[j]
					}
				}
				switch {
				case w.fixed == "" && preferred != nil:
					t.Errorf("diagnostic %d: unexpected fix %q", i, preferred.Title)
				case w.fixed != "" && preferred == nil:
					t.Errorf("diagnostic %d: no preferred fix", i)
				case w.fixed != "":
					if fixed := applyFix(t, tc.src, *preferred); fixed != w.fixed {
						t.Errorf("diagnostic %d: fix %q gives\n%s\nwant\n%s", i, preferred.Title, fixed, w.fixed)
					} else if again := Diagnose(NewDocument(fixed), reg, Display{}); len(again) >= len(got) {
						t.Errorf("diagnostic %d: the fixed text still has %d diagnostics", i, len(again))
					}
				}
			}
		})
	}
}

func TestDiagnoseNearestFixes(t *testing.T) {
	reg := testRegistry(t)
	src := `api.rest.v1.get("crm-order", {}, {})`
	got := Diagnose(NewDocument(src), reg, Display{})
	if len(got) != 1 || len(got[0].Fixes) == 0 {
		t.Fatalf("got %+v", got)
	}
	var titles []string
	for _, f := range got[0].Fixes {
		titles = append(titles, f.Title)
	}
	if titles[0] != `Change to "crm-orders"` || !got[0].Fixes[0].Preferred {
		t.Fatalf("fixes %q", titles)
	}
	for _, f := range got[0].Fixes[1:] {
		if f.Preferred {
			t.Errorf("%q is preferred too", f.Title)
		}
	}
}

// The document is parsed once, however many goroutines ask.
func TestDocumentConcurrent(t *testing.T) {
	reg := testRegistry(t)
	doc := NewDocument(`api.rest.v1.get("crn", {}, {})`)
	done := make(chan []Diagnostic)
	for range 8 {
		go func() { done <- Diagnose(doc, reg, Display{}) }()
	}
	for range 8 {
		if d := <-done; len(d) != 1 || d[0].Code != CodeUnknownService {
			t.Fatalf("got %+v", d)
		}
	}
	if doc.Text() != `api.rest.v1.get("crn", {}, {})` || (*Document)(nil).Text() != "" {
		t.Fatal("Text")
	}
	if Diagnose(nil, reg, Display{}) != nil {
		t.Fatal("nil document has diagnostics")
	}
}

// No feature ever shows a credential of the configuration.
func TestNoCredentials(t *testing.T) {
	reg := testRegistry(t)
	secrets := []string{"cmVnaXN0cnktdXNlcjpyM2c1dHJ5LXA0c3M=", "registry-user", "r3g5try-p4ss", "hr-Cl1ent-S3cret"}
	src := `var a = api.rest.v1.get("registry", {}, {Authorization: "x"});
var b = api.rest.v1.get("hr", {}, {Authorization: "x"});
var c = api.rest.v1.get("registr", {}, {});
var d = api.rest.v1.get("", {}, {});`
	doc := NewDocument(src)
	var out strings.Builder
	for off := 0; off <= len(src); off++ {
		c := Complete(doc, off, reg)
		fmt.Fprintf(&out, "%+v\n", c)
		h, _ := HoverAt(doc, off, reg, Display{})
		fmt.Fprintf(&out, "%+v\n", h)
	}
	fmt.Fprintf(&out, "%+v\n", Diagnose(doc, reg, Display{}))
	for _, s := range secrets {
		if strings.Contains(out.String(), s) {
			t.Errorf("a hint shows the credential %q", s)
		}
	}
	if !strings.Contains(out.String(), "Authorization: basic") {
		t.Error("the test saw no service documentation")
	}
}
