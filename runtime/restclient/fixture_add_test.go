package restclient

import (
	"strings"
	"testing"
)

// TestAddFixtures: generated fixtures follow those already in a YAML
// file (its comments kept) or a JSON file (its wrapper kept), and a new
// file says where its fixtures came from; every result parses back.
func TestAddFixtures(t *testing.T) {
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
