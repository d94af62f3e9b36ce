package hints

import "github.com/restls/restls/openapi"

// Go to definition from the flow of answer types (flow.go): the schema
// of a typed name's value (definition.go asks).

// flowDefinition opens the schema of a typed name's value: in the
// description, or the recorded fixture.
func flowDefinition(doc *Document, offset int, disp Display) (Definition, bool) {
	res, mapRange := doc.flowForRead()
	rd, rng, ok := res.readAt(offset, mapRange)
	if !ok {
		return Definition{}, false
	}
	for _, x := range rd.t.ts {
		v, ok := res.resolve(x, nil, disp)
		if !ok || v.kind != vBody || v.schema == nil || v.idx == nil || v.schema.Line <= 0 || openapi.IsURL(v.idx.Source) {
			continue
		}
		return Definition{File: v.idx.Source, Line: v.schema.Line, Range: rng}, true
	}
	return Definition{}, false
}
