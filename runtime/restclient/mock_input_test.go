package restclient

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/restls/restls/input"
	"github.com/restls/restls/internal/goldentest"
)

// TestFixtureKeyTypo (issue 24): a misspelt key in a fixture file says
// which key was meant, at file:line:col, as configuration and test files
// do, in YAML and in JSON.
func TestFixtureKeyTypo(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	for _, tc := range []struct{ file, text string }{
		{"orders.mock.yaml", "- serviceId: a\n  stauts: 404\n"},
		{"orders.mock.yaml", "fixtures:\n  - serviceId: a\n    method: GET\n  - {serviceId: b, bodytext: x}\n"},
		{"orders.mock.yaml", "- serviceId: a\n  status: nope\n"},
		{"orders.mock.yaml", "- serviceId: a\n  frobnicate: 1\n"},
		{"orders.mock.yaml", "- serviceId: a\n  status: [\n"},
		{"orders.mock.json", "[\n  {\"serviceId\": \"a\"},\n  {\"serviceId\": \"a\", \"stauts\": 404}\n]"},
	} {
		_, err := ParseMock(tc.file, []byte(tc.text))
		var me *MockError
		if !errors.As(err, &me) {
			t.Errorf("%q: %v, want a *MockError", tc.text, err)
		}
		fmt.Fprintln(&out, err)
	}
	goldentest.Check(t, "testdata/golden/mock/key-typo.golden", out.String())
}

// aliasBody is a fixture whose body is an alias bomb of levels levels of
// 9: the 530-byte *.mock.yaml of issue 23 (findings 4 and 8) at 9.
func aliasBody(levels int) string {
	var b strings.Builder
	b.WriteString("- serviceId: a\n  body:\n    l0: &l0 [x,x,x,x,x,x,x,x,x]\n")
	for i := 1; i < levels; i++ {
		fmt.Fprintf(&b, "    l%d: &l%d [%s*l%d]\n", i, i, strings.Repeat(fmt.Sprintf("*l%d,", i-1), 8), i-1)
	}
	return b.String()
}

// TestParseMockAliasBomb (issue 23, findings 4, 5 and 8): an alias bomb
// in a fixture body is refused at its line and column, for about the
// cost of the document; before the budget the body was expanded to JSON
// (9^8 values, over a gigabyte).
func TestParseMockAliasBomb(t *testing.T) {
	// Not in parallel: it measures this process's memory, which tests beside it would add to.
	doc := []byte(aliasBody(8))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ParseMock("bomb.mock.yaml", doc)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, input.ErrYAMLBudget) || !strings.HasPrefix(err.Error(), "bomb.mock.yaml:7:") {
		t.Fatalf("got %v, want the YAML budget error at bomb.mock.yaml:7", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("refusing a %d-byte bomb allocated %d bytes, want under 4 MiB", len(doc), alloc)
	}
	// A body that reuses an anchor within the budget still loads.
	m, err := ParseMock("ok.mock.yaml", []byte(aliasBody(3)))
	if err != nil || len(m.Fixtures) != 1 || strings.Count(string(m.Fixtures[0].body), "x") != 9+81+729 {
		t.Fatalf("a small reuse: %v", err)
	}
}

// TestReplayedContentLength: a recorded content-length that is not the
// body's (a body edited since, or written compact) is the body's on
// replay.
func TestReplayedContentLength(t *testing.T) {
	t.Parallel()
	m, err := ParseMock("f.mock.yaml", []byte("- serviceId: a\n  headers: {content-length: '126'}\n  body: {id: 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := withLimits(t.Context(), limits{serviceID: "a"})
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://x", nil)
	resp, err := m.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if got := resp.Header.Get("Content-Length"); got != fmt.Sprint(len(body)) || resp.ContentLength != int64(len(body)) {
		t.Errorf("content-length %q (%d) for %q", got, resp.ContentLength, body)
	}
}
