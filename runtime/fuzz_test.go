package runtime

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/restls/restls/config"
	"github.com/restls/restls/runtime/restclient"
)

// FuzzValueConversion drives arbitrary JSON through every conversion
// between Go and the script: context.input in and the result out, a
// response body into native values and back, and the same values as call
// arguments (PATH, HEADER, PAYLOAD, TIMEOUTS), which must end in a result,
// a TypeError or a RestClientError, never anything else.
func FuzzValueConversion(f *testing.F) {
	for _, s := range []string{
		`{}`, `null`, `[1,"a",true,null,{"b":[]}]`, `"x"`, `-0`, `1e308`, `9007199254740993`,
		`{"pathParams":["a","..","b"],"queryParams":{"q":"1"}}`, `{"pathParams":["a/b","?#"],"queryParams":{"q":1}}`,
		`{"__proto__":{"x":1},"constructor":"c"}`, `"\ud800"`, `{"a":"\u0000\r\n"}`, `{"X-A":"v","Content-Type":"multipart/form-data"}`,
		`{"connectionTimeout":5,"readTimeout":1.5}`, `{"a":1,"a":2}`,
	} {
		f.Add([]byte(s))
	}
	reg := config.NewRegistry(config.ScriptService, []config.Service{{ID: "svc", URL: "https://svc.example.com/base?k=v"}}, config.DefaultTimeouts, nil)
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) || !utf8.Valid(data) {
			return
		}
		var want any
		if err := json.Unmarshal(data, &want); err != nil {
			return // numbers Go cannot hold; JavaScript makes them Infinity
		}
		sameJSON := func(label string, got json.RawMessage) {
			var g any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("%s: result %q is not JSON: %v", label, got, err)
			}
			if !reflect.DeepEqual(g, want) {
				t.Fatalf("%s: %s came back as %s", label, data, got)
			}
		}
		// Go -> script -> Go.
		res := Run(context.Background(), Options{Source: `return context.input;`, Registry: reg, Input: data})
		if res.Error != nil {
			t.Fatalf("input: %+v", *res.Error)
		}
		sameJSON("context.input", res.Result)

		text, _ := json.Marshal(string(data))
		m, err := restclient.ParseMock("fuzz.json", []byte(`[{"serviceId":"svc","path":"**","bodyText":`+string(text)+`,"headers":{"Content-Type":"application/json"}}]`))
		if err != nil {
			t.Fatal(err)
		}
		res = Run(context.Background(), Options{Source: `return api.rest.v1.get("svc", {}, {}).body;`, Registry: reg, Mock: m})
		if res.Error != nil {
			t.Fatalf("response body: %+v", *res.Error)
		}
		sameJSON("response body", res.Result)

		// The value as every argument: only defined outcomes.
		res = Run(context.Background(), Options{Source: `
var v = context.input, out = [];
[function () { return api.rest.v1.get("svc", v, v); },
 function () { return api.rest.v1.get("svc", {}, {}, v); },
 function () { return api.rest.v1.post("svc", {}, v, v); },
 function () { return api.rest.v1.patch("svc", v, {}, v, v); }].forEach(function (f) {
  try { f(); out.push("ok"); }
  catch (e) {
    if (e instanceof TypeError) { out.push("TypeError"); return; }
    if (e && e.name === "RestClientError") { out.push(e.code); return; }
    throw e;
  }
});
return out;`, Registry: reg, Mock: m, Input: data})
		if res.Error != nil {
			t.Fatalf("arguments %s: %+v", data, *res.Error)
		}
		for _, c := range res.Calls {
			if c.URL != "" && !strings.HasPrefix(c.URL, "https://svc.example.com/base") {
				t.Fatalf("url %q left the base", c.URL)
			}
		}
	})
}
