package openapi

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// refChain is a description whose one answer is the head of a chain of
// n local $refs: #/c/1 -> #/c/2 -> ... -> #/c/n, the last an object.
func refChain(n int) []byte {
	var b strings.Builder
	b.Grow(n * 26)
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"chain","version":"1"},"paths":{"/a":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/c/1"}}}}}}}},"c":{`)
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "\"%d\":{\"$ref\":\"#/c/%d\"},\n", i, i+1)
	}
	fmt.Fprintf(&b, `"%d":{"type":"object","properties":{"end":{"type":"string"}}}}}`, n)
	return []byte(b.String())
}

// problemWith returns the first problem whose message has every part.
func problemWith(idx *Index, parts ...string) *Problem {
	for i, p := range idx.Problems {
		ok := true
		for _, part := range parts {
			ok = ok && strings.Contains(p.Message, part)
		}
		if ok {
			return &idx.Problems[i]
		}
	}
	return nil
}

// TestRefChainBudget (issue 23, finding 1): a chain of $refs used to
// restart the depth count at each link, so 1.1 million links overflowed
// the stack. The walk stops at maxSchemaNest schemas being built and
// says where, naming the $ref; a short chain is followed to its end.
func TestRefChainBudget(t *testing.T) {
	t.Parallel()
	idx, err := Build("chain.json", refChain(100_000))
	if err != nil {
		t.Fatal(err)
	}
	p := problemWith(idx, "nested deeper than 256", `"#/c/`)
	if p == nil || p.Line == 0 {
		t.Fatalf("no problem naming the $ref where the walk stopped: %+v", idx.Problems)
	}
	if len(idx.Ops) != 1 || idx.Ops[0].Response == nil || idx.Ops[0].Response.Ref != "1" {
		t.Fatalf("the operation or its answer is missing: %+v", idx.Ops)
	}
	short, err := Build("short.json", refChain(100))
	if err != nil {
		t.Fatal(err)
	}
	if len(short.Problems) != 0 || short.Ops[0].Response.Prop("end") == nil {
		t.Errorf("a chain of 100 $refs: problems %+v, answer %+v", short.Problems, short.Ops[0].Response)
	}
}

// TestSchemaWorkBudget: 1,000 paths that $ref one path item whose body
// has 3,000 inline properties make 3 million properties to build; the
// builder stops at maxSchemaWork, keeps the paths and says so.
func TestSchemaWorkBudget(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"wide","version":"1"},"paths":{"/item":{"post":{"requestBody":{"content":{"application/json":{"schema":{"type":"object","properties":{`)
	for i := range 3000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"type":"string"}`, i)
	}
	b.WriteString(`}}}}},"responses":{"200":{"description":"ok"}}}}`)
	for i := range 1000 {
		fmt.Fprintf(&b, `,"/r%d":{"$ref":"#/paths/~1item"}`, i)
	}
	b.WriteString(`}}`)
	idx, err := Build("wide.json", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Ops) != 1001 {
		t.Errorf("%d operations, want 1001", len(idx.Ops))
	}
	if problemWith(idx, "too large to index", fmt.Sprint(maxSchemaWork)) == nil {
		t.Fatalf("no problem for the spent budget: %+v", idx.Problems)
	}
	props := 0
	for _, o := range idx.Ops {
		if o.Body != nil {
			props += len(o.Body.Props)
		}
	}
	if props > maxSchemaWork {
		t.Errorf("%d properties built, the budget is %d", props, maxSchemaWork)
	}
}

// TestRefCycles: cycles through properties, items and allOf end at the
// component being built, without a problem; the properties of a cycle
// through allOf are merged once.
func TestRefCycles(t *testing.T) {
	t.Parallel()
	idx, err := Build("cycles.yaml", []byte(`openapi: 3.0.3
info: {title: cycles, version: "1"}
paths:
  /a:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/A"}
components:
  schemas:
    A:
      allOf: [{$ref: "#/components/schemas/B"}]
      properties:
        a: {$ref: "#/components/schemas/A"}
        list: {type: array, items: {$ref: "#/components/schemas/B"}}
    B:
      allOf: [{$ref: "#/components/schemas/A"}, {$ref: "#/components/schemas/B"}]
      properties:
        b: {type: string}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Problems) != 0 {
		t.Errorf("problems: %+v", idx.Problems)
	}
	r := idx.Ops[0].Response
	var names []string
	for _, p := range r.Props {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"a", "b", "list"}) || r.Prop("a").Schema != r {
		t.Errorf("A = %v", names)
	}
}

// TestMergeKeepsFirstAndRequired: merging by an index of names (many
// properties) gives what the search of the list gave (few): each name
// once, required when any allOf part requires it, never from oneOf.
func TestMergeKeepsFirstAndRequired(t *testing.T) {
	t.Parallel()
	for _, n := range []int{3, 40} {
		var b strings.Builder
		fmt.Fprintf(&b, "openapi: 3.0.3\ninfo: {title: m, version: '1'}\npaths:\n  /m:\n    post:\n      requestBody:\n        content:\n          application/json:\n            schema:\n")
		b.WriteString("              allOf: [{$ref: '#/components/schemas/X'}, {$ref: '#/components/schemas/Y'}]\n")
		b.WriteString("              oneOf: [{$ref: '#/components/schemas/Z'}]\n")
		b.WriteString("      responses: {'200': {description: ok}}\ncomponents:\n  schemas:\n")
		obj := func(name string, from, to int, req ...int) {
			fmt.Fprintf(&b, "    %s:\n      type: object\n      required: [", name)
			for i, r := range req {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "p%03d", r)
			}
			b.WriteString("]\n      properties:\n")
			for i := from; i < to; i++ {
				fmt.Fprintf(&b, "        p%03d: {type: string, description: %s}\n", i, name)
			}
		}
		obj("X", 0, n, 1)
		obj("Y", n/2, n+n/2, n-1, n)
		obj("Z", n, 2*n, 2*n-1)
		idx, err := Build("m.yaml", []byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		body := idx.Ops[0].Body
		if len(body.Props) != 2*n {
			t.Fatalf("n=%d: %d properties, want %d", n, len(body.Props), 2*n)
		}
		for i, p := range body.Props {
			if want := fmt.Sprintf("p%03d", i); p.Name != want {
				t.Fatalf("n=%d: property %d is %s, want %s", n, i, p.Name, want)
			}
			wantReq := i == 1 || i == n-1 || i == n
			if p.Required != wantReq {
				t.Errorf("n=%d: %s required %v, want %v", n, p.Name, p.Required, wantReq)
			}
			wantFrom := "X"
			if i >= n {
				wantFrom = "Y"
			}
			if i >= n+n/2 {
				wantFrom = "Z"
			}
			if p.Schema.Description != wantFrom {
				t.Errorf("n=%d: %s from %s, want %s", n, p.Name, p.Schema.Description, wantFrom)
			}
		}
	}
}
