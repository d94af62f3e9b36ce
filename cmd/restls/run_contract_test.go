package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunContractLive: restls run --json against a service on loopback
// whose answers break its description (a path relative to the project
// file's openapi): each call carries its contract notes with the JSON
// path and the rule, and the run still succeeds.
func TestRunContractLive(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/orders/1":
			_, _ = w.Write([]byte(`{"id":1,"items":[{"sku":"a","qty":"two"}]}`))
		case "/api/orders/2":
			_, _ = w.Write([]byte(`{"id":2,"items":[]}`))
		default:
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(`{"error":"busy"}`))
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "config/application.yml", "scriptservice:\n  api:\n    - serviceId: shop\n      url: "+srv.URL+"/api\n")
	writeFile(t, dir, "restls.yaml", "configRoot: config\nopenapi:\n  shop: apis/shop.json\n")
	if err := os.MkdirAll(filepath.Join(dir, "apis"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "apis/shop.json", `{"openapi":"3.1.0","info":{"title":"Shop","version":"1"},"paths":{"/orders/{id}":{"get":{
		"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],
		"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","required":["id","items"],"properties":{
			"id":{"type":"integer"},"items":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"},"qty":{"type":"integer"}}}}}}}}},
		"404":{"description":"none"}}}}}}`)
	script := writeFile(t, dir, "orders.js", "var a = api.rest.v1.get(\"shop\", {pathParams: [\"orders\", \"1\"]}, {});\n"+
		"var b = api.rest.v1.get(\"shop\", {pathParams: [\"orders\", \"2\"]}, {});\n"+
		"try { api.rest.v1.get(\"shop\", {pathParams: [\"orders\", \"3\"]}, {}); } catch (e) {}\nreturn a.body.id + b.body.id;\n")
	out, errs, rc := runBinary(t, "run", "--json", "--project", filepath.Join(dir, "restls.yaml"), script)
	if rc != 0 || errs != "" {
		t.Fatalf("rc %d, stderr %q\n%s", rc, errs, out)
	}
	var res struct {
		Result json.RawMessage
		Calls  []struct {
			Contract []struct{ Operation, Path, Rule, Message string }
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if string(res.Result) != "3" || len(res.Calls) != 3 {
		t.Fatalf("result %s, %d calls", res.Result, len(res.Calls))
	}
	var got []string
	for i, c := range res.Calls {
		for _, n := range c.Contract {
			got = append(got, strings.Join([]string{string(rune('1' + i)), n.Operation, n.Path, n.Rule}, " "))
			if !strings.Contains(n.Message, "GET /orders/{id}") {
				t.Errorf("message %q does not name the operation", n.Message)
			}
		}
	}
	want := []string{"1 GET /orders/{id} /items/0/qty type", "3 GET /orders/{id}  status"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("contract notes %q\nwant %q", got, want)
	}
}

// TestRunContractNotChecked: an answer whose documented schema is an
// allOf of 10,000 parts is past the check's budget: the call carries a
// not-checked note saying so (before: no note, as if the answer held to
// it, after seconds and hundreds of MiB), and the run succeeds.
func TestRunContractNotChecked(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"p1":1}`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	writeFile(t, dir, "application.yml", "scriptservice:\n  api:\n    - serviceId: shop\n      url: "+srv.URL+"/api\n")
	writeFile(t, dir, "restls.yaml", "configRoot: .\nopenapi:\n  shop: shop.json\n")
	parts := make([]string, 10000)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"type":"object","properties":{"p%d":{"type":"string"}},"required":["p%d"]}`, i, i)
	}
	writeFile(t, dir, "shop.json", `{"openapi":"3.0.3","info":{"title":"Shop","version":"1"},"paths":{"/orders":{"get":{
		"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"allOf":[`+strings.Join(parts, ",")+`]}}}}}}}}}`)
	script := writeFile(t, dir, "orders.js", "return api.rest.v1.get(\"shop\", {pathParams: [\"orders\"]}, {}).status.code;\n")
	out, errs, rc := runBinary(t, "run", "--json", "--project", filepath.Join(dir, "restls.yaml"), script)
	if rc != 0 || errs != "" {
		t.Fatalf("rc %d, stderr %q\n%.500s", rc, errs, out)
	}
	var res struct {
		Calls []struct {
			Contract []struct{ Operation, Path, Rule, Message string }
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Calls) != 1 || len(res.Calls[0].Contract) != 1 {
		t.Fatalf("calls %+v", res.Calls)
	}
	n := res.Calls[0].Contract[0]
	if n.Rule != "not-checked" || n.Operation != "GET /orders" || !strings.Contains(n.Message, "not checked") || !strings.Contains(n.Message, "too large") {
		t.Errorf("note %+v", n)
	}
}
