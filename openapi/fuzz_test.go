package openapi

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// FuzzBuild feeds mutated descriptions to the index builder and the
// lookups the hints make on its result: none may panic or loop.
func FuzzBuild(f *testing.F) {
	for _, file := range []string{"testdata/shop.yaml", "testdata/things31.json"} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	// Deep: schemas nested through properties, items and allOf, and a
	// $ref cycle.
	var deep strings.Builder
	deep.WriteString(`{"openapi":"3.0.0","paths":{"/a/{b}":{"get":{"responses":{"200":{"content":{"application/json":{"schema":`)
	for range 200 {
		deep.WriteString(`{"allOf":[{"$ref":"#/components/schemas/X"}],"items":{"properties":{"p":`)
	}
	deep.WriteString(`{}`)
	for range 200 {
		deep.WriteString(`}}}`)
	}
	deep.WriteString(`}}}}}}},"components":{"schemas":{"X":{"properties":{"x":{"$ref":"#/components/schemas/X"}},"allOf":[{"$ref":"#/components/schemas/X"}]}}}}`)
	f.Add([]byte(deep.String()))
	// Large: many paths and parameters.
	var large strings.Builder
	large.WriteString("openapi: 3.1.0\npaths:\n")
	for i := range 2000 {
		fmt.Fprintf(&large, "  /r%d/{id}/s%d:\n    get:\n      parameters:\n        - {name: q%d, in: query, required: true, schema: {type: [string, \"null\"], enum: [a, b]}}\n      responses:\n        \"200\": {description: ok}\n", i%50, i, i)
	}
	f.Add([]byte(large.String()))
	f.Add([]byte(`{"swagger":"2.0","host":"h","basePath":"/v","paths":{"/x":{"post":{"parameters":[{"in":"body","name":"b","schema":{"$ref":"#/definitions/D"}},{"in":"formData","name":"f","type":"file"}]}}},"definitions":{"D":{"$ref":"#/definitions/D"}}}`))
	// Request schemas the rewrite must read: 3.0 with 3.1's numeric
	// exclusiveMinimum, nullable beside oneOf, patterns RE2 cannot read,
	// a number the validator would take long to read, $dynamicRef,
	// boolean schemas, a 2.0 parameter's own keys.
	f.Add([]byte(`{"openapi":"3.0.0","paths":{"/a/{b}":{"post":{"parameters":[{"name":"b","in":"path","schema":{"type":"integer","exclusiveMinimum":3,"minimum":1e999999999}},{"name":"h","in":"header","schema":{"pattern":"(?=x)","format":"uuid"}}],` +
		`"requestBody":{"content":{"application/json":{"schema":{"nullable":true,"oneOf":[{"$ref":"#/components/schemas/C"},{"type":"string","enum":[]}],"required":["x",1,"x"],"properties":{"x":{"readOnly":true},"y":true,"z":{"$dynamicRef":"#a"}},"patternProperties":{"\\":{}},"additionalProperties":false}}}}}}},` +
		`"components":{"schemas":{"C":{"type":["object","file"],"items":[{},false],"const":{"a":[1,2]},"multipleOf":0,"exclusiveMaximum":true,"$ref":"#/components/schemas/C"}}}}`))
	f.Add([]byte(`{"swagger":"2.0","paths":{"/x":{"get":{"parameters":[{"in":"query","name":"q","type":"array","items":{"type":"integer","maximum":"9"},"x-nullable":true,"pattern":"` + strings.Repeat("a", 5000) + `"}]}}}}`))
	// Answers a fixture is built from: examples, a $ref'd example, allOf
	// and oneOf, bounds, a cycle.
	f.Add([]byte(`{"openapi":"3.1.0","paths":{"/a":{"get":{"responses":{"2XX":{"content":{"application/json":{"examples":{"e":{"$ref":"#/components/examples/E"}},` +
		`"schema":{"allOf":[{"$ref":"#/components/schemas/S"},{"oneOf":[{"type":"null"},{"type":"array","minItems":3,"items":{"type":"integer","exclusiveMinimum":2.5}}]}]}}}}}}}},` +
		`"components":{"examples":{"E":{"value":{"x":[1,{"y":null}]}}},"schemas":{"S":{"type":"object","required":["s","s"],"properties":{"s":{"$ref":"#/components/schemas/S"}}}}}}`))
	mocks, err := os.ReadFile("../testdata/mocks/customer-summary.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(mocks)
	f.Fuzz(func(t *testing.T, data []byte) {
		if rec, err := BuildRecorded("fuzz", data); err == nil {
			for _, o := range rec.Ops {
				API{Index: rec}.Match(o.Method, []Seg{{Text: o.Segments[0]}})
				walkSchema(o.Response, 0)
			}
		}
		idx, err := Build("fuzz", data)
		if err != nil {
			return
		}
		api := API{Index: idx, Prefix: []string{"r1"}}
		for i, o := range idx.Ops {
			if i == 50 {
				break // the lookups cost O(operations) each
			}
			segs := make([]Seg, len(o.Segments))
			for i, s := range o.Segments {
				segs[i] = Seg{Text: s, Computed: IsParam(s)}
			}
			api.Match(o.Method, segs)
			api.Next(o.Method, segs[:len(segs)/2])
			api.Nearest(segs)
			api.NearestSegment(segs)
			walkSchema(o.Response, 0)
			walkSchema(o.Body, 0)
			o.Response.TypeText()
			// The request schemas handed to the validator: rewritten,
			// compiled and run on a few values, never a panic.
			if v := idx.BodyValidator(o); v != nil {
				_ = v.Validate(map[string]any{"a": "x"})
			}
			for _, list := range [][]Param{o.PathParams, o.Query, o.Headers} {
				for k := range list {
					if v := idx.ParamValidator(&list[k]); v != nil {
						_ = v.Validate("1")
					}
				}
			}
		}
		// With the answers: a generated fixture is JSON, never a panic.
		ans, err := BuildAnswers("fuzz", data)
		if err != nil {
			return
		}
		for i, o := range ans.Ops {
			if i == 50 {
				break
			}
			if ex := ans.AnswerExample(o); ex.Body != nil && !json.Valid(ex.Body) {
				t.Fatalf("%s %s: the generated answer is not JSON: %s", o.Method, o.Path, ex.Body)
			}
		}
	})
}

func walkSchema(s *Schema, depth int) {
	if s == nil || depth > 8 {
		return
	}
	for _, p := range s.Props {
		walkSchema(p.Schema, depth+1)
	}
	walkSchema(s.Items, depth+1)
}

// refWalkDoc is a description made from a program: each byte of prog is
// a component, C<i>, whose kind comes from the byte's low 3 bits and
// whose target, C<j>, from the rest (j may be i: a cycle, or before i: a
// loop through several); the answer is C0, and then a chain of links
// $refs: #/c/1 -> ... -> #/c/links.
func refWalkDoc(prog []byte, links int) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.1.0","info":{"title":"walk","version":"1"},"paths":{"/a":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/C0"}}}}}}},"/b":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/c/1"}}}}}}}},"components":{"schemas":{`)
	n := max(len(prog), 1)
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
		case 0:
			b.WriteString(ref)
		case 1:
			fmt.Fprintf(&b, `{"allOf":[%s,{"properties":{"p%d":{"type":"string"}}}]}`, ref, i)
		case 2:
			fmt.Fprintf(&b, `{"properties":{"x":%s,"p%d":{"type":"integer"}},"required":["x"]}`, ref, i)
		case 3:
			fmt.Fprintf(&b, `{"type":"array","items":%s}`, ref)
		case 4:
			fmt.Fprintf(&b, `{"oneOf":[%s,%s],"anyOf":[{"$ref":"#/components/schemas/C%d"}]}`, ref, ref, i)
		case 5:
			// Inline nesting below the parser's limit, a $ref at the bottom.
			for range 40 {
				b.WriteString(`{"properties":{"n":`)
			}
			b.WriteString(ref)
			b.WriteString(strings.Repeat("}}", 40))
		case 6:
			fmt.Fprintf(&b, `{"$ref":"#/components/schemas/C%d/properties/x"}`, j)
		default:
			fmt.Fprintf(&b, `{"$ref":"#/nowhere/C%d"}`, j)
		}
	}
	b.WriteString(`}},"c":{`)
	for i := 1; i < links; i++ {
		fmt.Fprintf(&b, `"%d":{"$ref":"#/c/%d"},`, i, i+1)
	}
	fmt.Fprintf(&b, `"%d":{"$ref":"#/components/schemas/C0"}}}`, max(links, 1))
	return []byte(b.String())
}

