package runtime

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"

	"github.com/restls/restls/internal/deepgentest"
	"github.com/restls/restls/jsdepth"
)

// stringify is goja's JSON.stringify, the reference the converter is
// compared with.
func (r *runner) stringify(v goja.Value) goja.Value {
	out, err := r.jsonStringify(goja.Undefined(), v)
	if err != nil {
		panic(err)
	}
	return out
}

// testRunner is a runner with the script environment installed and a live
// context, as during a run.
func testRunner(t testing.TB) *runner {
	t.Helper()
	res := &Result{}
	r := &runner{vm: goja.New(), res: res, thrown: map[*goja.Object]string{}, ctx: context.Background()}
	if err := r.install(); err != nil {
		t.Fatal(err)
	}
	return r
}

// sameAsStringify evaluates expr and checks that marshal gives what
// JSON.stringify gives: the same text, the same undefined, the same error.
func sameAsStringify(t *testing.T, r *runner, expr string) {
	t.Helper()
	v, err := r.vm.RunString("(" + expr + ")")
	if err != nil {
		return // not an expression
	}
	var want goja.Value
	wantErr := r.tryJS(func() { want = r.stringify(v) })
	got, defined, err := r.marshal(v)
	switch {
	case wantErr != nil:
		if err == nil || err.Error() != wantErr.Error() {
			t.Fatalf("%s: JSON.stringify threw %v, marshal gave %q, %v", expr, wantErr, got, err)
		}
	case err != nil:
		t.Fatalf("%s: marshal: %v, JSON.stringify gave %v", expr, err, want)
	case goja.IsUndefined(want):
		if defined {
			t.Fatalf("%s: marshal gave %q, JSON.stringify undefined", expr, got)
		}
	case !defined || got != want.String():
		if loneSurrogate.MatchString(want.String()) {
			return // a key with a lone surrogate: see docs/decisions.md
		}
		t.Fatalf("%s: marshal gave %q (%v), JSON.stringify %q", expr, got, defined, want.String())
	}
}

var loneSurrogate = regexp.MustCompile(`\\u[dD][89a-fA-F]`)

var stringifyCases = []string{
	`undefined`, `null`, `true`, `false`, `0`, `-0`, `1.5`, `1e21`, `1e-7`, `-1e308`, `NaN`, `Infinity`, `9007199254740993`,
	`""`, `"a\"b\\c\n\r\t\b\f\u0001\u001f"`, `"é中😀"`, `"\ud800"`, `"a\udc00b"`, `"\ud83d\ude00"`, `"\u2028"`,
	`{}`, `[]`, `{b: 1, a: 2, 2: "two", 1: "one"}`, `[1, undefined, function(){}, Symbol("s"), null]`,
	`{a: undefined, f: function(){}, s: Symbol("x"), n: null}`, `{toJSON: function(k){ return "key:" + k }}`,
	`{d: new Date(0)}`, `[new Number(3), new String("s"), new Boolean(false), Object(1.5)]`,
	`{nested: {deeper: [1, {x: [2, [3]]}]}}`, `(function(){ var a = []; a.push(a); return a })()`,
	`(function(){ var o = {}; o.self = {o: o}; return o })()`, `{get g() { return 7 }}`,
	`{get g() { throw new Error("nope") }}`, `{toJSON: function(){ throw new TypeError("bad") }}`,
	`10n`, `{b: 10n}`, `Object.create({inherited: 1}, {own: {value: 2, enumerable: true}, hidden: {value: 3}})`,
	`new Map([[1, 2]])`, `/re/g`, `new Error("e")`, `function(){}`, `Symbol("s")`, `[,1]`, `(function(){ var a = [1]; a.length = 3; return a })()`,
	`{"__proto__": 1}`, `JSON.parse('{"__proto__": {"x": 1}}')`, `{a: {toJSON: function(k){ return [k, this.b] }, b: 2}}`,
	`new Proxy({a: 1}, {})`, `{k: new Proxy([1, 2], {})}`, `Object.assign(Object.create(null), {z: 1})`,
	`{"é": "\u00e9"}`,
}

func TestMarshalMatchesStringify(t *testing.T) {
	r := testRunner(t)
	for _, expr := range stringifyCases {
		sameAsStringify(t, r, expr)
	}
}

