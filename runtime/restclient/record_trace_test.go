package restclient

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/restls/restls/config"
	"github.com/restls/restls/internal/goldentest"
)

func TestSplitCallURLInvertsBuildURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		base   string
		params []string
		query  []QueryParam
	}{
		{"http://127.0.0.1:1/api/", nil, nil},
		{"http://127.0.0.1:1/api", []string{"customers", "42"}, nil},
		{"https://h.example/v2/", []string{"a b", "x/y", "100%", "é"}, []QueryParam{{"q", "a&b=c"}, {"q", "2"}, {"empty", ""}}},
		{"https://h.example/v2?tenant=7", []string{"o"}, []QueryParam{{"page", "3"}}},
		{"http://h.example", []string{"root"}, nil},
	} {
		u, err := BuildURL(tc.base, tc.params, tc.query)
		if err != nil {
			t.Fatal(err)
		}
		params, query, ok := SplitCallURL(tc.base, u)
		if !ok || !slices.Equal(params, tc.params) || !slices.Equal(query, tc.query) {
			t.Errorf("SplitCallURL(%q, %q) = %q, %q, %v; want %q, %q", tc.base, u, params, query, ok, tc.params, tc.query)
		}
	}
	for _, u := range []string{"http://other:1/api/x", "http://127.0.0.1:1/apix/y", "ftp://127.0.0.1:1/api/x"} {
		if _, _, ok := SplitCallURL("http://127.0.0.1:1/api", u); ok {
			t.Errorf("SplitCallURL accepted %q, which is not under the address", u)
		}
	}
}

func FuzzSplitCallURL(f *testing.F) {
	f.Add("http://h:1/a/", "x/y", "q", "1 2")
	f.Add("https://h/a?t=1", "%", "&", "=")
	f.Fuzz(func(t *testing.T, base, seg, name, value string) {
		params := strings.Split(seg, "\x00")
		u, err := BuildURL(base, params, []QueryParam{{name, value}})
		if err != nil {
			return
		}
		got, q, ok := SplitCallURL(base, u)
		if !ok {
			return // bases url.Parse reads differently from how they were joined: never a wrong answer
		}
		if !slices.Equal(got, params) || len(q) != 1 || q[0] != (QueryParam{name, value}) {
			t.Fatalf("SplitCallURL(%q, %q) = %q %q; want %q %q=%q", base, u, got, q, params, name, value)
		}
	})
}

// TestTraceFixturesReplay: the fixtures made from a trace answer the same
// calls with the same answers, and keep no credential header.
func TestTraceFixturesReplay(t *testing.T) {
	t.Parallel()
	base := "http://127.0.0.1:9/crm/"
	u1, _ := BuildURL(base, []string{"customers", "42"}, nil)
	u2, _ := BuildURL(base, []string{"search"}, []QueryParam{{"q", "ann"}})
	calls := []*Call{
		{ServiceID: "a", Method: "GET", URL: u1, Status: &Status{Code: 200},
			ResponseHeaders: Headers{{"content-type", "application/json"}, {"set-cookie", "sid=***"}, {"x-trace", "7"}},
			ResponseBody:    json.RawMessage(`{"id":42,"name":"Ann"}`)},
		{ServiceID: "a", Method: "get", URL: u2, Status: &Status{Code: 404},
			ResponseHeaders: Headers{{"content-type", "text/plain"}}, ResponseBody: json.RawMessage(`"not here\n"`)},
		{ServiceID: "a", Method: "GET", URL: u1, ErrorCode: "connect-failed"},
		{ServiceID: "gone", Method: "GET", URL: u1, Status: &Status{Code: 200}},
	}
	doc, notes, err := TraceFixtures(calls, func(id string) (string, bool) { return base, id == "a" })
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "call 3") || !strings.Contains(notes[1], "call 4") {
		t.Errorf("notes = %q; want one for the call without an answer and one for the unknown serviceId", notes)
	}
	if !strings.HasPrefix(string(doc), "# Fixtures recorded from a live run (the designer's Record)") {
		t.Errorf("the head comment does not say where the fixtures came from:\n%s", doc)
	}
	if strings.Contains(string(doc), "set-cookie") {
		t.Errorf("a credential header was kept:\n%s", doc)
	}
	m, err := ParseMock(PastedMocks, doc)
	if err != nil {
		t.Fatalf("the fixtures do not parse: %v\n%s", err, doc)
	}
	if body, _, err := answer(t, m, "GET", []string{"customers", "42"}, nil); err != nil || body != `{"id":42,"name":"Ann"}` {
		t.Errorf("replay of call 1 = %q, %v\n%s", body, err, doc)
	}
	if body, _, err := answer(t, m, "GET", []string{"search"}, []QueryParam{{"q", "ann"}}); err != nil || body != "not here\n" {
		t.Errorf("replay of call 2 = %q, %v\n%s", body, err, doc)
	}
}