// FuzzRefWalk (issue 23, finding 1): $refs that chain, loop and nest,
// made from a program so that every input is a valid description. The
// builder must end (within maxSchemaNest and maxSchemaWork), report at
// most 100 problems, and leave every object's properties sorted by
// unique name (Schema.Prop searches them).
func FuzzRefWalk(f *testing.F) {
	f.Add([]byte{}, uint16(0))
	f.Add([]byte{0}, uint16(1))                          // C0 -> C0
	f.Add([]byte{8, 0}, uint16(2))                       // C0 -> C1 -> C0
	f.Add([]byte{1, 9, 2, 10, 3, 11, 4, 12}, uint16(10)) // allOf, properties, items, oneOf in a loop
	f.Add([]byte{5, 13, 5, 13, 5, 13, 5, 5}, uint16(3))  // inline nesting through $refs
	f.Add([]byte{6, 2, 7, 14}, uint16(5))                // a $ref into a component, one that does not resolve
	chain := make([]byte, 255)
	for i := range chain {
		chain[i] = byte((i+1)%len(chain)) << 3 // C_i -> C_{i+1}: a loop of 255 $refs
	}
	f.Add(chain, uint16(600)) // and a chain longer than maxSchemaNest
	wide := make([]byte, 200)
	for i := range wide {
		wide[i] = byte(i%31)<<3 | 1 // allOf of each other
	}
	f.Add(wide, uint16(2999))
	f.Fuzz(func(t *testing.T, prog []byte, links uint16) {
		if len(prog) > 1024 {
			prog = prog[:1024]
		}
		idx, err := Build("walk.json", refWalkDoc(prog, int(links%3000)))
		if err != nil {
			t.Fatalf("a valid description failed: %v", err)
		}
		if len(idx.Problems) > 100 {
			t.Errorf("%d problems", len(idx.Problems))
		}
		seen := map[*Schema]bool{}
		var check func(s *Schema)
		check = func(s *Schema) {
			if s == nil || seen[s] {
				return
			}
			seen[s] = true
			for i, p := range s.Props {
				if i > 0 && s.Props[i-1].Name >= p.Name {
					t.Fatalf("properties not sorted by unique name: %q then %q", s.Props[i-1].Name, p.Name)
				}
				check(p.Schema)
			}
			check(s.Items)
		}
		for _, o := range idx.Ops {
			check(o.Response)
		}
	})
}
