package hints

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// describe renders a call site for comparison: method, id (or the dynamic
// expression as written), path and enclosing function.
func describeSite(text string, c CallSite) string {
	id := "id=" + text[c.IDRange.Start:c.IDRange.End]
	if c.Dynamic {
		id = "dynamic=" + text[c.IDRange.Start:c.IDRange.End]
	}
	return fmt.Sprintf("%s %s %s path=%q func=%s call=%s", c.Method, c.Name, id, c.Path, c.Func, text[c.NameRange.Start:c.NameRange.End])
}

func TestCallSites(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"top level", `var r = api.rest.v1.get("crm", {pathParams: ["customers", id, a.b, 1+2]}, {});`,
			[]string{`GET get id=crm path="/customers/{id}/{b}/{…}" func= call=get`}},
		{"nested functions", "function outer() {\n  api.rest.v1.post('hr', {}, {}, {});\n  var inner = () => api.rest.v1.delete(\"x\", {}, {});\n  const o = {m: function() { return api.rest.v1.patch(\"p\", {}, {}, {}); }};\n}\nclass C { run() { api.rest.v1.put(\"q\", {}, {}, {}); } }",
			[]string{`POST post id=hr path="" func=outer call=post`, `DELETE delete id=x path="" func=inner call=delete`,
				`PATCH patch id=p path="" func=m call=patch`, `PUT put id=q path="" func=run call=put`}},
		{"dynamic and unknown", "var id = 'crm' + env;\napi.rest.v1.get(id, {}, {});\napi.rest.v1.fetch(`crm`);\napi.rest.v1.get();",
			[]string{`GET get dynamic=id path="" func= call=get`, ` fetch dynamic=` + "`crm`" + ` path="" func= call=fetch`}},
		{"not a call of the api", `foo.rest.v1.get("a"); api.rest.v2.get("b"); context.api("c");`, nil},
		{"no v1 at all", `var x = 1;`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range CallSites(NewDocument(tc.text)) {
				if c.IDRange == (Range{}) && !c.Dynamic {
					got = append(got, fmt.Sprintf("%s %s none", c.Method, c.Name))
					continue
				}
				got = append(got, describeSite(tc.text, c))
			}
			want := tc.want
			if tc.name == "dynamic and unknown" {
				want = append(want, "GET get none")
			}
			if !slices.Equal(got, want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func FuzzCallSites(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Add("function a(){ var b = function(){ api.rest.v1.get('x\\u0041', {pathParams: [`t`]}) } }")
	f.Fuzz(func(t *testing.T, text string) {
		for _, c := range CallSites(NewDocument(text)) {
			checkRange(t, text, c.Call, "call")
			checkRange(t, text, c.NameRange, "name")
			checkRange(t, text, c.IDRange, "id")
			if c.Func != "" {
				checkRange(t, text, c.FuncRange, "func")
			}
			if !c.Dynamic && c.IDRange != (Range{}) && !strings.Contains(text[c.IDRange.Start:c.IDRange.End], `\`) &&
				text[c.IDRange.Start:c.IDRange.End] != c.ServiceID {
				t.Fatalf("id range %v holds %q, not %q", c.IDRange, text[c.IDRange.Start:c.IDRange.End], c.ServiceID)
			}
		}
	})
}
