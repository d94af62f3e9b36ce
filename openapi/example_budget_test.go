package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// allOfRequired is a description whose answer is an allOf of n parts,
// each an object requiring its own property; with self, each property
// is the whole allOf again (by $ref), so every level repeats the walk.
func allOfRequired(n int, self bool) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/x":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Big"}}}}}}}},"components":{"schemas":{"Big":{"allOf":[`)
	prop := `{"type":"string"}`
	if self {
		prop = `{"$ref":"#/components/schemas/Big"}`
	}
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"object","required":["p%d"],"properties":{"p%d":%s}}`, i, i, prop)
	}
	b.WriteString(`]}}}}`)
	return []byte(b.String())
}

// TestAnswerExampleAllOfBudget (issue 33, point 4): an allOf of 10,000
// parts each requiring its own property took n*n lookups per object,
// and with each property the allOf again, minutes of CPU. Every step is
// charged to maxExampleSteps now: the value comes within the budget,
// is JSON, and Cut says what was left out and where; an allOf within
// the budget is built whole.
func TestAnswerExampleAllOfBudget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n       int
		self    bool
		cut     string
		wantLen int
	}{
		{n: 10_000, self: true, cut: "the body is cut (the schema takes more than 100000 steps to build): "},
		{n: 10_000, self: false, wantLen: 10_000},
		{n: 60_000, self: false, cut: "the body is cut (the schema takes more than 100000 steps to build): "},
	} {
		t.Run(fmt.Sprintf("n=%d,self=%v", tc.n, tc.self), func(t *testing.T) {
			idx, err := BuildAnswers("big.json", allOfRequired(tc.n, tc.self))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			ex := idx.AnswerExample(idx.Ops[0])
			took := time.Since(start)
			var v map[string]any
			if err := json.Unmarshal(ex.Body, &v); err != nil {
				t.Fatalf("not a JSON object (%v): %.200s", err, ex.Body)
			}
			if tc.cut == "" {
				if ex.Cut != "" || len(v) != tc.wantLen {
					t.Errorf("cut %q, %d properties; want whole, %d", ex.Cut, len(v), tc.wantLen)
				}
			} else if !strings.HasPrefix(ex.Cut, tc.cut) || !strings.Contains(ex.Cut, "left out, the first at body") {
				t.Errorf("cut %q, want it to start %q and name the first value left out", ex.Cut, tc.cut)
			}
			if took > 2*time.Second {
				t.Errorf("took %v", took)
			}
			t.Logf("%v, %d bytes, %s", took, len(ex.Body), ex.Cut)
		})
	}
}

const fuzzSteps = maxExampleSteps / 10

// exampleDoc is a description made from a program, for the generator's
// budget: each byte of prog is a component C<i> whose kind comes from
// its low 3 bits and whose target C<j> from the rest; width sizes the
// allOfs, required lists and examples. The answers are C0 and C1.
func exampleDoc(prog []byte, width int) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.1.0","info":{"title":"gen","version":"1"},"paths":{`)
	b.WriteString(`"/a":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/C0"}}}}}}},`)
	b.WriteString(`"/b":{"get":{"responses":{"201":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/C1"},"example":`)
	b.WriteString(strings.Repeat("[", 40) + strings.Repeat(`{"k":1},`, width) + `0` + strings.Repeat("]", 40))
	b.WriteString(`}}}}}}},"components":{"schemas":{`)
	n := max(len(prog), 2)
	for i := range n {
		var c byte
		if i < len(prog) {
			c = prog[i]
		}
		j := int(c>>3) % n
		if i > 0 {
			b.WriteByte(',')
		}
		ref := fmt.Sprintf(`{"$ref":"#/components/schemas/C%d"}`, j)
		fmt.Fprintf(&b, `"C%d":`, i)
		switch c & 7 {
		case 0: // the quadratic shape: each part requires its own property
			b.WriteString(`{"allOf":[{"type":"object"}`)
			for k := range width {
				fmt.Fprintf(&b, `,{"type":"object","required":["p%d"],"properties":{"p%d":%s}}`, k, k, ref)
			}
			b.WriteString(`]}`)
		case 1: // one object requiring width names, most defined nowhere
			b.WriteString(`{"type":"object","required":[`)
			for k := range width {
				fmt.Fprintf(&b, `"r%d",`, k)
			}
			fmt.Fprintf(&b, `"x"],"properties":{"x":%s,"y":{"type":"array","minItems":16,"items":%s}}}`, ref, ref)
		case 2: // deep inline nesting, a $ref at the bottom
			for range 40 {
				b.WriteString(`{"type":"object","required":["n"],"properties":{"n":`)
			}
			b.WriteString(ref)
			b.WriteString(strings.Repeat("}}", 40))
		case 3:
			fmt.Fprintf(&b, `{"oneOf":[{"type":"null"},%s],"anyOf":[%s]}`, ref, ref)
		case 4: // nested allOfs of the same target
			fmt.Fprintf(&b, `{"allOf":[%s,{"allOf":[%s,%s]},{"type":"object","required":["z"],"properties":{"z":%s}}]}`, ref, ref, ref, ref)
		case 5:
			b.WriteString(`{"type":"string","minLength":100000,"format":"uuid"}`)
		case 6:
			fmt.Fprintf(&b, `{"type":"array","minItems":1000000,"items":%s}`, ref)
		default:
			b.WriteString(ref)
		}
	}
	b.WriteString(`}}}`)
	return []byte(b.String())
}