// TestOneRecorder (issue 33, point 19): restls run --record wrote a
// service's indented JSON answer as a folded string with its date,
// server, x-request-id and content-length headers, while the designer's
// Record wrote structured YAML. Both go through the same recorder now:
// a 2XX JSON answer is a value, the volatile headers are left out, and
// the two files hold the same fixtures (golden); naming headers
// (--record-headers) still records them.
func TestOneRecorder(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Date", time.Now().UTC().Format(http.TimeFormat))
		h.Set("Server", "nginx/1.25")
		h.Set("X-Request-Id", fmt.Sprint(time.Now().UnixNano()))
		h.Set("ETag", `"v1"`)
		if strings.HasSuffix(r.URL.Path, "/missing") {
			w.WriteHeader(404)
			fmt.Fprint(w, "{\n  \"error\": \"no order 9\"\n}\n")
			return
		}
		fmt.Fprint(w, "{\n  \"id\": 7,\n  \"items\": [\n    {\"sku\": \"a-1\", \"qty\": 2}\n  ],\n  \"total\": 12.50\n}\n")
	}))
	t.Cleanup(srv.Close)
	reg := loadRegistry(t, config.ScriptService, servicesXML(api("shop", srv.URL+"/api", "")))
	calls := []*Request{{ServiceID: "shop", PathParams: []string{"orders", "7"}}, {ServiceID: "shop", PathParams: []string{"orders", "missing"}}}
	record := func(opts RecordOptions) (string, []*Call) {
		rec, err := NewRecorder(opts)
		if err != nil {
			t.Fatal(err)
		}
		s := New(Options{}).Session(reg)
		s.Record(rec)
		var traced []*Call
		for _, r := range calls {
			_, c, _ := do(t, s, r)
			traced = append(traced, c)
		}
		if err := rec.Save(); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(opts.File)
		if err != nil {
			t.Fatal(err)
		}
		return string(data), traced
	}
	live, traced := record(RecordOptions{File: filepath.Join(t.TempDir(), "orders.mock.yaml")})
	goldentest.Check(t, "testdata/golden/record/one-recorder.mock.yaml", live)
	designer, notes, err := TraceFixtures(traced, func(string) (string, bool) { return srv.URL + "/api", true })
	if err != nil || len(notes) > 0 {
		t.Fatalf("%v %v", err, notes)
	}
	fixturesOf := func(doc string) string { return doc[strings.Index(doc, "fixtures:"):] }
	if d := cmp.Diff(fixturesOf(live), fixturesOf(string(designer))); d != "" {
		t.Errorf("the designer's Record differs from run --record (-run +designer):\n%s", d)
	}
	asked, _ := record(RecordOptions{File: filepath.Join(t.TempDir(), "orders.mock.yaml"), Headers: []string{"date", "content-length", "etag"}})
	if !strings.Contains(asked, "date: ") || !strings.Contains(asked, "content-length: ") || strings.Contains(asked, "content-type") {
		t.Errorf("--record-headers date,content-length,etag recorded:\n%s", asked)
	}
}
