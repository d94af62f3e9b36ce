package openapi

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRequestSchemaRewrite: what the validator is handed of a request
// body's schema, per dialect, judged by the values it lets through.
func TestRequestSchemaRewrite(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, version, schema, components string
		valid, invalid                    []string // JSON values
		unchecked                         bool     // no validator
	}{
		{name: "3.0 nullable", version: "3.0.3", schema: `{"type":"string","nullable":true,"maxLength":2}`,
			valid: []string{`null`, `"ab"`}, invalid: []string{`"abc"`, `1`}},
		{name: "3.0 nullable beside oneOf", version: "3.0.3", schema: `{"nullable":true,"oneOf":[{"type":"integer"},{"type":"string"}]}`,
			valid: []string{`null`, `1`, `"a"`}, invalid: []string{`true`}},
		{name: "oneOf of overlapping choices", version: "3.1.0", schema: `{"oneOf":[{"type":"number"},{"type":"integer"}]}`,
			valid: []string{`1`, `1.5`}, invalid: []string{`"1"`}},
		{name: "3.1 type list", version: "3.1.0", schema: `{"type":["integer","null"],"minimum":2}`,
			valid: []string{`null`, `2`}, invalid: []string{`1`, `"x"`}},
		{name: "3.0 exclusiveMinimum flag", version: "3.0.0", schema: `{"type":"number","minimum":1,"exclusiveMinimum":true}`,
			valid: []string{`1.5`}, invalid: []string{`1`}},
		{name: "3.0 with 3.1's numeric exclusiveMinimum", version: "3.0.0", schema: `{"type":"number","exclusiveMinimum":1}`,
			valid: []string{`1.5`}, invalid: []string{`1`}},
		{name: "3.1 exclusiveMinimum flag of 3.0", version: "3.1.0", schema: `{"type":"number","minimum":1,"exclusiveMinimum":true}`,
			valid: []string{`1.5`}, invalid: []string{`1`}},
		{name: "readOnly not required", version: "3.0.3", schema: `{"type":"object","required":["id","name"],"properties":{"id":{"$ref":"#/components/schemas/Id"},"name":{"type":"string"}}}`,
			components: `{"Id":{"type":"integer","readOnly":true}}`,
			valid:      []string{`{"name":"a"}`}, invalid: []string{`{}`, `{"name":1}`}},
		{name: "required under no properties", version: "3.0.3", schema: `{"type":"object","required":["size"],"properties":{"name":{"type":"string"}}}`,
			valid: []string{`{"size":1}`}, invalid: []string{`{"name":"a"}`}},
		{name: "pattern RE2 cannot read", version: "3.1.0", schema: `{"type":"string","pattern":"^(?=a)b"}`,
			valid: []string{`"x"`}},
		{name: "pattern too long", version: "3.1.0", schema: `{"type":"string","pattern":"^` + strings.Repeat("a", MaxPattern) + `$"}`,
			valid: []string{`"x"`}},
		{name: "patternProperties RE2 cannot read", version: "3.1.0", schema: `{"type":"object","patternProperties":{"(?=x)":{}},"additionalProperties":false}`,
			valid: []string{`{"x":1}`}},
		{name: "formats", version: "3.0.3", schema: `{"type":"object","properties":{"d":{"format":"date"},"i":{"type":"string","format":"int32"},"u":{"format":"uuid"}}}`,
			valid: []string{`{"d":"2024-01-31","i":"x"}`}, invalid: []string{`{"d":"2024-02-30"}`, `{"u":"x"}`}},
		{name: "additionalProperties false in draft 4", version: "3.0.3", schema: `{"type":"object","properties":{"a":{}},"additionalProperties":false}`,
			valid: []string{`{"a":1}`}, invalid: []string{`{"b":1}`}},
		{name: "a number too long to read is dropped", version: "3.0.3", schema: `{"type":"number","maximum":1e999999999}`,
			valid: []string{`5`}},
		{name: "unknown type dropped", version: "3.0.3", schema: `{"type":"file","maxLength":1}`,
			valid: []string{`1`}, invalid: []string{`"ab"`}},
		{name: "const in draft 4", version: "3.0.3", schema: `{"const":"a"}`,
			valid: []string{`"a"`}, invalid: []string{`"b"`}},
		{name: "a cycle of components", version: "3.1.0", schema: `{"$ref":"#/components/schemas/Node"}`,
			components: `{"Node":{"type":"object","properties":{"next":{"$ref":"#/components/schemas/Node"},"v":{"type":"integer"}}}}`,
			valid:      []string{`{"next":{"next":{"v":1}}}`}, invalid: []string{`{"next":{"next":{"v":"x"}}}`}},
		{name: "remote $ref", version: "3.1.0", schema: `{"$ref":"other.json#/x"}`, unchecked: true},
		{name: "$dynamicRef", version: "3.1.0", schema: `{"$dynamicRef":"#meta"}`, unchecked: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			comps := tc.components
			if comps == "" {
				comps = "{}"
			}
			doc := `{"openapi":"` + tc.version + `","paths":{"/x":{"post":{"requestBody":{"content":{"application/json":{"schema":` + tc.schema +
				`}}},"responses":{"200":{"description":"ok"}}}}},"components":{"schemas":` + comps + `}}`
			idx, err := Build("x.json", []byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			v := idx.BodyValidator(idx.Ops[0])
			if tc.unchecked {
				if v != nil {
					t.Fatal("a validator for a schema that cannot be checked")
				}
				return
			}
			if v == nil {
				_, err := idx.valid.compile(idx.Ops[0].bodyRaw)
				t.Fatalf("no validator: %v", err)
			}
			for _, list := range []struct {
				values []string
				valid  bool
			}{{tc.valid, true}, {tc.invalid, false}} {
				for _, s := range list.values {
					var val any
					dec := json.NewDecoder(strings.NewReader(s))
					dec.UseNumber()
					if err := dec.Decode(&val); err != nil {
						t.Fatal(err)
					}
					if err := v.Validate(val); (err == nil) != list.valid {
						t.Errorf("%s: valid %v, want %v (%v)", s, err == nil, list.valid, err)
					}
				}
			}
		})
	}
}

// TestSwaggerParamSchema: a Swagger 2.0 parameter carries its schema's
// keys itself; its required flag is not a required list.
func TestSwaggerParamSchema(t *testing.T) {
	t.Parallel()
	doc := `{"swagger":"2.0","paths":{"/x":{"get":{"parameters":[{"name":"n","in":"query","required":true,"type":"integer","maximum":5,"enum":[1,2,7]}],"responses":{"200":{"description":"ok"}}}}}}`
	idx, err := Build("x.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	v := idx.ParamValidator(&idx.Ops[0].Query[0])
	if v == nil {
		t.Fatal("no validator")
	}
	for val, valid := range map[any]bool{json.Number("1"): true, json.Number("7"): false, json.Number("3"): false, "1": false} {
		if err := v.Validate(val); (err == nil) != valid {
			t.Errorf("%v: valid %v, want %v", val, err == nil, valid)
		}
	}
}