// FuzzMarshalMatchesStringify compares the converter with JSON.stringify
// on values built from script expressions: random text, and the cases
// above combined in arrays and objects.
func FuzzMarshalMatchesStringify(f *testing.F) {
	for i, c := range stringifyCases {
		f.Add(c, uint8(i))
	}
	r := testRunner(f)
	f.Fuzz(func(t *testing.T, expr string, pick uint8) {
		if len(expr) > 200 || strings.ContainsAny(expr, "`") || strings.Contains(expr, "while") || strings.Contains(expr, "for") {
			return // keep each execution short and loop-free
		}
		// Exercise the converter only on shallow values: jsdepth decides
		// what is too deep, JSON.stringify has no limit.
		if !jsdepth.Check(expr, 50).OK() {
			return
		}
		other := stringifyCases[int(pick)%len(stringifyCases)]
		sameAsStringify(t, r, expr)
		sameAsStringify(t, r, "["+expr+", "+other+"]")
		sameAsStringify(t, r, "{x: "+expr+", y: "+other+"}")
	})
}

func TestResultTooDeep(t *testing.T) {
	res := run(t, nil, `var a = []; for (var i = 0; i < 200000; i++) a = [a]; return a;`)
	if e := res.Error; e == nil || e.Code != CodeResultTooDeep || e.Name != "RangeError" || string(res.Result) != "null" {
		t.Fatalf("deep result: %+v %s", res.Error, res.Result)
	}
	if res.ExitCode() != 1 {
		t.Error("exit code")
	}
	// Just within the limit it is shown.
	res = run(t, nil, `var a = []; for (var i = 1; i < 1000; i++) a = [a]; return a;`)
	if got := mustReturn(t, res); got != strings.Repeat("[", jsdepth.MaxValue)+strings.Repeat("]", jsdepth.MaxValue) {
		t.Fatalf("depth %d: %.40s", jsdepth.MaxValue, got)
	}
}

func TestDeepConsoleAndPayload(t *testing.T) {
	res := run(t, nil, lines(
		`var a = []; for (var i = 0; i < 200000; i++) a = [a];`,
		`console.log("deep", a);`,
		`var c = [1]; c.push(c); console.log(c);`,
		`try { api.rest.v1.post("svc", {}, {}, a) } catch (e) { console.log(e.name, e.message) }`,
		`try { throw a } finally { }`,
	))
	want := []string{
		"deep [Array nested more than 1000 levels deep]",
		"[Array]",
	}
	for i, w := range want {
		if len(res.Logs) <= i || res.Logs[i].Message != w {
			t.Fatalf("log %d: %+v, want %q", i, res.Logs, w)
		}
	}
	if len(res.Logs) != 3 || !strings.Contains(res.Logs[2].Message, "TypeError") || !strings.Contains(res.Logs[2].Message, "1000 levels") {
		t.Fatalf("payload: %+v", res.Logs)
	}
	if e := res.Error; e == nil || e.Message != "uncaught [Array]" {
		t.Fatalf("thrown deep value: %+v", res.Error)
	}
}

// A value that takes long to convert is stopped by the time limit, and
// the run ends with the timeout error, not a result.
func TestConversionHonoursTimeout(t *testing.T) {
	src := `var big = []; for (var i = 0; i < 300; i++) big.push({toJSON: function() { var x = 0; for (var j = 0; j < 1e6; j++) x += j; return x }}); return big;`
	start := time.Now()
	res := run(t, nil, src, func(o *Options) { o.Timeout = 300 * time.Millisecond })
	if e := res.Error; e == nil || e.Code != CodeScriptTimeout {
		t.Fatalf("error %+v after %v", res.Error, time.Since(start))
	}
}

func TestScriptTooDeep(t *testing.T) {
	n := 300000
	for _, src := range []string{
		"return " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n),
		"var x = 1;\n  return " + strings.Repeat("{a:", n),
		"return " + strings.Repeat("`${", n),
	} {
		res := run(t, nil, src)
		e := res.Error
		if e == nil || e.Code != CodeScriptTooDeep || e.Name != "RangeError" {
			t.Fatalf("%.20q: %+v", src, e)
		}
		if strings.HasPrefix(src, "var") && (e.Line != 2 || e.Column != 10+3*jsdepth.Max) {
			t.Errorf("position %d:%d", e.Line, e.Column)
		}
	}
}

