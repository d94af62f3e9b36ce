package jsdepth

import (
	"os"
	"strings"
	"testing"

	"github.com/restls/restls/internal/deepgentest"
)

func TestCheckDepth(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		depth     int
	}{
		{"empty", "", 0},
		{"flat", "var a = 1; return a;", 0},
		{"call", "return f(g(h(1)));", 3},
		{"mixed", "return [{a: (1)}];", 3},
		{"strings", `return "((((" + '[[[[' + "\"(" ;`, 0},
		{"line continuation", "return \"(\\\n((\";", 0},
		{"line comment", "// ((((\nreturn 1;", 0},
		{"block comment", "/* {{{{\n[[[ */ return 1;", 0},
		{"template text", "return `(((( [[[ {{{`;", 0},
		{"template subst", "return `a ${ f(`b ${ [1] }`) } c`;", 4},
		{"template brace in subst", "return `${ {a: 1} }`;", 2},
		{"regex after paren", "return s.replace(/[(((]/g, '(');", 1},
		{"regex groups", "return /((a))/.test(s);", 2},
		{"regex after return", "return /\\(\\(\\(/;", 0},
		{"regex after keyword paren", "if (x) /[({]/.test(s);", 1},
		{"division", "return (a) / (b) / 2;", 1},
		{"division by paren", "return a / (b + (c));", 2},
		{"regex after block", "if (x) {}\n/[(]/.test(s);", 2},
		{"property named like keyword", "return a.return / (b);", 1},
		{"method named if", "return x.if(a) / [[1]] / 2;", 2},
		{"postfix", "return a++ / (2);", 1},
		{"exponent", "return 1e-5 / (2);", 1},
		{"unclosed string ends at line", "x = \"((\nreturn f(1);", 1},
		{"unclosed regex is a division", "x = a\n/ (b);", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(tc.src, Max)
			if !r.OK() || r.Depth != tc.depth || r.Offset != -1 {
				t.Errorf("Check(%q) = %+v, want depth %d", tc.src, r, tc.depth)
			}
		})
	}
}

func TestCheckTooDeep(t *testing.T) {
	n := 300000
	for _, tc := range []struct {
		name, src string
		offset    int
	}{
		{"parens", "return " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n), len("return ") + Max},
		{"objects", "return " + strings.Repeat("{a:", n), len("return ") + 3*Max},
		{"arrays", strings.Repeat("[", Max+1), Max},
		{"templates", strings.Repeat("`${", Max+1), 3*Max + 1},
		{"regex groups", "x = /" + strings.Repeat("(", Max+1) + "/", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(tc.src, Max)
			if r.Reason != TooDeep || r.Offset != tc.offset || r.Depth != Max+1 {
				t.Errorf("Check = %+v, want TooDeep at %d", r, tc.offset)
			}
		})
	}
	// Exactly at the limit fits.
	if r := Check(strings.Repeat("(", Max)+strings.Repeat(")", Max), Max); !r.OK() || r.Depth != Max {
		t.Errorf("depth Max: %+v", r)
	}
}

// A '/' whose reading the token before it leaves open must never hide
// brackets: either both readings agree and the brackets count, or the
// script is reported as ambiguous.
func TestCheckAmbiguousSlash(t *testing.T) {
	deep := strings.Repeat("(", Max+1)
	for _, src := range []string{
		"x = function(){} / `/` + 1\n" + deep,     // division by a template
		"{}\n/`/\n" + deep,                        // a regex holding a backtick
		"var of = 1; x = of / \"/\" + 1\n" + deep, // a variable named of
		"a\n++/\"/.x\n" + deep,
	} {
		if r := Check(src, Max); r.Reason != Ambiguous {
			t.Errorf("Check(%.40q) = %+v, want Ambiguous", src, r)
		}
	}
	// Agreeing readings: the body's brackets count, and stay counted.
	src := "x = {} / " + strings.Repeat("[", Max/2) + "1 / 2\n" + strings.Repeat("[", Max/2+1)
	if r := Check(src, Max); r.Reason != TooDeep {
		t.Errorf("brackets behind an ambiguous slash were hidden: %+v", r)
	}
}

