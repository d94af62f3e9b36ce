package engine

import (
	"context"
	"testing"

	"github.com/restls/restls/runtime/restclient"
)

// TestParsedFixtures: fixtures a caller already parsed (restls test's
// case and file fixtures, each with its own file and line) answer a run
// as they are, their advice included, and the run is a mock run: in
// process, and in a child, which reads them with each fixture's line (a
// server's test runs are isolated as its other runs are).
func TestParsedFixtures(t *testing.T) {
	snap := project(t, "http://127.0.0.1:1", nil)
	text := `var a = api.rest.v1.get("crm", {pathParams: ["a"]}, {}).body.n;
try { api.rest.v1.get("crm", {pathParams: ["b"]}, {}); } catch (e) { return [a, e.code, e.message]; }`
	want := `[1,"no-fixture","no fixture in cases.test.yaml answers GET crm path \"b\"; the closest, cases.test.yaml:3 (fixture 1), has path \"a\": add a fixture with serviceId \"crm\", method GET and a matching path and query to the case's fixtures"]`
	for name, eng := range map[string]*Engine{"in process": inProcess(t, Options{}), "child": New(Options{Isolation: Child})} {
		t.Run(name, func(t *testing.T) {
			mock, err := restclient.ParseMock("cases.test.yaml", []byte("\n\n- serviceId: crm\n  path: a\n  body: {n: 1}\n"))
			if err != nil {
				t.Fatal(err)
			}
			mock.Advice = " to the case's fixtures"
			res, err := eng.Run(context.Background(), snap, Request{Text: text, Fixtures: Fixtures{Parsed: mock}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Mode != "mock" || res.Error != nil || len(res.Calls) != 2 {
				t.Fatalf("mode %q, error %+v, %d calls; want a mock run of 2 calls", res.Mode, res.Error, len(res.Calls))
			}
			if string(res.Result) != want {
				t.Errorf("result\n%s\nwant\n%s", res.Result, want)
			}
		})
	}
}
