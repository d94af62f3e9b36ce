package openapi

import (
	"os"
	"strings"
	"testing"
)

func load(t *testing.T, file string) *Index {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := Build(file, data)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

func lit(parts ...string) []Seg {
	var out []Seg
	for _, p := range parts {
		if p == "?" {
			out = append(out, Seg{Computed: true})
		} else {
			out = append(out, Seg{Text: p})
		}
	}
	return out
}

func TestShop30(t *testing.T) {
	t.Parallel()
	idx := load(t, "testdata/shop.yaml")
	if idx.Version != "3.0.3" || len(idx.Servers) != 1 || idx.Servers[0] != "https://shop.example.test/api" {
		t.Fatalf("version %q servers %v", idx.Version, idx.Servers)
	}
	api := API{Index: idx}
	op, _ := api.Match("GET", lit("orders"))
	if op == nil || op.Line != 9 || op.DocsURL == "" || len(op.Query) != 2 {
		t.Fatalf("GET /orders = %+v", op)
	}
	if q := op.Query[1]; q.Name != "status" || !q.Required || strings.Join(q.Enum, ",") != "open,closed" {
		t.Errorf("status = %+v", q)
	}
	if q := op.Query[0]; q.Name != "limit" || q.Default != "20" || q.Type != "integer" {
		t.Errorf("limit = %+v", q)
	}
	if op.Response.Type != "array" || op.Response.Items.Prop("customer").Schema.Prop("manager").Schema.Prop("name") == nil {
		t.Errorf("response = %+v", op.Response)
	}
	post, _ := api.Match("POST", lit("orders"))
	if p := post.Body.Prop("quantity"); p == nil || !p.Required {
		t.Errorf("body = %+v", post.Body)
	}
	if p := post.Body.Prop("address").Schema.Prop("city"); p == nil || !p.Required {
		t.Errorf("address.city = %+v", p)
	}
	if len(post.Errors) != 1 || post.Errors[0].Schema.Prop("message") == nil {
		t.Errorf("errors = %+v", post.Errors)
	}
	del, others := api.Match("DELETE", lit("orders", "?"))
	if del == nil || !del.Deprecated || len(others) != 1 || del.PathParams[0].Description != "The order's number." {
		t.Errorf("delete = %+v others %v", del, others)
	}
	if op, others := api.Match("PATCH", lit("orders", "7")); op != nil || len(others) != 2 {
		t.Errorf("patch = %v %v", op, others)
	}
	cust, _ := api.Match("GET", lit("customers", "?"))
	for _, p := range []string{"name", "email", "manager", "vip"} {
		if cust.Response.Prop(p) == nil {
			t.Errorf("customer has no %s: %+v", p, cust.Response.Props)
		}
	}
	photo, _ := api.Match("PUT", lit("customers", "c1", "photo"))
	if photo.BodyMedia != "multipart/form-data" || !photo.Body.Prop("file").Required {
		t.Errorf("photo = %+v", photo)
	}
	var next []string
	for _, n := range api.Next("GET", lit("orders", "?")) {
		next = append(next, n.Segment)
	}
	if strings.Join(next, ",") != "items" {
		t.Errorf("next = %v", next)
	}
	if n := api.Next("GET", lit("customers")); len(n) != 1 || n[0].Segment != "{id}" || n[0].Param == nil {
		t.Errorf("next = %+v", n)
	}
	if got := api.Nearest(lit("order", "?", "itemz")); got != "/orders/{orderId}/items" {
		t.Errorf("nearest = %q", got)
	}
	if got := api.NearestSegment(lit("ordrs")); got != "orders" {
		t.Errorf("nearest segment = %q", got)
	}
	pre := API{Index: idx, Prefix: []string{"orders"}}
	if op, _ := pre.Match("GET", lit("?", "items")); op == nil || op.Path != "/orders/{orderId}/items" {
		t.Errorf("prefixed = %+v", op)
	}
}

func TestThings31(t *testing.T) {
	t.Parallel()
	idx := load(t, "testdata/things31.json")
	api := API{Index: idx}
	op, _ := api.Match("GET", lit("things", "?"))
	if op == nil || op.Response.Type != "object" || op.Response.Prop("parts").Schema.Items.Prop("label") == nil {
		t.Fatalf("get = %+v", op)
	}
	if q := op.Query[0]; q.Type != "string" || !q.Required || len(q.Enum) != 2 {
		t.Errorf("fields = %+v", q)
	}
	if len(idx.Problems) != 1 || !strings.Contains(idx.Problems[0].Message, "Missing") || idx.Problems[0].Line == 0 {
		t.Errorf("problems = %+v", idx.Problems)
	}
}

func TestBadDescriptions(t *testing.T) {
	t.Parallel()
	for name, text := range map[string]string{
		"not json":    "{",
		"not openapi": `{"a": 1}`,
		"list":        "- 1\n- 2\n",
		"yaml error":  "a: [",
		"paths":       `{"openapi": "3.0.0", "paths": []}`,
		"deep":        strings.Repeat("[", 1000) + strings.Repeat("]", 1000),
		"alias bomb":  "a: &a [1, 2]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n",
	} {
		if _, err := Build(name, []byte(text)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestRecorded(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../testdata/mocks/customer-summary.yaml")
	if err != nil {
		t.Fatal(err)
	}
	idx, err := BuildRecorded("customer-summary.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	api := API{Index: idx, Prefix: []string{"crm-orders"}}
	op, _ := api.Match("GET", nil)
	if op == nil || op.Response.Type != "array" || op.Response.Items.Prop("amount") == nil || op.Response.Items.Prop("amount").Schema.Type != "number" {
		t.Fatalf("crm-orders = %+v", op)
	}
	pay := API{Index: idx, Prefix: []string{"payments"}}
	if op, _ := pay.Match("GET", lit("accounts", "?", "balance")); op == nil || op.Response.Prop("currency") == nil || op.Line == 0 {
		t.Errorf("payments = %+v", op)
	}
	if _, err := BuildRecorded("x", []byte(`{"a": 1}`)); err == nil {
		t.Error("not a fixture file: no error")
	}
}

func TestSwagger2(t *testing.T) {
	t.Parallel()
	idx, err := Build("s.json", []byte(`{"swagger": "2.0", "host": "api.example.test", "basePath": "/v1/", "schemes": ["https"],
 "paths": {"/pets/{id}": {"parameters": [{"name": "id", "in": "path", "required": true, "type": "integer"}],
  "get": {"parameters": [{"name": "tag", "in": "query", "type": "string", "enum": ["a", "b"], "default": "a"}],
   "responses": {"200": {"description": "ok", "schema": {"$ref": "#/definitions/Pet"}}}},
  "post": {"parameters": [{"name": "photo", "in": "formData", "type": "file", "required": true}, {"name": "note", "in": "formData", "type": "string"}],
   "responses": {"201": {"description": "ok"}}}}},
 "definitions": {"Pet": {"type": "object", "properties": {"name": {"type": "string"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Servers) != 1 || idx.Servers[0] != "https://api.example.test/v1" {
		t.Errorf("servers = %v", idx.Servers)
	}
	api := API{Index: idx}
	get, _ := api.Match("GET", lit("pets", "1"))
	if get == nil || get.Response.Prop("name") == nil || get.Query[0].Default != "a" || len(get.Query[0].Enum) != 2 || get.PathParams[0].Type != "integer" {
		t.Fatalf("get = %+v", get)
	}
	post, _ := api.Match("POST", lit("pets", "1"))
	if post == nil || post.BodyMedia != "multipart/form-data" || !post.Body.Prop("photo").Required || post.Body.Prop("note") == nil {
		t.Fatalf("post = %+v", post)
	}
}

// TestMemoForIsBounded: MemoFor hands out one slot per key, keeps the
// MaxMemos used last, and builds a slot again for a key it dropped.
func TestMemoForIsBounded(t *testing.T) {
	t.Parallel()
	idx, err := Build("a.yaml", []byte("openapi: 3.0.0\ninfo: {title: a, version: '1'}\npaths:\n  /a:\n    get:\n      responses: {'200': {description: ok}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	first := idx.MemoFor("k0")
	first.Keep("v")
	if idx.MemoFor("k0") != first {
		t.Fatal("a second MemoFor gave another slot")
	}
	recent := idx.MemoFor("recent")
	for i := 1; i <= MaxMemos; i++ {
		idx.MemoFor(i)
		if i%16 == 0 {
			idx.MemoFor("recent") // used again: kept
		}
	}
	if m := idx.MemoFor("k0"); m == first || m.Load() != nil {
		t.Error("the slot used least recently was kept beyond MaxMemos")
	}
	if idx.MemoFor("recent") != recent {
		t.Error("a slot in use was dropped")
	}
	if n := idx.memos.Len(); n > MaxMemos {
		t.Errorf("%d slots kept, want at most %d", n, MaxMemos)
	}
	var none *Index
	if none.MemoFor("x") != nil {
		t.Error("a nil index gave a slot")
	}
}
