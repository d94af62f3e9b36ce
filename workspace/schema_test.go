package workspace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	yaml "go.yaml.in/yaml/v4"

	"github.com/restls/restls/jslevel"
)

// schemaKeys builds the keySet a JSON Schema object describes: its
// properties (through $ref into $defs), and additionalProperties when it
// is an object schema of its own.
func schemaKeys(t *testing.T, defs map[string]any, s map[string]any) *keySet {
	t.Helper()
	if ref, ok := s["$ref"].(string); ok {
		name, ok := bytes.CutPrefix([]byte(ref), []byte("#/$defs/"))
		if !ok {
			t.Fatalf("$ref %s outside $defs", ref)
		}
		return schemaKeys(t, defs, defs[string(name)].(map[string]any))
	}
	if s["type"] != "object" {
		return nil
	}
	props, hasProps := s["properties"].(map[string]any)
	if !hasProps {
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			if v := schemaKeys(t, defs, ap); v != nil {
				return &keySet{any: v}
			}
		}
		return nil
	}
	if s["additionalProperties"] != false {
		t.Errorf("an object with properties must say additionalProperties: false, as the decoder refuses unknown keys")
	}
	ks := &keySet{fields: map[string]*keySet{}}
	for k, v := range props {
		ks.fields[k] = schemaKeys(t, defs, v.(map[string]any))
	}
	return ks
}

// compareKeys lists where schema and decoder know different keys.
func compareKeys(path string, schema, decoder *keySet) []string {
	if (schema == nil) != (decoder == nil) {
		return []string{fmt.Sprintf("%s: the schema checks keys: %v, the decoder: %v", path, schema != nil, decoder != nil)}
	}
	if schema == nil {
		return nil
	}
	if (schema.any == nil) != (decoder.any == nil) {
		return []string{fmt.Sprintf("%s: free keys in the schema: %v, in the decoder: %v", path, schema.any != nil, decoder.any != nil)}
	}
	if schema.any != nil {
		return compareKeys(path+".*", schema.any, decoder.any)
	}
	sk, dk := slices.Sorted(maps.Keys(schema.fields)), slices.Sorted(maps.Keys(decoder.fields))
	if !slices.Equal(sk, dk) {
		return []string{fmt.Sprintf("%s: the schema has the keys %v, the decoder %v", path, sk, dk)}
	}
	var out []string
	for _, k := range sk {
		out = append(out, compareKeys(path+"."+k, schema.fields[k], decoder.fields[k])...)
	}
	return out
}

// TestSchemaKeysMatchDecoder: restls.schema.json and the Go decoder
// (rawProject's yaml tags, through which unknown keys are found) know
// the same keys at every level, so the editor and the CLI agree on what
// a typo is.
func TestSchemaKeysMatchDecoder(t *testing.T) {
	var s map[string]any
	if err := json.Unmarshal(Schema, &s); err != nil {
		t.Fatal(err)
	}
	defs, _ := s["$defs"].(map[string]any)
	schema := schemaKeys(t, defs, s)
	for _, msg := range compareKeys("restls.yaml", schema, projectKeys()) {
		t.Error(msg)
	}
	// The comparison can fail: a key only the schema has, deep down, is
	// found.
	schema.fields["environments"].any.fields["openapi"] = nil
	if got := compareKeys("restls.yaml", schema, projectKeys()); len(got) != 1 || !strings.Contains(got[0], "restls.yaml.environments.*") {
		t.Errorf("an extra key in environments: %q", got)
	}
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	const url = "https://github.com/restls/restls/workspace/schema/restls.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func asJSON(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if v == nil {
		v = map[string]any{} // a file of comments only: a project of defaults, as the decoder reads it
	}
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestSchemaAgreesOnFiles: the files the decoder takes validate, those
// whose keys or values it refuses do not.
func TestSchemaAgreesOnFiles(t *testing.T) {
	sch := compileSchema(t)
	for name, data := range map[string]string{
		"full":  fullProject,
		"empty": "{}\n",
	} {
		if p := ParseProject(name, []byte(data)); p.HasErrors() {
			t.Errorf("%s: the decoder refuses it: %v", name, p.Diagnostics)
		}
		if err := sch.Validate(asJSON(t, []byte(data))); err != nil {
			t.Errorf("%s: the schema refuses it: %v", name, err)
		}
	}
	for name, data := range map[string]string{
		"typo":       "configRot: x\n",
		"nested":     "check: {includes: [a]}\n",
		"env typo":   "environments: {test: {serviceXML: x}}\ndefaultEnvironment: test\n",
		"kind":       "scriptKinds: {\"**\": scriptTsk}\n",
		"strict":     "check: {strict: maybe}\n",
		"properties": "properties: a.yml\n",
		"engine":     "engine: ES2015\n",
		"engine map": "engine: {level: es5.1}\n",
	} {
		if p := ParseProject(name, []byte(data)); !p.HasErrors() {
			t.Errorf("%s: the decoder takes it", name)
		}
		if err := sch.Validate(asJSON(t, []byte(data))); err == nil {
			t.Errorf("%s: the schema takes it", name)
		}
	}
}

// TestSchemaEngineLevels: the schema's engine levels are jslevel's, and
// each validates and decodes.
func TestSchemaEngineLevels(t *testing.T) {
	sch := compileSchema(t)
	for _, name := range jslevel.Names() {
		data := "engine: " + name + "\n"
		if p := ParseProject(name, []byte(data)); p.HasErrors() || p.EngineLevel.String() != name {
			t.Errorf("%s: the decoder: %v, %v", name, p.EngineLevel, p.Diagnostics)
		}
		if err := sch.Validate(asJSON(t, []byte(data))); err != nil {
			t.Errorf("%s: the schema refuses it: %v", name, err)
		}
	}
}
