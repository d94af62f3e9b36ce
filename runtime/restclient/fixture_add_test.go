package restclient

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAddFixtures: generated fixtures follow those already in a YAML
// file (its comments kept) or a JSON file (its wrapper kept), and a new
// file says where its fixtures came from; every result parses back.
func TestAddFixtures(t *testing.T) {
	t.Parallel()
	f := NewFixture{ServiceID: "shop", Method: "GET", Path: "orders/*", Status: 200, Body: []byte(`{"id":1,"tags":["a"]}`)}
	for _, tc := range []struct {
		name, old string
		asJSON    bool
		want      []string
	}{
		{"new yaml", "", false, []string{"# Fixtures generated from the services' API descriptions", "fixtures:\n- serviceId: shop\n  method: GET\n  path: orders/*\n  status: 200\n  body:\n    id: 1\n    tags:\n    - a\n"}},
		{"yaml list with a comment", "# mine\n- {serviceId: crm, path: x} # keep\n", false, []string{"# mine\n", "# keep", "- serviceId: shop\n"}},
		{"json wrapper", `{"$schema": "s.json", "fixtures": [{"serviceId": "crm"}]}`, true, []string{`"$schema": "s.json"`, `"serviceId": "crm"`, `"path": "orders/*"`, `"body": {`}},
		{"new json", "", true, []string{`"serviceId": "shop"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := AddFixtures([]byte(tc.old), tc.asJSON, []NewFixture{f})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			m, err := ParseMock("f", out)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			last := m.Fixtures[len(m.Fixtures)-1]
			if !m.Answers("shop", "GET", []string{"orders", "7"}) || last.Status != 200 || string(last.Body.JSON) != `{"id":1,"tags":["a"]}` {
				t.Errorf("the added fixture reads back as %+v\n%s", last, out)
			}
		})
	}
	if _, err := AddFixtures([]byte("a: b\n"), false, []NewFixture{f}); err == nil {
		t.Error("a file that is no fixture list was added to")
	}
}

// TestAppendFixtures (issue 33, point 12): the text inserted at the end
// of a YAML fixtures file adds the fixture after its last one, indented
// as its items are, whatever the list's form; a file whose list does not
// end it, or a flow list, is left to AddFixtures. Each result parses and
// answers the new call, the old fixtures kept.
func TestAppendFixtures(t *testing.T) {
	t.Parallel()
	f := NewFixture{ServiceID: "shop", Method: "GET", Path: "orders/*", Status: 200, Body: json.RawMessage(`{"id":1}`), Comment: "generated"}
	for _, tc := range []struct {
		name, old string
		ok        bool
	}{
		{"top-level list", "# mine\n- serviceId: other\n  method: GET\n  path: x\n", true},
		{"no newline at the end", "- serviceId: other\n  method: GET\n  path: x", true},
		{"wrapped, items indented", "fixtures:\n  - serviceId: other\n    method: GET\n    path: x\n  # last\n", true},
		{"wrapped, items at column 0", "# head\nfixtures: # all\n- serviceId: other\n  method: GET\n  body: |\n    text\n\n    more\n", true},
		{"another key after", "fixtures:\n- serviceId: other\n  path: x\nmore: 1\n", false},
		{"flow list", "fixtures: [{serviceId: other, path: x}]\n", false},
		{"flow top-level", "[{serviceId: other, path: x}]\n", false},
		{"two documents", "- serviceId: other\n  path: x\n---\n- serviceId: b\n", false},
		{"empty", "", false},
		{"no items", "fixtures:\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, ok := AppendFixtures([]byte(tc.old), []NewFixture{f})
			if ok != tc.ok {
				t.Fatalf("ok %v, want %v (%q)", ok, tc.ok, text)
			}
			if !ok {
				return
			}
			m, err := ParseMock("fixtures.yaml", []byte(tc.old+text))
			if err != nil {
				t.Fatalf("%v:\n%s", err, tc.old+text)
			}
			if !m.Answers("shop", "GET", []string{"orders", "7"}) || !m.Answers("other", "GET", []string{"x"}) || len(m.Fixtures) != 2 {
				t.Errorf("the result does not answer both calls:\n%s", tc.old+text)
			}
			if !strings.Contains(text, "# generated\n") {
				t.Errorf("no comment above the fixture:\n%s", text)
			}
		})
	}
}
