package restclient

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/restls/restls/input"
)

// TestMockJSONKeepsFixturesAsParsed: a Mock written as JSON and read back
// (a dry run's child reads parsed fixtures so) has the same fixtures, to
// the derived body, path pattern, delay, index and line, for every key
// and every fault; a document that breaks a fixture's rules is an error
// naming its file, line and fixture.
func TestMockJSONKeepsFixturesAsParsed(t *testing.T) {
	t.Parallel()
	doc := `# cases
fixtures:
  - serviceId: a
    method: get
    path: "customers/*"
    query: {page: 2, tag: [x, y]}
    body: {id: 1, "n": [1.50, true], "<a&b>": "<b>&</b>"}
    headers: {X-One: 1}
    times: 2
  - serviceId: a
    path: ""
    status: 404
    bodyText: nope
    delay: 5ms
  - serviceId: b
    bodyBase64: AAEC
`
	for i, f := range Faults {
		doc += fmt.Sprintf("  - {serviceId: f%d, method: post, fault: %s}\n", i, f)
	}
	m, err := ParseMock("cases.test.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	m.Advice, m.Script = " to the case's fixtures", "s.js"
	data, err := input.TextJSON(m) // as the run engine writes a child's request
	if err != nil {
		t.Fatal(err)
	}
	var back Mock
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("read back: %v\n%s", err, data)
	}
	if back.File != m.File || back.Advice != m.Advice || back.Script != m.Script || len(back.Fixtures) != len(m.Fixtures) {
		t.Fatalf("read back %q %q %q with %d fixtures, want %q %q %q with %d", back.File, back.Advice, back.Script, len(back.Fixtures), m.File, m.Advice, m.Script, len(m.Fixtures))
	}
	for i, f := range m.Fixtures {
		if !reflect.DeepEqual(*back.Fixtures[i], *f) {
			t.Errorf("fixture %d read back\n%+v\nwant\n%+v", i+1, *back.Fixtures[i], *f)
		}
	}
	if back.Fixtures[1].Line() != 10 {
		t.Errorf("fixture 2's line %d, want 10", back.Fixtures[1].Line())
	}

	bad := strings.Replace(string(data), `"delay":"5ms"`, `"delay":"soon"`, 1)
	if err := json.Unmarshal([]byte(bad), &back); err == nil || !strings.Contains(err.Error(), `cases.test.yaml:10: fixture 2: delay "soon"`) {
		t.Errorf("a bad delay read back: %v", err)
	}
}

// FuzzMockJSON: whatever a child is handed as parsed fixtures either is
// refused with an error or reads into fixtures that write back (as the
// run engine writes a child's request) to what reads the same again: a
// body's bytes included, whether it has "<" or "\u003c".
func FuzzMockJSON(f *testing.F) {
	m, err := ParseMock("f.yaml", []byte("- {serviceId: a, path: 'x/*', query: {q: [1, 2]}, body: {a: [1]}, delay: 1ms, times: 1}\n- {serviceId: b, fault: not-json}\n- {serviceId: c, fault: read-timeout}\n- {serviceId: d, bodyBase64: AA==}\n"))
	if err != nil {
		f.Fatal(err)
	}
	seed, _ := json.Marshal(m)
	f.Add(seed)
	f.Add([]byte(`{"file":"x","fixtures":[{"serviceId":"a","status":700}]}`))
	f.Add([]byte(`{"fixtures":[{"serviceId":"a","path":"[","index":1,"line":3}]}`))
	f.Add([]byte(`{"fixtures":null}`))
	f.Add([]byte(`{"fixtures":[{"serviceId":"a","body":{">":[1],"\u003c":"&\u0026"},"index":1}]}`))
	big := `{"file":"big","fixtures":[` + strings.Repeat(`{"serviceId":"a","body":{"a":[[[[[[1]]]]]]},"index":1},`, 500) + `{"serviceId":"z"}]}`
	f.Add([]byte(big))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Mock
		if err := json.Unmarshal(data, &m); err != nil {
			return
		}
		out, err := input.TextJSON(&m)
		if err != nil {
			t.Fatalf("read %s, cannot write it back: %v", data, err)
		}
		var again Mock
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("wrote %s, cannot read it back: %v", out, err)
		}
		if len(again.Fixtures) != len(m.Fixtures) {
			t.Fatalf("%d fixtures read back as %d", len(m.Fixtures), len(again.Fixtures))
		}
		for i := range m.Fixtures {
			if !reflect.DeepEqual(*again.Fixtures[i], *m.Fixtures[i]) {
				t.Fatalf("fixture %d read back\n%+v\nwant\n%+v", i+1, *again.Fixtures[i], *m.Fixtures[i])
			}
		}
	})
}
