package workspace

import (
	"fmt"
	"strings"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/openapi"
)

const fixtureDescription = `{"openapi":"3.1.0","info":{"title":"Shop","version":"1"},"paths":{"/orders/{id}":{"get":{
	"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","required":["id"],"properties":{
		"id":{"type":"integer"},"items":{"type":"array","items":{"type":"object","properties":{"a/b":{"type":"string"}}}}}}}}},
	"404":{"description":"none"}}}}}}`

func fixtureSet(t testing.TB) *openapi.Set {
	t.Helper()
	idx, err := openapi.BuildAnswers("shop.json", []byte(fixtureDescription))
	if err != nil {
		t.Fatal(err)
	}
	reg := config.NewRegistry(config.ScriptService, []config.Service{{ID: "shop", URL: "https://shop.example.com/api"}}, config.Timeouts{}, nil)
	return openapi.Attach(reg, []openapi.Doc{{ServiceID: "shop", Location: "shop.json", Index: idx}})
}

// TestCheckFixtures: the findings sit on the value at fault (a pointer
// token with "/" escaped, an alias followed), the status, or the fixture
// when it has no status key; escaped and wildcard path segments match.
func TestCheckFixtures(t *testing.T) {
	set := fixtureSet(t)
	for _, tc := range []struct{ name, doc, want string }{
		{"escaped pointer", "- serviceId: shop\n  method: get\n  path: orders/1\n  body:\n    id: 1\n    items:\n      - a/b: 3\n", "7:14 openapi-fixture-body /items/0/a~1b"},
		{"status", "- serviceId: shop\n  method: GET\n  path: orders/*\n  status: 409\n", "4:11 openapi-fixture-status"},
		{"missing field on the object", "fixtures:\n  - serviceId: shop\n    method: GET\n    path: 'orders/\\7'\n    body: {items: []}\n", "5:11 openapi-fixture-body the body"},
		{"alias", "x: &b {id: no}\nfixtures:\n  - {serviceId: shop, method: GET, path: orders/1, body: *b}\n", "1:12 openapi-fixture-body /id"},
		{"text body said JSON", "- serviceId: shop\n  method: GET\n  path: orders/1\n  headers: {Content-Type: application/json}\n  bodyText: '{\"id\": \"x\"}'\n", "1:3 openapi-fixture-body /id"},
		{"text body", "- serviceId: shop\n  method: GET\n  path: orders/1\n  bodyText: 'plain'\n", ""},
		{"unknown path", "- serviceId: shop\n  method: GET\n  path: carts/1\n  status: 500\n", ""},
		{"not a fixture list", "script: x.js\n", ""},
		{"broken", "- [", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, p := range CheckFixtures([]byte(tc.doc), set) {
				got = append(got, fmt.Sprintf("%d:%d %s %s", p.Line, p.RuneCol, p.Code, p.Message))
			}
			if tc.want == "" {
				if len(got) > 0 {
					t.Fatalf("findings %q, want none", got)
				}
				return
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], tc.want[:strings.Index(tc.want+" ", " ")]) {
				t.Fatalf("findings %q, want one at %s", got, tc.want)
			}
			for _, part := range strings.Fields(tc.want)[1:] {
				if !strings.Contains(got[0], part) {
					t.Errorf("finding %q does not say %q", got[0], part)
				}
			}
		})
	}
}

// FuzzCheckFixtures: any document gives findings at a place in it, never
// a panic; deep and large documents are bounded by input's budget.
func FuzzCheckFixtures(f *testing.F) {
	f.Add([]byte("- serviceId: shop\n  method: GET\n  path: orders/1\n  body: {id: x, items: [{a/b: 1}]}\n"))
	f.Add([]byte(`[{"serviceId":"shop","method":"GET","path":"orders/*","status":500}]`))
	f.Add([]byte("cases:\n  - fixtures:\n      - {serviceId: shop, method: GET, path: orders/1, body: {id: [" + strings.Repeat("[", 300) + "]}}\n"))
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "- {serviceId: shop, method: GET, path: orders/%d, body: {id: s%d}}\n", i, i)
	}
	f.Add([]byte(b.String()))
	set := fixtureSet(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := strings.Count(string(data), "\n") + 1
		for _, p := range CheckFixtures(data, set) {
			if p.Line < 1 || p.Line > lines || p.RuneCol < 1 || p.Code == "" || p.Message == "" {
				t.Fatalf("finding without a place: %+v", p)
			}
		}
	})
}