func TestScriptAtTheLimit(t *testing.T) {
	for shape := range deepgentest.Shapes {
		d := jsdepth.Max
		for !jsdepth.Check(deepgentest.Script(shape, d, true, ""), jsdepth.Max).OK() {
			d--
		}
		res := run(t, nil, deepgentest.Script(shape, d, true, ""))
		if res.Error != nil && res.Error.Code == CodeScriptTooDeep {
			t.Fatalf("shape %d depth %d: %+v", shape, d, res.Error)
		}
	}
}

// FuzzDeepScripts runs generated deep and long scripts: each ends in a
// result or an error (script-too-deep beyond the budget), never a crash,
// and fast enough that 20,000 of them take seconds.
func FuzzDeepScripts(f *testing.F) {
	f.Add(uint8(0), uint16(300), true, "")
	f.Add(uint8(1), uint16(999), true, ";")
	f.Add(uint8(2), uint16(40000), false, "")
	f.Add(uint8(3), uint16(2000), true, "")
	f.Add(uint8(11), uint16(500), true, "/`/")
	f.Fuzz(func(t *testing.T, shape uint8, depth uint16, closed bool, tail string) {
		d := int(depth)
		switch {
		case shape%deepgentest.Shapes == 9:
			d %= 2000 // a long flat chain: goja compiles it slowly
		case d <= jsdepth.Max:
			// Within the budget goja compiles and runs every level;
			// TestScriptAtTheLimit covers the limit itself.
			d %= 100
		}
		src := deepgentest.Script(int(shape), d, closed, tail)
		res := Run(context.Background(), Options{Source: src, Filename: "deep.js", Timeout: 2 * time.Second})
		fits := jsdepth.Check(strings.TrimPrefix(src, "\uFEFF"), jsdepth.Max).OK()
		if !fits && (res.Error == nil || res.Error.Code != CodeScriptTooDeep) {
			t.Fatalf("too deep, but %+v", res.Error)
		}
		if fits && res.Error != nil && res.Error.Code == CodeScriptTooDeep {
			t.Fatalf("fits, but %+v", res.Error)
		}
	})
}

// goja's compiler is quadratic on a long constant sum and cannot be
// interrupted: the time limit still ends the run.
func TestCompileHonoursTimeout(t *testing.T) {
	src := "return 1" + strings.Repeat("+1", 40000)
	res := run(t, nil, src, func(o *Options) { o.Timeout = 200 * time.Millisecond })
	if e := res.Error; e == nil || e.Code != CodeScriptTimeout || !strings.HasPrefix(e.Message, "compiling the script took longer") {
		t.Fatalf("error %+v", res.Error)
	}
}

// The script's own JSON.stringify and JSON.parse have the same limits:
// a deep value or text is a RangeError the script can catch, never minutes
// of work past the time limit or a fatal stack overflow.
func TestScriptJSONFunctionsAreBounded(t *testing.T) {
	res := run(t, nil, lines(
		`var a = []; for (var i = 0; i < 200000; i++) a = [a];`,
		`var out = [];`,
		`try { JSON.stringify(a) } catch (e) { out.push(e.name + ": " + e.message) }`,
		`try { JSON.parse("[".repeat(5000000)) } catch (e) { out.push(e.name + ": " + e.message) }`,
		`var c = {}; c.c = c;`,
		`try { JSON.stringify(c) } catch (e) { out.push(e instanceof TypeError, e.message) }`,
		`out.push(JSON.stringify({b: [1, {c: undefined}], a: "é"}), JSON.stringify({a: 1, b: 2}, ["b"]), JSON.stringify([1], null, 1));`,
		`out.push(JSON.stringify(undefined) === undefined, JSON.parse('{"x": [1]}', function (k, v) { return k === "x" ? v.length : v }).x);`,
		`return out;`,
	))
	jsonEqual(t, mustReturn(t, res), `[
		"RangeError: JSON.stringify: the value nests more than 1000 levels deep",
		"RangeError: JSON.parse: the text nests more than 1000 levels deep",
		true, "Converting circular structure to JSON",
		"{\"b\":[1,{}],\"a\":\"é\"}", "{\"b\":2}", "[\n 1\n]",
		true, 1
	]`)
}

func TestDeepInputIsRefused(t *testing.T) {
	n := 2_000_000
	res := run(t, nil, `return 1;`, func(o *Options) {
		o.Input = []byte(`{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`)
	})
	if e := res.Error; e == nil || e.Message != "context.input nests more than 1000 levels deep" {
		t.Fatalf("error %+v", res.Error)
	}
}
