package runtime

import (
	"testing"

	"github.com/dop251/goja"

	"github.com/restls/restls/runtime/restclient"
)

// observeJS describes everything a script can see of an object, its
// status object and what it does under the usual operations (enumerated,
// copied, frozen, redefined, deleted), as one string. It changes the
// object it is given.
const observeJS = `(function (o) {
  "use strict";
  var out = [];
  function see(label, f) {
    try { out.push(label + " " + JSON.stringify(f())); }
    catch (e) { out.push(label + " threw " + e.name); }
  }
  function shape(x) {
    var names = Object.getOwnPropertyNames(x), ds = Object.create(null);
    names.forEach(function (n) {
      var d = Object.getOwnPropertyDescriptor(x, n);
      ds[n] = [typeof d.value, d.writable, d.enumerable, d.configurable, "get" in d];
    });
    var inKeys = [];
    for (var k in x) inKeys.push(k);
    return {keys: Object.keys(x), names: names, ds: ds, forIn: inKeys,
      proto: Object.getPrototypeOf(x) === Object.prototype, ext: Object.isExtensible(x),
      tag: Object.prototype.toString.call(x), str: String(x)};
  }
  see("shape", function () { return shape(o); });
  see("status", function () { return shape(o.status); });
  see("values", function () { return [o.status.code, o.status.message, typeof o.headers, o.body === o.body]; });
  see("json", function () { return JSON.parse(JSON.stringify(o, function (k, v) { return k === "headers" ? "h" : v; })); });
  see("entries", function () { return Object.entries(o).map(function (e) { return e[0]; }); });
  see("assign", function () { return Object.keys(Object.assign(Object.create(null), o)); });
  see("own", function () { return [o.hasOwnProperty("status"), "body" in o, o.propertyIsEnumerable("headers")]; });
  see("define", function () { Object.defineProperty(o, "extra", {value: 1}); return shape(o).names; });
  see("redefine", function () { Object.defineProperty(o, "status", {enumerable: false}); return Object.keys(o); });
  see("delete", function () { return [delete o.body, Object.keys(o)]; });
  see("set", function () { o.status.code = 7; o.added = 2; return [o.status.code, Object.keys(o)]; });
  see("freeze", function () { Object.freeze(o); Object.freeze(o.status); return [Object.isFrozen(o), Object.isFrozen(o.status)]; });
  see("write frozen", function () { o.status.message = "x"; return o.status.message; });
  see("add frozen", function () { o.more = 1; return o.more; });
  see("seal", function () { return Object.isSealed(Object.seal(o)); });
  return out.join("\n");
})`

// polluteJS is what a script could do to Object.prototype before it
// calls: setters, read-only values and getters under the names a
// response's properties have. An object literal (and JSON.parse) makes
// own properties whatever the prototype holds.
const polluteJS = `
var seen = [];
["status", "code", "id"].forEach(function (n) {
  Object.defineProperty(Object.prototype, n, {set: function (v) { seen.push(n); }, configurable: true});
});
Object.defineProperty(Object.prototype, "headers", {value: "proto", writable: false, configurable: true});
Object.defineProperty(Object.prototype, "body", {get: function () { return "proto"; }, configurable: true});
Object.defineProperty(Object.prototype, "message", {value: "proto", writable: false, configurable: true});
Object.defineProperty(Object.prototype, "name", {get: function () { return "proto"; }, set: function () { seen.push("name"); }, configurable: true});
`

// TestResultIsTheLiteral holds the result a call returns, built from Go,
// to the object literal {status: {code, message}, headers, body} it
// replaces: the same properties, descriptors, order and prototype, and the
// same answers to every operation in observeJS, with Object.prototype as
// a run starts and as a script could have changed it. Built with plain
// Sets on ordinary objects it fails: the setters are called and no
// property is made.
func TestResultIsTheLiteral(t *testing.T) {
	for _, polluted := range []bool{false, true} {
		r := testRunner(t)
		if polluted {
			if _, err := r.vm.RunString(polluteJS); err != nil {
				t.Fatal(err)
			}
		}
		v, err := r.vm.RunString(observeJS)
		if err != nil {
			t.Fatal(err)
		}
		observe, _ := goja.AssertFunction(v)
		literal, err := r.vm.RunString(`(function (code, message, headers, body) {
  return {status: {code: code, message: message}, headers: headers, body: body};
})`)
		if err != nil {
			t.Fatal(err)
		}
		mk, _ := goja.AssertFunction(literal)
		resp := &restclient.Response{StatusCode: 200, Status: "OK", HeaderList: restclient.Headers{{Name: "content-type", Value: "application/json"}}}
		body, err := r.parseJSON([]byte(`{"id":42,"name":"Ann"}`))
		if err != nil {
			t.Fatal(err)
		}
		code, reason := r.statusValues(resp)
		want, err := mk(goja.Undefined(), code, reason, r.headersObj(resp), body)
		if err != nil {
			t.Fatal(err)
		}
		wantSeen, _ := r.vm.RunString(`typeof seen === "undefined" ? "" : seen.join()`)
		got := r.result(resp, body)
		gotSeen, _ := r.vm.RunString(`typeof seen === "undefined" ? "" : seen.join()`)
		if gotSeen.String() != wantSeen.String() {
			t.Errorf("polluted %v: building the result called setters on Object.prototype: %q", polluted, gotSeen)
		}
		w, err := observe(goja.Undefined(), want)
		if err != nil {
			t.Fatal(err)
		}
		g, err := observe(goja.Undefined(), got)
		if err != nil {
			t.Fatal(err)
		}
		if g.String() != w.String() {
			t.Errorf("polluted %v: the result differs from the literal\ngot:\n%s\nwant:\n%s", polluted, g, w)
		}
	}
}
