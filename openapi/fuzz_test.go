package openapi

import (
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
