package runtime

import (
	"strings"
	"testing"

	"github.com/dop251/goja"
)

// parseBoth parses text with parseJSON and with the engine's JSON.parse
// and returns both JSON.stringify outputs (or fallback=true). The parser
// has seen text before, as it sees the same answer call after call, so
// its key cache and scratch space are in play.
func parseBoth(t testing.TB, text string) (fast, engine string, fallback bool) {
	t.Helper()
	r := &runner{vm: goja.New(), res: &Result{}}
	if err := r.install(); err != nil {
		t.Fatal(err)
	}
	_, _ = r.parseJSON([]byte(text))
	v, err := r.parseJSON([]byte(text))
	if err != nil {
		return "", "", true
	}
	ev, err := r.jsonParse(goja.Undefined(), r.vm.ToValue(text))
	if err != nil {
		// goja's JSON.parse rejects numbers beyond float64 (1e400); the
		// language says Infinity, which is what parseJSON gives.
		if strings.Contains(err.Error(), "cannot unmarshal number") {
			return "", "", false
		}
		t.Fatalf("parseJSON accepted %q, JSON.parse did not: %v", text, err)
	}
	if err := r.tryJS(func() { fast = r.stringify(v).String(); engine = r.stringify(ev).String() }); err != nil {
		t.Fatal(err)
	}
	// Object.is tells -0 from 0, which stringify cannot.
	is, _ := goja.AssertFunction(r.vm.Get("Object").ToObject(r.vm).Get("is"))
	if same, _ := is(goja.Undefined(), v, ev); !same.ToBoolean() && !strings.Contains(text, "{") && !strings.Contains(text, "[") {
		t.Fatalf("%q: %v is not %v", text, v, ev)
	}
	return fast, engine, false
}

func TestParseJSONMatchesJSONParse(t *testing.T) {
	for _, text := range []string{
		`{}`, `[]`, ` null `, `true`, `false`, `0`, `-0`, `-0.0`, `12`, `-7`, `1.5e3`, `1e400`, `-1e400`, `9007199254740993`, `123456789012345678901234567890`,
		`"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u4e2d"`, `"\ud83d\ude00"`, `"é中😀"`,
		`{"b":1,"a":2,"b":3}`, `{"__proto__":{"x":1}}`, `{"2":"two","1":"one","a":"A"}`,
		`[1,[2,[3,{"k":[]}]]]`, `{"a" : [ 1 , 2 ] , "b" : { } }`,
	} {
		fast, engine, fb := parseBoth(t, text)
		if fb {
			t.Errorf("%q fell back to JSON.parse", text)
			continue
		}
		if fast != engine {
			t.Errorf("%q: parseJSON gives %s, JSON.parse %s", text, fast, engine)
		}
	}
	// Left to the engine: lone surrogates, bad input.
	for _, text := range []string{`"\ud800"`, `"\udc00x"`, `{"a":1,}`, `[1 2]`, `01x`, `"a` + "\x01" + `"`} {
		if _, _, fb := parseBoth(t, text); !fb {
			t.Errorf("%q should fall back", text)
		}
	}
	// Refused, never handed to the engine, whose JSON.parse recursion
	// overflows the stack on a few MiB of '['.
	r := testRunner(t)
	for _, n := range []int{maxJSONDepth + 1, 5_000_000} {
		text := strings.Repeat("[", n) + strings.Repeat("]", n)
		if _, err := r.parseJSON([]byte(text)); err != errJSONTooDeep {
			t.Errorf("depth %d: %v", n, err)
		}
	}
	text := strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth)
	if _, err := r.parseJSON([]byte(text)); err != nil {
		t.Errorf("depth %d: %v", maxJSONDepth, err)
	}
}

