package scripttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	yaml "go.yaml.in/yaml/v4"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

func mustJSON(t *testing.T, s string) any {
	t.Helper()
	v, err := decodeJSON([]byte(s))
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

// equal reports deep equality of two decoded JSON values.
func equal(a, b any) bool { return len(diff("$", a, b, false, nil)) == 0 }

func TestDiff(t *testing.T) {
	tests := []struct {
		name, want, got string
		subset          bool
		lines           []string
	}{
		{"equal", `{"a":1,"b":[1,"x"]}`, `{"b":[1,"x"],"a":1}`, false, nil},
		{"numbers by value", `{"a":1.50,"b":2e2}`, `{"a":1.5,"b":200}`, false, nil},
		{"changed", `{"a":1}`, `{"a":2}`, false, []string{"$.a: expected 1, got 2"}},
		{"missing and extra", `{"a":1}`, `{"b":1}`, false, []string{"$.a: expected 1, got nothing (no such key)", "$.b: expected nothing, got 1"}},
		{"subset ignores extra keys", `{"a":{"b":1}}`, `{"a":{"b":1,"c":2},"d":3}`, true, nil},
		{"subset arrays keep their length", `[{"a":1}]`, `[{"a":1,"b":2},{"a":3}]`, true, []string{"$: expected 1 elements, got 2"}},
		{"types", `{"a":"1"}`, `{"a":1}`, false, []string{`$.a: expected "1", got 1`}},
		{"null vs absent", `{"a":null}`, `{}`, false, []string{"$.a: expected null, got nothing (no such key)"}},
		{"odd keys", `{"a b":1,"":2}`, `{"a b":0,"":2}`, false, []string{`$["a b"]: expected 1, got 0`}},
		{"nested path", `{"x":[{"y":true}]}`, `{"x":[{"y":false}]}`, false, []string{"$.x[0].y: expected true, got false"}},
		{"object vs array", `{}`, `[]`, false, []string{"$: expected {}, got []"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mismatchLines(diff("$", mustJSON(t, tt.want), mustJSON(t, tt.got), tt.subset, nil))
			if len(got) == 0 {
				got = nil
			}
			if d := cmp.Diff(tt.lines, got); d != "" {
				t.Errorf("diff (-want +got):\n%s", d)
			}
		})
	}
}

// TestJSONNodeKeepsTypes: --update writes values YAML reads back as the
// same JSON: a string of digits stays a string, key order stays.
func TestJSONNodeKeepsTypes(t *testing.T) {
	raw := `{"z":"42","a":true,"s":"true","n":1.50,"e":[],"o":{},"u":"ü\n2","nil":null}`
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	if err := enc.Encode(jsonNode(json.RawMessage(raw))); err != nil {
		t.Fatal(err)
	}
	var back any
	if err := yaml.Unmarshal([]byte(b.String()), &back); err != nil {
		t.Fatal(err)
	}
	got, _ := normalize(back)
	if !equal(mustJSON(t, raw), got) {
		t.Errorf("round trip changed the value:\n%s", b.String())
	}
	if !strings.HasPrefix(b.String(), "z: ") {
		t.Errorf("key order lost:\n%s", b.String())
	}
}

// TestParseErrorsNameTheLine: each problem of a test file is reported at
// its line.
func TestParseErrorsNameTheLine(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.js"), []byte("return 1;"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text string
		line int
		msg  string
	}{
		{"script: s.js\ncases:\n  - name: a\n    reslt: 1\n", 4, `unknown key "reslt": did you mean "result"?`},
		{"script: s.js\ncases:\n  - name: a\n  - name: a\n", 4, `case "a" is named again`},
		{"script: s.js\ncases:\n  - input: {}\n", 3, "case 1 has no name"},
		{"script: s.js\nkind: task\n", 2, "unknown script kind"},
		{"script: s.js\nresult: 1\nresultMatch: 1\n", 3, "give one"},
		{"script: nope.js\n", 1, "cannot read the script"},
		{"script: s.js\nfixtures: nope.yaml\n", 2, "fixtures:"},
		{"script: s.js\nfixtures:\n  - serviceId: a\n  - serviceId: b\n    tims: 1\n", 5, `fixtures: fixture 2: unknown key "tims": did you mean "times"?`},
		// Issue 23, finding 5: an alias bomb in the fixtures, refused at
		// its alias by the YAML budget.
		{"script: s.js\nfixtures:\n  - serviceId: a\n    body:\n" + bombLines("      ", 9), 9, "its aliases expand the document"},
		{"script: s.js\ncases:\n  - name: a\n    fixtures:\n      - method: GET\n", 5, "fixtures: fixture 1: serviceId is required"},
		{"- a\n", 1, "a test file is a mapping"},
		{"script: [\n", 2, ""},
	}
	for _, tt := range tests {
		f := filepath.Join(dir, "x.test.yaml")
		if err := os.WriteFile(f, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(f)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%q: error %v, want an *Error", tt.text, err)
			continue
		}
		if e.Line != tt.line || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("%q: %v; want line %d and %q", tt.text, err, tt.line, tt.msg)
		}
	}
}