// FuzzAnswerExampleBudget (issue 33, point 4): whatever the description,
// the fixture value generator charges every step to maxExampleSteps (at
// most one charge, a schema's properties, past it), writes JSON, keeps
// within the bounds of what it may write, and says what it cut.
//
// It runs the walk within fuzzSteps, a tenth of maxExampleSteps, so that
// 10,000 executions stay quick; TestAnswerExampleAllOfBudget holds the
// real budget.
func FuzzAnswerExampleBudget(f *testing.F) {
	f.Add([]byte{0}, uint16(3000))                  // an allOf of 3,000 parts, each part's property the allOf again
	f.Add([]byte{0 | 1<<3, 0}, uint16(2000))        // two such allOfs, each the other's properties
	f.Add([]byte{1}, uint16(3000))                  // 3,000 required names, one object
	f.Add([]byte{2, 2 | 2<<3, 2 | 1<<3}, uint16(0)) // nesting far past maxExampleDepth
	f.Add([]byte{4, 4}, uint16(50))                 // allOfs within allOfs of themselves
	f.Add([]byte{6, 5}, uint16(1))                  // the largest array of the largest strings
	f.Add([]byte{3, 0, 1, 2, 4 | 1<<3, 5, 6 | 2<<3, 7}, uint16(100))
	f.Fuzz(func(t *testing.T, prog []byte, width uint16) {
		if len(prog) > 16 {
			prog = prog[:16]
		}
		// The seeds' widths as they are; a mutated one mostly small, so
		// that 10,000 executions stay quick.
		w := int(width)
		if w > 4000 {
			w %= 32
		}
		// The description's parts in all: a large one is the builder's
		// time, not the generator's.
		w = min(w, 4000/max(len(prog), 1))
		idx, err := BuildAnswers("gen.json", exampleDoc(prog, w))
		if err != nil {
			t.Fatalf("a valid description failed: %v", err)
		}
		for _, op := range idx.Ops {
			ex := idx.answerExample(op, fuzzSteps)
			if ex.Body == nil {
				continue
			}
			if !json.Valid(ex.Body) {
				t.Fatalf("%s %s: not JSON: %.300s", op.Method, op.Path, ex.Body)
			}
			if ex.Cut != "" && !strings.Contains(ex.Cut, "left out, the first at body") {
				t.Errorf("%s %s: the cut does not say what is left out: %s", op.Method, op.Path, ex.Cut)
			}
			if max := maxExampleBytes + 2*maxExampleLen + 64*maxExampleDepth; len(ex.Body) > max {
				t.Errorf("%s %s: %d bytes, more than %d", op.Method, op.Path, len(ex.Body), max)
			}
			for _, a := range op.answers {
				if a.raw.n == nil {
					continue
				}
				var b bytes.Buffer
				g := exampleGen{refs: idx.valid.refs, out: &b, budget: fuzzSteps}
				g.schema(&b, a.raw.n, 0)
				// One charge may pass the budget: a schema's properties.
				if g.steps > fuzzSteps+w+3 {
					t.Errorf("%s %s: %d steps", op.Method, op.Path, g.steps)
				}
			}
		}
	})
}
