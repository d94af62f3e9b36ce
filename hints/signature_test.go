package hints

import (
	"strings"
	"testing"
)

func TestSignature(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		call   string // "" = no signature
		active int
	}{
		{"open", `api.rest.v1.get(|`, "get", 0},
		{"second", `api.rest.v1.get("a", |`, "get", 1},
		{"commas in strings and objects", `api.rest.v1.post("a,b", {x: [1, 2], y: {z: ","}}, {}, |`, "post", 3},
		{"comma in comment", "api.rest.v1.put(\"a\", /* , */ {}, // ,\n |", "put", 2},
		{"inside object argument", `api.rest.v1.patch("a", {pathParams: ["x", |`, "patch", 1},
		{"nested call", `api.rest.v1.get("a", {pathParams: [foo(1, |`, "get", 1},
		{"inside serviceId string", `api.rest.v1.delete("cr|`, "delete", 0},
		{"template argument", "api.rest.v1.post(\"a\", {}, {}, `x,${y, z}`, |", "post", 4},
		{"non-ASCII", `api.rest.v1.get('ü', '€', |`, "get", 2},
		{"multi-line half-typed", "var r = api.rest.v1.get(\n  \"crm\",\n  {},\n  |\nvar next = 1;", "get", 2},
		{"extra argument", `api.rest.v1.get(1, 2, 3, 4, |`, "get", 4},
		{"call opened before the near window", "api.rest.v1.post(\"crm\", {}, {}, {\n" + strings.Repeat("  field: 'a value that makes the payload long',\n", 150) + "}, |", "post", 4},
		{"other call", `foo(|`, "", 0},
		{"after the call", `api.rest.v1.get("a", {}, {}); |`, "", 0},
		{"in a comment", `api.rest.v1.get( // |`, "", 0},
		{"unknown call", `api.rest.v1.gett(|`, "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text, off := cursor(t, tc.src)
			got, ok := Signature(NewDocument(text), off, nil)
			if tc.call == "" {
				if ok {
					t.Fatalf("signature %q, want none", got.Label)
				}
				return
			}
			if !ok {
				t.Fatal("no signature")
			}
			c := calls[callIndex(tc.call)]
			if got.Label != c.Signature || got.ActiveParam != tc.active || len(got.Params) != len(c.Params) {
				t.Fatalf("got %q active %d, want %q active %d", got.Label, got.ActiveParam, c.Signature, tc.active)
			}
		})
	}
}

func TestCalls(t *testing.T) {
	cs := Calls()
	want := []struct {
		name, method, sig string
		payload           bool
	}{
		{"get", "GET", "api.rest.v1.get(serviceId, path, header, timeouts?)", false},
		{"delete", "DELETE", "api.rest.v1.delete(serviceId, path, header, timeouts?)", false},
		{"post", "POST", "api.rest.v1.post(serviceId, path, header, payload, timeouts?)", true},
		{"put", "PUT", "api.rest.v1.put(serviceId, path, header, payload, timeouts?)", true},
		{"patch", "PATCH", "api.rest.v1.patch(serviceId, path, header, payload, timeouts?)", true},
	}
	if len(cs) != len(want) {
		t.Fatalf("%d calls", len(cs))
	}
	for i, w := range want {
		c := cs[i]
		if c.Name != w.name || c.Method != w.method || c.Signature != w.sig || c.HasPayload != w.payload || c.Documentation == "" {
			t.Errorf("call %d = %+v", i, c)
		}
		for _, p := range c.Params {
			if p.Documentation == "" {
				t.Errorf("%s: parameter %s undocumented", c.Name, p.Label)
			}
		}
	}
	// The result is the caller's to modify.
	cs[0].Params[0].Label = "changed"
	cs[0].Name = "changed"
	if again := Calls(); again[0].Params[0].Label != "serviceId" || again[0].Name != "get" {
		t.Fatal("Calls shares its state with callers")
	}
}
