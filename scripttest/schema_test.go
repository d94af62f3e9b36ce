package scripttest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	yaml "go.yaml.in/yaml/v4"

	_ "github.com/restls/restls/internal/goldentest"
	"github.com/restls/restls/runtime/restclient"
)

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	for _, s := range []struct {
		url  string
		data []byte
	}{
		{"https://github.com/restls/restls/runtime/restclient/schema/mock.schema.json", restclient.MockSchema},
		{"https://github.com/restls/restls/scripttest/schema/test.schema.json", Schema},
	} {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(s.data))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource(s.url, doc); err != nil {
			t.Fatal(err)
		}
	}
	sch, err := c.Compile("https://github.com/restls/restls/scripttest/schema/test.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func yamlAsJSON(t *testing.T, file string) any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", file, err)
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

// TestSchema: every test file restls parses validates against the
// published schema, and the malformed ones do not.
func TestSchema(t *testing.T) {
	sch := compileSchema(t)
	valid, _ := filepath.Glob("../testdata/ci/tests/*.test.yaml")
	for _, f := range []string{"passing", "failing", "erroring"} {
		valid = append(valid, "../cmd/restls/testdata/scripttest/"+f+".test.yaml")
	}
	for _, f := range valid {
		if _, err := Load(f); err != nil {
			t.Errorf("%s does not load: %v", f, err)
		}
		if err := sch.Validate(yamlAsJSON(t, f)); err != nil {
			t.Errorf("%s does not validate: %v", f, err)
		}
	}
	invalid := map[string]string{
		"typo.test.yaml":     "script: s.js\ncases:\n  - name: a\n    reslt: 1\n",
		"both.test.yaml":     "script: s.js\nresult: 1\nerror: { code: x }\n",
		"noscript.test.yaml": "result: 1\n",
		"mixed.test.yaml":    "script: s.js\nresult: 1\ncases:\n  - name: a\n",
		"fixture.test.yaml":  "script: s.js\nfixtures:\n  - method: GET\n",
		// Absolute paths (input.NamedPath): /s.js was DIR/s.js.
		"abs.test.yaml":    "script: /s.js\nresult: 1\n",
		"win.test.yaml":    "script: 'C:\\s.js'\nresult: 1\n",
		"absfix.test.yaml": "script: s.js\nfixtures: /f.yaml\nresult: 1\n",
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.js"), []byte("return 1;"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, text := range invalid {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if sch.Validate(yamlAsJSON(t, f)) == nil {
			t.Errorf("%s validates:\n%s", name, text)
		}
		if _, err := Load(f); err == nil {
			t.Errorf("%s loads:\n%s", name, text)
		}
	}
}
