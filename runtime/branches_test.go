package runtime

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/restls/restls/runtime/dryrun"
)

// covered is a CoverageObserver that keeps what it hears.
type covered struct {
	reached
	counts []dryrun.Coverage
	sites  []string
}

func (c *covered) Covered(cv dryrun.Coverage) { c.counts = append(c.counts, cv) }
func (c *covered) CallSite(i, line, column int) {
	c.sites = append(c.sites, fmt.Sprintf("%d@%d:%d", i, line, column))
}

var _ dryrun.CoverageObserver = (*covered)(nil)

// TestBranchesAndCallSites: a CoverageObserver hears, once at the end,
// how often each statement ran and each arm of each branch point,
// numbered as NewCoverageMap numbers them, and where each call was made,
// at the call site NewCoverageMap lists; the result is what it is
// without coverage (values pass through the counting).
func TestBranchesAndCallSites(t *testing.T) {
	reg := binRegistry(t, "http://127.0.0.1:1")
	src := lines(
		`var a = 0 || null;`,                        // 1: || right side
		`var b = a ?? "d";`,                         // 2: ?? right side
		`if (b === "d") { a = 1; } else { a = 2; }`, // 3: if then
		`var c = a > 5 ? "big" : "small";`,          // 4: ?: else
		`switch (c) {`,                              // 5
		`case "big": a = 3;`,                        // 6
		`case "small": a = 4;`,                      // 7
		`}`,                                         // 8
		`var r;`,                                    // 9
		`try {`,                                     // 10
		`  r = api.rest.v1.get("bin", {pathParams: ["x"]}, {}).body;`, // 11
		`} catch (e) { r = e.status && e.status.code; }`,              // 12
		`return [a, b, c, r];`)                                        // 13
	m, err := NewCoverageMap(src)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, b := range m.Branches {
		kinds = append(kinds, fmt.Sprintf("%s@%d:%d/%d", b.Kind, b.Line, b.Column, b.Arms))
	}
	wantKinds := []string{"||@1:11/2", "??@2:11/2", "if@3:1/2", "?:@4:9/2", "switch@5:1/2", "&&@12:28/2"}
	if !slices.Equal(kinds, wantKinds) {
		t.Errorf("branches %q, want %q", kinds, wantKinds)
	}
	if len(m.CallSites) != 1 || m.CallSites[0] != (CallSite{Line: 11, Column: 7, Method: "get", ServiceID: "bin", paren: Position{11, 22}}) {
		t.Errorf("call sites %+v", m.CallSites)
	}
	if len(m.Statements) != 14 {
		t.Errorf("statements %+v", m.Statements)
	}

	obs := &covered{}
	fixtures := mock(t, `[{serviceId: bin, method: GET, path: x, status: 404, body: {}}]`)
	res := run(t, reg, src, func(o *Options) { o.Observer, o.Statements, o.Mock = obs, true, fixtures })
	if got := mustReturn(t, res); got != `[4,"d","small",404]` {
		t.Errorf("result %s", got)
	}
	if len(obs.counts) != 1 {
		t.Fatalf("counts heard %d times, want once", len(obs.counts))
	}
	cv := obs.counts[0]
	if got, want := fmt.Sprint(cv.Arms), "[[0 1] [0 1] [1 0] [0 1] [0 1] [0 1]]"; got != want {
		t.Errorf("arms %s, want %s", got, want)
	}
	var ran []string
	for _, c := range cv.Statements {
		ran = append(ran, fmt.Sprintf("%d:%d*%d", c.Line, c.Column, c.Count))
	}
	// Not 3:34 (else), 6:13 (case "big"); each once.
	wantRan := []string{"1:1*1", "2:1*1", "3:1*1", "4:1*1", "5:1*1", "9:1*1", "10:1*1", "13:1*1", "3:18*1", "7:15*1", "11:3*1", "12:15*1"}
	if !slices.Equal(ran, wantRan) {
		t.Errorf("statements counted %q, want %q", ran, wantRan)
	}
	if len(obs.at) != 0 {
		t.Errorf("a coverage run called Statement: %q", obs.at)
	}
	if want := []string{"0@11:22"}; !slices.Equal(obs.sites, want) {
		t.Errorf("call sites %q, want %q", obs.sites, want)
	}
	if i, ok := m.CallSiteAt(11, 22); !ok || i != 0 {
		t.Errorf("CallSiteAt(11, 22) = %d, %v", i, ok)
	}

	// Statements without a CoverageObserver: no branch hooks.
	plain := &reached{}
	res = run(t, reg, src, func(o *Options) { o.Observer, o.Statements, o.Mock = plain, true, fixtures })
	if got := mustReturn(t, res); got != `[4,"d","small",404]` {
		t.Errorf("result without coverage %s", got)
	}
}

// FuzzCoverageMap: any text gets a coverage map or an error, never a
// crash or a hang; a map's places are inside the text and its branches
// have arms.
func FuzzCoverageMap(f *testing.F) {
	f.Add("if (a) { b(); } else if (c) d(); return a && b || c ?? d ? 1 : 2;")
	f.Add("switch (x) { case 1: case 2: y(); default: z(); }\nfor (;;) { if (q) break; }")
	f.Add("var r = api.rest.v1.get(\"svc\", {}, {}); api.rest.v1.post(s, {}, {}, {});")
	f.Add(strings.Repeat("if (a) {", 300) + strings.Repeat("}", 300))
	f.Add(strings.Repeat("a && ", 1000) + "b;")
	f.Add(strings.Repeat("x = y ? z : w;\n", 1000))
	f.Add("\uFEFF\"use strict\";\nlabel: while (a) { continue label; }")
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1<<16 {
			return
		}
		m, err := NewCoverageMap(src)
		if err != nil {
			return
		}
		lines := strings.Count(src, "\n") + 1
		for _, p := range m.Statements {
			if p.Line < 1 || p.Line > lines {
				t.Fatalf("statement at line %d of %d", p.Line, lines)
			}
		}
		for _, b := range m.Branches {
			if b.Arms < 1 || b.Line > lines {
				t.Fatalf("branch %+v", b)
			}
		}
	})
}

// TestCoverageLongScript: every statement of a 100,000-statement script
// counts (the coverage walk meets the statement hooks too and goes
// further than the statement walk), and a run past any bound goes on.
func TestCoverageLongScript(t *testing.T) {
	var b strings.Builder
	for i := range 100000 {
		fmt.Fprintf(&b, "var x%d = %d;\n", i, i)
	}
	b.WriteString("return 1;")
	obs := &covered{}
	res := Run(context.Background(), Options{Source: b.String(), Observer: obs, Statements: true})
	if res.Error != nil || string(res.Result) != "1" {
		t.Fatalf("result %s %+v", res.Result, res.Error)
	}
	if len(obs.counts) != 1 || len(obs.counts[0].Statements) != 100001 {
		n := 0
		if len(obs.counts) == 1 {
			n = len(obs.counts[0].Statements)
		}
		t.Errorf("%d statements counted, want 100001", n)
	}
}
