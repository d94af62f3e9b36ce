package isolate

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/runtime/restclient"
)

// TestMockAndRecordFlags: the fixture files go to the child as --mock and
// --record, and the result says which mode ran.
func TestMockAndRecordFlags(t *testing.T) {
	r := newTestRunner(t, "echo", Options{MaxMemory: 64 << 20, Timeout: 3 * time.Second})
	for _, tc := range []struct {
		req      Request
		flags    string
		wantMode string
	}{
		{Request{Text: "1"}, "", ModeLive},
		{Request{Text: "1", MockFile: "/ws/o.mock.yaml"}, " --mock=/ws/o.mock.yaml", ModeMock},
		{Request{Text: "1", RecordFile: "/ws/o.mock.json"}, " --record=/ws/o.mock.json", ModeRecord},
		{Request{Text: "1", MockFile: "/ws/o.mock.yaml", RecordFile: "/ws/o.mock.yaml"}, " --mock=/ws/o.mock.yaml --record=/ws/o.mock.yaml", ModeRecord},
	} {
		raw, err := r.Run(context.Background(), tc.req)
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			Result struct{ Args []string }
			Mode   string
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatalf("not one JSON object: %v\n%s", err, raw)
		}
		want := "run --json --kind  --timeout 3s --max-memory 67108864" + tc.flags + " -"
		if got := strings.Join(res.Result.Args, " "); got != want || res.Mode != tc.wantMode {
			t.Errorf("%+v: child args %q mode %q, want %q mode %q", tc.req, got, res.Mode, want, tc.wantMode)
		}
	}
}

// TestPastedMocksFlags: a fixture document goes to the child as a
// temporary --mock file shown as restclient.PastedMocks (--mock-name), so
// no answer names the server's temporary directory; the mode is mock.
func TestPastedMocksFlags(t *testing.T) {
	r := newTestRunner(t, "echo", Options{MaxMemory: 64 << 20, Timeout: 3 * time.Second})
	raw, err := r.Run(context.Background(), Request{Text: "1", Mock: []byte("[]")})
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Result struct{ Args []string }
		Mode   string
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, raw)
	}
	args := strings.Join(res.Result.Args, " ")
	i := strings.Index(args, " --mock ")
	if i < 0 || !strings.HasSuffix(args, " --mock-name "+restclient.PastedMocks+" -") || res.Mode != ModeMock {
		t.Errorf("child args %q mode %q, want --mock FILE --mock-name %q last and mode %q", args, res.Mode, restclient.PastedMocks, ModeMock)
	}
}

// TestModeOfAResultMadeHere: a result the runner makes for a child that
// ended without one says the mode too.
func TestModeOfAResultMadeHere(t *testing.T) {
	r := newTestRunner(t, "crash", Options{MaxMemory: 32 << 20})
	raw, err := r.Run(context.Background(), Request{Text: "1", MockFile: "/ws/x.mock.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	var res struct{ Mode string }
	if err := json.Unmarshal(raw, &res); err != nil || res.Mode != ModeMock {
		t.Errorf("mode %q (%v) in %s", res.Mode, err, raw)
	}
}

func TestWithMode(t *testing.T) {
	for in, want := range map[string]string{
		`{}`:                   "{\n  \"mode\": \"live\"\n}",
		" {\"a\":{\"b\":1}}\n": "{\"a\":{\"b\":1},\n  \"mode\": \"live\"\n}",
		"{\n  \"a\": 1\n}\n":   "{\n  \"a\": 1,\n  \"mode\": \"live\"\n}",
		`[1]`:                  `[1]`,
	} {
		got := string(withMode(json.RawMessage(in), ModeLive))
		if got != want {
			t.Errorf("withMode(%q) = %q, want %q", in, got, want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("withMode(%q) is not JSON", in)
		}
	}
}

// FuzzWithMode: whatever object a child prints, the result is still one
// JSON object with the same members, in the same order, and mode last.
func FuzzWithMode(f *testing.F) {
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"result":null,"error":null,"calls":[],"logs":[]}`))
	f.Add([]byte("{\n  \"result\": {\"a\": [1, 2.0, 1e400]},\n  \"mode\": \"x\"\n}\n"))
	f.Add([]byte(`[{}]`))
	f.Add([]byte(`"}"`))
	f.Add([]byte(` { "a" : "}" } `))
	deep := strings.Repeat(`{"a":`, 5000) + "1" + strings.Repeat("}", 5000)
	f.Add([]byte(deep))
	f.Add([]byte(`{"big":"` + strings.Repeat("x", 1<<20) + `"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		out := withMode(in, ModeRecord)
		var obj map[string]json.RawMessage
		if json.Unmarshal(in, &obj) != nil {
			if !bytes.Equal(out, in) && json.Valid(in) {
				t.Fatalf("a JSON value that is not an object was changed: %q -> %q", in, out)
			}
			return
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		var keys []string
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			t.Fatalf("not an object: %q", out)
		}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				t.Fatalf("%v in %q", err, out)
			}
			keys = append(keys, k.(string))
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("%v in %q", err, out)
			}
		}
		if len(keys) == 0 || keys[len(keys)-1] != "mode" {
			t.Fatalf("mode is not the last member of %q", out)
		}
		var got map[string]json.RawMessage
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%v: %q", err, out)
		}
		if string(got["mode"]) != `"record"` {
			t.Fatalf("mode %s", got["mode"])
		}
	})
}
