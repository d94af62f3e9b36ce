package diff

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/restls/restls/internal/goldentest"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
)

func call(svc, method, url string, status int, body string, headers ...string) *restclient.Call {
	c := &restclient.Call{ServiceID: svc, Method: method, URL: url, ResponseBody: json.RawMessage(body)}
	if status > 0 {
		c.Status = &restclient.Status{Code: status, Message: map[int]string{200: "OK", 404: "Not Found", 201: "Created"}[status]}
	}
	for i := 0; i+1 < len(headers); i += 2 {
		c.ResponseHeaders = append(c.ResponseHeaders, restclient.HeaderField{Name: headers[i], Value: headers[i+1]})
	}
	return c
}

func TestCompare(t *testing.T) {
	old := &dryrun.Result{
		Result: json.RawMessage(`{"total":2,"names":["a","b"],"x y":1}`),
		Calls: []*restclient.Call{
			call("crm", "GET", "https://crm.example/orders?page=1", 200, `{"items":[{"id":1,"name":"a"},{"id":2}],"n":2}`, "content-type", "application/json", "date", "Mon", "etag", `"1"`, "keep-alive", "timeout=5"),
			call("billing", "GET", "https://billing.example/invoices/1", 200, `{"sum":10}`),
			call("crm", "DELETE", "https://crm.example/orders/9", 200, ``),
		},
	}
	new := &dryrun.Result{
		Result: json.RawMessage(`{"total":3,"names":["a","b","c"],"x y":1}`),
		Calls: []*restclient.Call{
			call("crm", "GET", "https://crm.example/orders?page=2", 200, `{"items":[{"id":1,"name":"A"},{"id":2,"new":true}],"n":2}`, "content-type", "application/json", "date", "Tue", "x-new", "1"),
			call("audit", "POST", "https://audit.example/events", 201, `{}`),
			call("billing", "GET", "https://billing.example/invoices/1", 404, `{"error":"gone"}`),
		},
	}
	d := Compare(old, new)
	if d.Same {
		t.Fatal("Same for two different runs")
	}
	var kinds []string
	for _, c := range d.Calls {
		kinds = append(kinds, c.Kind)
	}
	if got := strings.Join(kinds, ","); got != "changed,added,changed,missing" {
		t.Errorf("kinds = %s", got)
	}
	for _, ch := range d.Calls[0].Changes {
		if ch.Path == "date" || ch.Path == "keep-alive" {
			t.Errorf("a volatile header is a change: %+v", ch)
		}
	}
	var b strings.Builder
	if err := Text(&b, d, "previous run", "this run"); err != nil {
		t.Fatal(err)
	}
	goldentest.Check(t, "testdata/golden/diff/compare.golden", b.String())
	js, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	goldentest.Check(t, "testdata/golden/diff/compare.json.golden", string(js)+"\n")

	same := Compare(old, old)
	if !same.Same || len(same.Calls) != 0 || len(same.Result) != 0 {
		t.Errorf("a run against itself: %+v", same)
	}
	b.Reset()
	Text(&b, same, "a", "b")
	if !strings.Contains(b.String(), "no change") {
		t.Errorf("same text = %q", b.String())
	}
}

func TestCompareErrors(t *testing.T) {
	ok := &dryrun.Result{Result: json.RawMessage(`1`)}
	threw := &dryrun.Result{Result: json.RawMessage(`null`), Error: &dryrun.ScriptError{Name: "ResponseError", Message: "404 from crm", Code: "http-status"}}
	d := Compare(ok, threw)
	if len(d.Result) != 1 || d.Result[0].What != WhatError || d.Result[0].Old != nil || !strings.Contains(string(d.Result[0].New), "404 from crm") {
		t.Errorf("result = %+v", d.Result)
	}
}