// FuzzCheck checks the measure on generated deep and long scripts and on
// random text: it never fails, stops at the first bracket past the limit,
// and agrees with the generator about how deep a generated script nests.
func FuzzCheck(f *testing.F) {
	f.Add(uint8(0), uint16(300), true, "")
	f.Add(uint8(2), uint16(40000), false, "")
	f.Add(uint8(3), uint16(Max), true, ";")
	f.Add(uint8(11), uint16(999), true, "/`/")
	f.Add(uint8(9), uint16(40000), true, "")
	f.Add(uint8(0), uint16(10), true, ";"+strings.Repeat("()=>", 1200)+"1")
	f.Add(uint8(4), uint16(500), false, strings.Repeat("x =>\n", 900)+strings.Repeat("!", 6000))
	f.Add(uint8(2), uint16(3), true, ";"+strings.Repeat("a:", 2000)+"1")
	f.Fuzz(func(t *testing.T, shape uint8, depth uint16, closed bool, tail string) {
		src := deepgentest.Script(int(shape), int(depth), closed, tail)
		r := Check(src, Max)
		switch r.Reason {
		case Fits:
			if r.Offset != -1 || r.Depth > Max {
				t.Fatalf("fits with %+v", r)
			}
		case TooDeep:
			if r.Depth != Max+1 || r.Offset < 0 || r.Offset >= len(src) {
				t.Fatalf("too deep with %+v", r)
			}
		case TooCostly:
			if r.Offset < 0 || r.Offset >= len(src) || r.Depth > Max {
				t.Fatalf("too costly with %+v", r)
			}
		case Ambiguous:
			if src[r.Offset] != '/' {
				t.Fatalf("ambiguous at %q", src[r.Offset])
			}
		}
		// The tail never makes a script shallower than its generated
		// prefix when the prefix is read as the parser reads it.
		if tail == "" && closed && int(depth)%(deepgentest.MaxDepth+1) > Max && shape%deepgentest.Shapes != 9 && r.OK() {
			t.Fatalf("shape %d depth %d judged to fit: %+v", shape, depth, r)
		}
		if r2 := Check(tail, Max); r2.Reason == TooDeep && r2.Offset >= len(tail) {
			t.Fatalf("offset past the text: %+v", r2)
		}
	})
}

// BenchmarkCheck measures the pass on the example script repeated to
// about 1 MB, the size of the largest scripts the language server is
// measured with.
func BenchmarkCheck(b *testing.B) {
	one, err := os.ReadFile("../testdata/scripts/customer-summary.js")
	if err != nil {
		b.Fatal(err)
	}
	src := strings.Repeat(string(one), 1<<20/len(one))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if r := Check(src, Max); !r.OK() {
			b.Fatal(r)
		}
	}
}

// TestCheckParseBudget: goja's parser walks down the body of every arrow
// function without braces and compares every label with those around it,
// so chains of them cost the square of their length without one bracket
// (issue 23, finding 12). They count as nesting and against MaxCost.
func TestCheckParseBudget(t *testing.T) {
	for _, tc := range []struct {
		name   string
		src    string
		reason Reason
	}{
		{"arrow chain", strings.Repeat("()=>", 50000) + "1", TooDeep},
		{"named arrow chain", "return " + strings.Repeat("x => ", 50000) + "x", TooDeep},
		{"arrows over lines", strings.Repeat("x =>\n", 50000) + "x", TooDeep},
		{"arrows then a long body", strings.Repeat("()=>", Max-1) + strings.Repeat("!", 200000) + "1", TooCostly},
		{"label chain", strings.Repeat("a:", 100000) + "1", TooCostly},
		{"labels and loops", strings.Repeat("a: for (;;) ", 20000) + ";", TooCostly},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := Check(tc.src, Max); r.Reason != tc.reason || r.Offset < 0 || r.Offset >= len(tc.src) {
				t.Errorf("Check = %+v, want reason %d", r, tc.reason)
			}
		})
	}
	for _, tc := range []struct{ name, src string }{
		{"arrows as arguments", strings.Repeat("xs.map(x => x + 1);\n", 20000)},
		{"arrows without semicolons", strings.Repeat("const f = x => x + 1\n", 20000)},
		{"arrows in a list", "return [" + strings.Repeat("x => x, ", 20000) + "]"},
		{"block bodies", strings.Repeat("const f = () => { return 1 }\n", 20000)},
		{"object keys", "return {" + strings.Repeat("a: 1, ", 50000) + "}"},
		{"switch without semicolons", "switch (x) {\n" + strings.Repeat("case 1:\n  f()\n", 20000) + "}"},
		{"curried", "const add = a => b => c => a + b + c;"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := Check(tc.src, Max); !r.OK() {
				t.Errorf("Check = %+v, want it to fit", r)
			}
		})
	}
}