// One runner parses many bodies: keys cached from earlier bodies, escaped
// keys that read like cached ones, long keys and array scratch space left
// by a failed parse must not change what the next body gives.
func TestParseJSONAcrossCalls(t *testing.T) {
	r := &runner{vm: goja.New(), res: &Result{}}
	if err := r.install(); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("k", maxCachedKeyLen+1)
	for _, text := range []string{
		`{"id":1,"ab":[1,[2,3]],"` + long + `":1}`,
		`[1,[2,{"ab":`, // fails: leaves nothing behind
		`{"ab":[4,5],"id":2}`,
		`{"a\u0062":1,"a\"b":2,"ab\"":3}`,
		`{"` + long + `":2,"` + long + `x":3}`,
		`[[1,2],[3],[]]`,
		`{"id":-0,"n":-123456789012345,"m":1234567890123456,"z":-9007199254740993}`,
		`["ab","ab","é","` + long + `","` + long + `"]`,
		`{"ab":"a\u0062","s":"a\"b","t":"ab\"","u":"é","v":"","w":"\u00e9"}`,
		`["ab","",["ab"],{"ab":"ab"}]`,
	} {
		v, err := r.parseJSON([]byte(text))
		ev, eerr := r.jsonParse(goja.Undefined(), r.vm.ToValue(text))
		if (err != nil) != (eerr != nil) {
			t.Fatalf("%q: parseJSON error %v, JSON.parse error %v", text, err, eerr)
		}
		if err != nil {
			if len(r.json.items) != 0 {
				t.Errorf("%q: %d array items left behind", text, len(r.json.items))
			}
			continue
		}
		var fast, engine string
		if err := r.tryJS(func() { fast = r.stringify(v).String(); engine = r.stringify(ev).String() }); err != nil {
			t.Fatal(err)
		}
		if fast != engine {
			t.Errorf("%q: parseJSON gives %s, JSON.parse %s", text, fast, engine)
		}
	}
	if _, ok := r.json.keys[long]; ok {
		t.Errorf("a key longer than %d bytes was cached", maxCachedKeyLen)
	}
	if _, ok := r.json.keys["ab"]; !ok {
		t.Error("the key ab was not cached")
	}
	if _, ok := r.json.texts[long]; ok {
		t.Errorf("a string longer than %d bytes was cached", maxCachedKeyLen)
	}
	if _, ok := r.json.texts["ab"]; !ok {
		t.Error("the string ab was not cached")
	}
}

// A service's answers repeat their short strings call after call: once
// seen, they cost no allocation (issue 34's dry-run cost).
func TestParseJSONReusesShortStrings(t *testing.T) {
	r := testRunner(t)
	body := []byte(`["Ann","open","Ann","open","Ann","open"]`)
	if _, err := r.parseJSON(body); err != nil {
		t.Fatal(err)
	}
	items := testing.AllocsPerRun(100, func() {
		if _, err := r.parseJSON(body); err != nil {
			t.Fatal(err)
		}
	})
	// The array alone takes about five; each string made anew two more.
	if items > 6 {
		t.Errorf("parsing six cached strings took %.0f allocations", items)
	}
}

// FuzzParseJSON: parseJSON either defers to JSON.parse or builds exactly
// what JSON.parse builds.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `"\ud83d\ude00"`, `-0`, `1e-400`, `{"__proto__":1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		fast, engine, fb := parseBoth(t, text)
		if !fb && fast != engine {
			t.Fatalf("%q: parseJSON gives %s, JSON.parse %s", text, fast, engine)
		}
	})
}

// TestParseJSONIgnoresObjectPrototype: JSON.parse makes own data
// properties whatever a script put on Object.prototype. parseJSON set
// them, so a setter there was called and the body lost the property (a
// read-only one made it fall back to JSON.parse, which was right).
func TestParseJSONIgnoresObjectPrototype(t *testing.T) {
	r := testRunner(t)
	if _, err := r.vm.RunString(polluteJS); err != nil {
		t.Fatal(err)
	}
	describe, err := r.vm.RunString(`(function describe(x) {
  if (x === null || typeof x !== "object") return JSON.stringify(x);
  var proto = Object.getPrototypeOf(x) === (Array.isArray(x) ? Array.prototype : Object.prototype);
  return (proto ? "" : "!proto") + "{" + Object.getOwnPropertyNames(x).map(function (n) {
    var d = Object.getOwnPropertyDescriptor(x, n);
    return JSON.stringify(n) + (d.writable && d.enumerable && d.configurable ? ":" : "(flags):") + describe(d.value);
  }).join(",") + "}";
})`)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := goja.AssertFunction(describe)
	for _, text := range []string{
		`{"id":42,"name":"Ann","status":"open","code":1,"headers":2,"body":3,"message":"m"}`,
		`[{"id":1},{"a":{"id":2,"name":null}},{"__proto__":{"id":3}}]`,
		`{"id":1,"id":2,"name":"a","name":"b"}`,
	} {
		// As a call reads a body: parseJSON, else JSON.parse.
		v, err := r.parseJSON([]byte(text))
		if err == errJSONFallback {
			v, err = r.jsonParse(goja.Undefined(), r.vm.ToValue(text))
		}
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		ev, err := r.jsonParse(goja.Undefined(), r.vm.ToValue(text))
		if err != nil {
			t.Fatal(err)
		}
		fast, err := f(goja.Undefined(), v)
		if err != nil {
			t.Fatal(err)
		}
		engine, err := f(goja.Undefined(), ev)
		if err != nil {
			t.Fatal(err)
		}
		if fast.String() != engine.String() {
			t.Errorf("%s:\nparseJSON  %s\nJSON.parse %s", text, fast, engine)
		}
	}
	if seen, _ := r.vm.RunString(`seen.join()`); seen.String() != "" {
		t.Errorf("parsing called setters on Object.prototype: %s", seen)
	}
}
