package restclient

import "testing"

// BenchmarkFixtureMatch: which fixture answers ordinary calls, over
// ordinary path patterns (a literal, "*", "a/*/b", "**/x/*", ""); the
// glob matcher is most of the work. docs/decisions.md quotes it.
func BenchmarkFixtureMatch(b *testing.B) {
	m, err := ParseMock("bench.mock.yaml", []byte(`fixtures:
  - {serviceId: crm, method: GET, path: "customers/42", body: {}}
  - {serviceId: crm, method: GET, path: "customers/*", body: {}}
  - {serviceId: crm, method: GET, path: "customers/*/orders/*", body: {}}
  - {serviceId: crm, method: GET, path: "**/items/*", body: {}}
  - {serviceId: crm, method: POST, path: "", body: {}}
  - {serviceId: crm, path: "**", body: {}}
`))
	if err != nil {
		b.Fatal(err)
	}
	calls := []struct {
		method string
		params []string
	}{
		{"GET", []string{"customers", "42"}},
		{"GET", []string{"customers", "7"}},
		{"GET", []string{"customers", "7", "orders", "9"}},
		{"GET", []string{"shops", "3", "carts", "1", "items", "5"}},
		{"POST", nil},
		{"DELETE", []string{"customers", "7", "notes"}},
	}
	for b.Loop() {
		for _, c := range calls {
			if !m.answers("crm", c.method, c.params, nil) {
				b.Fatalf("no fixture for %v", c)
			}
		}
	}
}
