package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/restls/restls/runtime/restclient"
)

// TestParsedFixtures: fixtures a caller already parsed (restls test's
// case and file fixtures, each with its own file and line) answer an
// in-process run as they are, their advice included, and the run is a
// mock run; a child run refuses them, since a child reads its fixtures
// as text.
func TestParsedFixtures(t *testing.T) {
	snap := project(t, "http://127.0.0.1:1", nil)
	mock, err := restclient.ParseMock("cases.test.yaml", []byte("- serviceId: crm\n  path: a\n  body: {n: 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	mock.Advice = " to the case's fixtures"
	text := `var a = api.rest.v1.get("crm", {pathParams: ["a"]}, {}).body.n;
try { api.rest.v1.get("crm", {pathParams: ["b"]}, {}); } catch (e) { return [a, e.code, e.message]; }`
	res, err := inProcess(t, Options{}).Run(context.Background(), snap, Request{Text: text, Fixtures: Fixtures{Parsed: mock}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != "mock" || res.Error != nil || len(res.Calls) != 2 {
		t.Fatalf("mode %q, error %+v, %d calls; want a mock run of 2 calls", res.Mode, res.Error, len(res.Calls))
	}
	want := `[1,"no-fixture","no fixture in cases.test.yaml answers GET crm path \"b\"; the closest, cases.test.yaml:1 (fixture 1), has path \"a\": add a fixture with serviceId \"crm\", method GET and a matching path and query to the case's fixtures"]`
	if string(res.Result) != want {
		t.Errorf("result\n%s\nwant\n%s", res.Result, want)
	}
	_, err = New(Options{Isolation: Child}).Run(context.Background(), snap, Request{Text: text, Fixtures: Fixtures{Parsed: mock}})
	if fe := (*FixturesError)(nil); !errors.As(err, &fe) {
		t.Errorf("a child run given parsed fixtures: %v, want a FixturesError", err)
	}
}