// FuzzParse: no test file makes Parse panic, and every error it returns
// names a line.
func FuzzParse(f *testing.F) {
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.js"), []byte("return 1;"), 0o644); err != nil {
		f.Fatal(err)
	}
	for _, g := range []string{"../testdata/ci/tests/*.test.yaml", "../cmd/restls/testdata/scripttest/*.test.yaml"} {
		files, _ := filepath.Glob(g)
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(strings.Replace(string(data), "script: ../scripts/", "script: ", 1))
		}
	}
	deep := "script: s.js\nresult: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n"
	f.Add(deep)
	var many strings.Builder
	many.WriteString("script: s.js\ncases:\n")
	for i := range 2000 {
		many.WriteString("  - name: c" + strings.Repeat("x", i%50) + string(rune('a'+i%26)) + "\n    resultMatch: {a: [1, {b: c}]}\n")
	}
	f.Add(many.String())
	// Alias bombs in the fixtures and in a result: refused by the budget.
	f.Add("script: s.js\nfixtures:\n  - serviceId: a\n    body:\n" + bombLines("      ", 9))
	f.Add("script: s.js\nresult:\n" + bombLines("  ", 9))
	// The faults key in each of its forms, and broken ones.
	f.Add("script: s.js\nfaults: true\ncases:\n  - name: a\n    faults: {outcomes: [404, read-timeout], fail: [escaped], expect: {\"404\": handled}}\n  - name: b\n    faults: false\n")
	f.Add("script: s.js\nfaults: {expect: crashed, outcomes: [999], fail: [handled]}\nresult: 1\n")
	f.Add("script: s.js\nfaults: [1]\nresult: 1\n")
	f.Fuzz(func(t *testing.T, text string) {
		_, err := Parse(filepath.Join(dir, "x.test.yaml"), []byte(text))
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("error %v is not an *Error", err)
		}
	})
}

// TestRunParallel runs the example repository's tests on several workers
// (run it with -race), and a fixture with times: 1 answers once in every
// case: each case counts its own fixtures.
func TestRunParallel(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("s.js", `return api.rest.v1.get("crm", {}, {}).body;`)
	var b strings.Builder
	b.WriteString("script: s.js\nfixtures:\n  - { serviceId: crm, times: 1, body: 1 }\ncases:\n")
	for i := range 20 {
		b.WriteString("  - name: c" + string(rune('a'+i)) + "\n    result: 1\n")
	}
	write("once.test.yaml", b.String())
	snap := config.Load(config.Sources{ConfigRoot: "../testdata/config"})
	rep, err := Run(context.Background(), Options{Paths: []string{"../testdata/ci", dir}, Snapshot: workspace.Snapshot{Config: snap}, Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range rep.Outcomes {
		if !o.Passed {
			t.Errorf("%s: %s: %s", o.File, o.Name, strings.Join(o.Failures, "\n"))
		}
	}
	if rep.Passed != 27 || rep.Files != 4 {
		t.Errorf("%d passed in %d files, want 27 in 4", rep.Passed, rep.Files)
	}
}

// TestCaseFixturesFile: a case may name a fixtures file, consulted
// before the file's fixtures.
func TestCaseFixturesFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("s.js", `return api.rest.v1.get("crm", {}, {}).body;`)
	write("two.yaml", "- { serviceId: crm, body: 2 }\n")
	write("t.test.yaml", "script: s.js\nfixtures:\n  - { serviceId: crm, body: 1 }\ncases:\n  - name: file\n    result: 1\n  - name: own\n    fixtures: two.yaml\n    result: 2\n")
	if err := compileSchema(t).Validate(yamlAsJSON(t, filepath.Join(dir, "t.test.yaml"))); err != nil {
		t.Errorf("does not validate: %v", err)
	}
	snap := config.Load(config.Sources{ConfigRoot: "../testdata/config"})
	rep, err := Run(context.Background(), Options{Paths: []string{dir}, Snapshot: workspace.Snapshot{Config: snap}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed != 2 {
		for _, o := range rep.Outcomes {
			t.Errorf("%s: %v", o.Name, o.Failures)
		}
	}
}

// bombLines is an alias bomb of levels lists of 9, each line indented.
func bombLines(indent string, levels int) string {
	var b strings.Builder
	b.WriteString(indent + "l0: &l0 [x,x,x,x,x,x,x,x,x]\n")
	for i := 1; i < levels; i++ {
		fmt.Fprintf(&b, "%sl%d: &l%d [%s*l%d]\n", indent, i, i, strings.Repeat(fmt.Sprintf("*l%d,", i-1), 8), i-1)
	}
	return b.String()
}

// TestFaultFixtureCases: a test file's fixtures can fail a call
// (fault), so a case runs the script's error path: one expects the
// RestClientError to escape, one the script's fallback after catching
// it. The file validates against the test file schema.
func TestFaultFixtureCases(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("s.js", "var r;\ntry { r = api.rest.v1.get(\"crm\", {pathParams: [\"a\"]}, {}); } catch (e) { if (e.status && e.status.code) { return \"status\"; } if (e.code === \"connection-refused\") { return \"fallback\"; } throw e; }\nreturn r.body;\n")
	write("t.test.yaml", `script: s.js
cases:
  - name: escapes
    fixtures:
      - {serviceId: crm, path: a, fault: read-timeout}
    error: {name: RestClientError, code: read-timeout}
  - name: html
    fixtures:
      - {serviceId: crm, fault: not-json, status: 203}
    error: {code: not-json}
  - name: falls back
    fixtures:
      - {serviceId: crm, fault: connection-refused}
    result: fallback
`)
	if err := compileSchema(t).Validate(yamlAsJSON(t, filepath.Join(dir, "t.test.yaml"))); err != nil {
		t.Errorf("does not validate: %v", err)
	}
	snap := config.Load(config.Sources{ConfigRoot: "../testdata/config"})
	rep, err := Run(context.Background(), Options{Paths: []string{dir}, Snapshot: workspace.Snapshot{Config: snap}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed != 3 {
		for _, o := range rep.Outcomes {
			t.Errorf("%s: %v", o.Name, o.Failures)
		}
	}
}
