package runtime

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/runtime/dryrun"
)

// TestValues: a run with Values carries the value each variable was last
// given where the script sets it (declarations, assignment and update
// statements, property paths), shown bounded, with its line's hash and
// no credential (the preview's masking); the result is unchanged, and a
// run without Values carries none.
func TestValues(t *testing.T) {
	srv := httpbinServer(t)
	reg := binRegistry(t, srv.URL)
	src := lines(
		`var n = 1;`,         // 1
		`let s = "a" + "b";`, // 2
		`const o = { id: 7, tags: ["x", "y"], deep: { a: { b: 1 } } };`, // 3
		`for (var i = 0; i < 3; i++) { n += i; }`,                       // 4
		`o.id = 8;`, // 5
		`n++;`,      // 6
		`var big = []; for (var k = 0; k < 100; k++) big.push(k);`, // 7
		`var r = api.rest.v1.get("bin-basic", {}, {});`,            // 8
		`var auth = r.body.headers.Authorization;`,                 // 9
		`var f = function named() {};`,                             // 10
		`return [n, s, o.id];`)                                     // 11
	res := run(t, reg, src, func(o *Options) { o.Values = true })
	if got := mustReturn(t, res); got != `[5,"ab",8]` {
		t.Fatalf("result %s", got)
	}
	var got []string
	for _, v := range res.Values {
		got = append(got, fmt.Sprintf("%d:%d %s=%s x%d", v.Line, v.Column, v.Name, v.Value, v.Times))
		if v.LineHash != dryrun.LineHash(strings.Split(src, "\n")[v.Line-1]) {
			t.Errorf("%s: line hash %s is not line %d's", v.Name, v.LineHash, v.Line)
		}
	}
	want := []string{
		`1:5 n=1 x1`,
		`2:5 s="ab" x1`,
		`3:7 o={id: 7, tags: ["x", "y"], deep: {a: {…}}} x1`,
		`4:10 i=0 x1`,
		`4:31 n=4 x3`,
		`5:1 o.id=8 x1`,
		`6:1 n=5 x1`,
		`7:5 big=[] x1`,
		`7:24 k=0 x1`,
		`10:5 f=ƒ named x1`,
	}
	var r, auth string
	for i := 0; i < len(got); i++ {
		switch {
		case strings.HasPrefix(got[i], "8:5 r="):
			r = got[i]
			got = append(got[:i], got[i+1:]...)
			i--
		case strings.HasPrefix(got[i], "9:5 auth="):
			auth = got[i]
			got = append(got[:i], got[i+1:]...)
			i--
		}
	}
	if !strings.HasPrefix(r, `8:5 r={status: {code: 200, message: "OK"}, headers: {`) || !strings.HasSuffix(r, "… x1") || len(r) > 140 {
		t.Errorf("r's value is not the answer cut short: %s", r)
	}
	if !strings.Contains(auth, "Basic ") {
		t.Errorf("auth's value: %s", auth)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("values:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, v := range res.Values {
		if strings.Contains(v.Value, "dXNlcjpiMW4tUGFzc3dvcmQ=") || strings.Contains(v.Value, "b1n-Password") {
			t.Errorf("%s shows the credential: %s", v.Name, v.Value)
		}
	}
	if plain := run(t, reg, src); plain.Values != nil {
		t.Errorf("a run without Values has values %+v", plain.Values)
	}
}

// TestValuesBounded: a loop that gives a large object to a name again
// and again costs the preview of a few of them, not of each.
func TestValuesBounded(t *testing.T) {
	src := lines(
		`var big = {}; for (var k = 0; k < 20000; k++) big["k" + k] = k;`,
		`var o;`,
		`for (var i = 0; i < 20000; i++) { o = big; }`,
		`return i;`)
	start := time.Now()
	res := run(t, nil, src, func(o *Options) { o.Values = true })
	if got := mustReturn(t, res); got != "20000" {
		t.Fatalf("result %s", got)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the run took %v", d)
	}
	var o string
	for _, v := range res.Values {
		if v.Name == "o" {
			o = fmt.Sprintf("%s x%d", v.Value, v.Times)
		}
	}
	if !strings.HasPrefix(o, "{k0: 0, k1: 1, k2: 2, k3: 3, k4: 4, …} x20000") {
		t.Errorf("o: %q", o)
	}
}
