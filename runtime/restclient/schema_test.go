package restclient

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	yaml "go.yaml.in/yaml/v4"
)

// mockSchema compiles MockSchema once per test binary.
func mockSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(MockSchema))
	if err != nil {
		t.Fatalf("schema: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mock.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mock.schema.json")
	if err != nil {
		t.Fatalf("schema does not compile: %v", err)
	}
	return s
}

// validateFixtureFile checks a fixtures file (YAML or JSON) against the
// schema.
func validateFixtureFile(t testing.TB, name string, data []byte) {
	t.Helper()
	if err := validateFixtures(mockSchema(t), data); err != nil {
		t.Errorf("%s does not validate against mock.schema.json: %v", name, err)
	}
}

func validateFixtures(s *jsonschema.Schema, data []byte) error {
	if !json.Valid(data) {
		var n yaml.Node
		if err := yaml.Unmarshal(data, &n); err != nil {
			return err
		}
		j, err := yamlToJSON(&n)
		if err != nil {
			return err
		}
		data = j
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// TestFixtureFilesValidate: every fixtures file in the repository's
// testdata validates against the schema.
func TestFixtureFilesValidate(t *testing.T) {
	t.Parallel()
	var files []string
	for _, pattern := range []string{"../../testdata/mocks/*", "testdata/golden/record/*.mock.*"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	if len(files) < 2 {
		t.Fatalf("found only %v", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		validateFixtureFile(t, f, data)
		if _, err := ParseMock(f, data); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestSchemaAgreesWithTheParser: documents the parser rejects for their
// shape are rejected by the schema too, and the reverse.
func TestSchemaAgreesWithTheParser(t *testing.T) {
	t.Parallel()
	s := mockSchema(t)
	for doc, valid := range map[string]bool{
		`[{serviceId: a}]`: true,
		`{fixtures: [{serviceId: a, query: {p: [1, x]}, times: 2, delay: 1.5s}]}`:                   true,
		`[{serviceId: a, bodyBase64: "AAE="}]`:                                                      true,
		`[{"serviceId": "a", "headers": {"X": 2, "Y": true}, "query": {"p": 2, "q": [true, "x"]}}]`: true,
		`[{"serviceId": "a", "headers": {"X": {}}}]`:                                                false,
		`[{"serviceId": "a", "query": {"p": [[1]]}}]`:                                               false,
		`[{method: GET}]`:                                                        false,
		`[{serviceId: a, answer: 1}]`:                                            false,
		`[{serviceId: a, status: 42}]`:                                           false,
		`[{serviceId: a, times: -1}]`:                                            false,
		`[{serviceId: a, body: 1, bodyText: x}]`:                                 false,
		`[{serviceId: a, delay: soon}]`:                                          false,
		`{fixture: []}`:                                                          false,
		`[{serviceId: a, fault: connect-timeout, delay: 1s, times: 1}]`:          true,
		`[{serviceId: a, fault: read-timeout}]`:                                  true,
		`[{serviceId: a, fault: connection-refused, path: "x/*"}]`:               true,
		`[{serviceId: a, fault: not-json}]`:                                      true,
		`[{serviceId: a, fault: not-json, status: 204, bodyText: "<p>x</p>"}]`:   true,
		`[{serviceId: a, fault: not-json, headers: {X: y}, bodyBase64: "/w=="}]`: true,
		`[{serviceId: a, fault: dns-failure}]`:                                   false,
		`[{serviceId: a, fault: read-timeout, status: 504}]`:                     false,
		`[{serviceId: a, fault: connect-timeout, body: {}}]`:                     false,
		`[{serviceId: a, fault: connection-refused, headers: {X: y}}]`:           false,
		`[{serviceId: a, fault: read-timeout, bodyText: x}]`:                     false,
		`[{serviceId: a, fault: not-json, status: 500}]`:                         false,
		`[{serviceId: a, fault: not-json, body: {x: 1}}]`:                        false,
		`[{serviceId: a, fault: token-request-failed, times: 1}]`:                true,
		`[{serviceId: a, fault: token-request-failed, status: 401}]`:             false,
	} {
		err := validateFixtures(s, []byte(doc))
		_, perr := ParseMock("f", []byte(doc))
		if (err == nil) != valid || (perr == nil) != valid {
			t.Errorf("%s: schema says %v, parser says %v, want valid=%v", doc, err, perr, valid)
		}
	}
	if !strings.Contains(string(MockSchema), "2020-12") {
		t.Error("the schema must declare draft 2020-12")
	}
}