func TestBodyChangesAreBounded(t *testing.T) {
	var o, n strings.Builder
	o.WriteString("[")
	n.WriteString("[")
	for i := range 3 * MaxChanges {
		if i > 0 {
			o.WriteString(",")
			n.WriteString(",")
		}
		o.WriteString("1")
		n.WriteString("2")
	}
	o.WriteString("]")
	n.WriteString("]")
	d := Compare(&dryrun.Result{Calls: []*restclient.Call{call("a", "GET", "u", 200, o.String())}},
		&dryrun.Result{Calls: []*restclient.Call{call("a", "GET", "u", 200, n.String())}})
	if c := d.Calls[0]; len(c.Changes) != MaxChanges || c.More != 2*MaxChanges {
		t.Errorf("changes %d, more %d", len(c.Changes), c.More)
	}
	// Deep values are compared to a depth, then as a whole.
	deep := strings.Repeat(`{"a":`, 5000) + "1" + strings.Repeat("}", 5000)
	deep2 := strings.Repeat(`{"a":`, 5000) + "2" + strings.Repeat("}", 5000)
	d = Compare(&dryrun.Result{Result: json.RawMessage(deep)}, &dryrun.Result{Result: json.RawMessage(deep2)})
	if len(d.Result) != 1 || strings.Count(d.Result[0].Path, ".a") != maxDepth {
		t.Errorf("deep: %d changes, path depth %d", len(d.Result), strings.Count(d.Result[0].Path, ".a"))
	}
}

func TestManyCallsPairInOrder(t *testing.T) {
	var o, n []*restclient.Call
	for range 3000 {
		o = append(o, call("a", "GET", "u", 200, `1`))
		n = append(n, call("a", "GET", "u", 200, `1`))
	}
	n = append(n, call("b", "GET", "v", 200, `1`))
	d := Compare(&dryrun.Result{Calls: o}, &dryrun.Result{Calls: n})
	if len(d.Calls) != 1 || d.Calls[0].Kind != Added || d.Calls[0].New != 3001 {
		t.Errorf("calls = %+v", d.Calls)
	}
}

func FuzzCompare(f *testing.F) {
	f.Add(`{"a":[1,{"b":2}]}`, `{"a":[1,{"b":3}],"c":null}`)
	f.Add(`[1,2,3]`, `"text"`)
	f.Add(strings.Repeat("[", 3000)+strings.Repeat("]", 3000), `[]`)
	f.Fuzz(func(t *testing.T, a, b string) {
		ra := &dryrun.Result{Result: json.RawMessage(a), Calls: []*restclient.Call{call("s", "GET", "u", 200, a)}}
		rb := &dryrun.Result{Result: json.RawMessage(b), Calls: []*restclient.Call{call("s", "GET", "u", 200, b)}}
		d := Compare(ra, rb)
		if strings.TrimSpace(a) == strings.TrimSpace(b) && !d.Same {
			t.Fatalf("equal texts differ: %+v", d)
		}
		if _, err := json.Marshal(d); err != nil {
			t.Fatalf("the diff does not encode: %v", err)
		}
		var w strings.Builder
		if err := Text(&w, d, "a", "b"); err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkCompare: two runs of 50 calls with 4 KiB JSON bodies, one
// value changed in each.
func BenchmarkCompare(b *testing.B) {
	mk := func(v int) *dryrun.Result {
		r := &dryrun.Result{Result: json.RawMessage(`{"ok":true}`)}
		for i := range 50 {
			var body strings.Builder
			body.WriteString(`{"items":[`)
			for j := range 60 {
				if j > 0 {
					body.WriteString(",")
				}
				fmt.Fprintf(&body, `{"id":%d,"name":"item %d","v":%d}`, j, j, v*(j%2))
			}
			body.WriteString(`]}`)
			r.Calls = append(r.Calls, call("s", "GET", fmt.Sprintf("https://s.example/%d", i), 200, body.String(), "content-type", "application/json"))
		}
		return r
	}
	o, n := mk(1), mk(2)
	b.ReportAllocs()
	for b.Loop() {
		Compare(o, n)
	}
}
