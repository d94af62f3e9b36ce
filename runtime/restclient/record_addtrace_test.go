package restclient

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restls/restls/config"
)

// TestAddTraceRecordsAsLive: the traces of a run, kept as JSON (the run
// history), recorded with AddTrace, give the file a live recording of the
// same calls gives.
func TestAddTraceRecordsAsLive(t *testing.T) {
	t.Parallel()
	srv := stableServer(t)
	reg := loadRegistry(t, config.ScriptService, servicesXML(api("svc", srv.URL+"/api?tenant=a%20b", basicAuth(basicCreds))))
	// The binary answer's trace is text with U+FFFD: not the bytes sent.
	calls := slices.DeleteFunc(stableCalls(), func(r *Request) bool { return r.PathParams[0] == "binary" })
	for _, name := range []string{"live.mock.yaml", "live.mock.json"} {
		dir := t.TempDir()
		live := filepath.Join(dir, name)
		rec, err := NewRecorder(RecordOptions{File: live})
		if err != nil {
			t.Fatal(err)
		}
		s := New(Options{}).Session(reg)
		s.Record(rec)
		var traces []*Call
		for _, r := range calls {
			_, c, _ := do(t, s, r)
			data, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			var back Call
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			traces = append(traces, &back)
		}
		if err := rec.Save(); err != nil {
			t.Fatal(err)
		}
		fromTrace := filepath.Join(dir, "trace"+filepath.Ext(name))
		tr, err := NewRecorder(RecordOptions{File: fromTrace})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range traces {
			if ok, err := tr.AddTrace(reg, c); !ok || err != nil {
				t.Fatalf("%s %s: %v %v", c.Method, c.URL, ok, err)
			}
		}
		if err := tr.Save(); err != nil {
			t.Fatal(err)
		}
		a, _ := os.ReadFile(live)
		b, _ := os.ReadFile(fromTrace)
		if d := cmp.Diff(string(a), string(b)); d != "" {
			t.Errorf("%s: recorded from traces differs from live (-live +trace):\n%s", name, d)
		}
	}
}

func TestAddTraceRefuses(t *testing.T) {
	t.Parallel()
	reg := loadRegistry(t, config.ScriptService, servicesXML(api("svc", "https://svc.example/api", "")))
	rec, err := NewRecorder(RecordOptions{File: filepath.Join(t.TempDir(), "f.mock.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	ok := &Status{Code: 200}
	for name, c := range map[string]*Call{
		"cut":       {ServiceID: "svc", Method: "GET", URL: "https://svc.example/api/a", Status: ok, BodyTruncated: true},
		"elsewhere": {ServiceID: "svc", Method: "GET", URL: "https://other.example/a", Status: ok},
		"unknown":   {ServiceID: "gone", Method: "GET", URL: "https://svc.example/api/a", Status: ok},
	} {
		if _, err := rec.AddTrace(reg, c); !errors.Is(err, ErrNotRecordable) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	for name, c := range map[string]*Call{
		"no answer": {ServiceID: "svc", Method: "GET", URL: "https://svc.example/api/a", ErrorCode: "connect-failed"},
		"mocked":    {ServiceID: "svc", Method: "GET", URL: "https://svc.example/api/a", Status: ok, Events: []Event{{Kind: EventMock}}},
	} {
		if ok, err := rec.AddTrace(reg, c); ok || err != nil {
			t.Errorf("%s: %v %v, want skipped", name, ok, err)
		}
	}
}
