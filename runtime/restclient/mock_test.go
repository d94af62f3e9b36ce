package restclient

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestParseMockFormsAndMatching(t *testing.T) {
	t.Parallel()
	yamlDoc := `
fixtures:
  - serviceId: a
    method: get
    path: "customers/*"
    body: {id: 1}
  - serviceId: a
    path: "**/orders"
    status: 404
    bodyText: nope
  - serviceId: a
    path: ""
    delay: 5ms
`
	jsonDoc := `[{"serviceId":"a","method":"GET","path":"customers/*","body":{"id":1}},{"serviceId":"a","path":"**/orders","status":404,"bodyText":"nope"},{"serviceId":"a","path":"","delay":"5ms"}]`
	for _, doc := range []string{yamlDoc, jsonDoc} {
		m, err := ParseMock("f", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			method string
			path   []string
			want   int // fixture index, 0 for none
		}{
			{"GET", []string{"customers", "42"}, 1},
			{"POST", []string{"customers", "42"}, 0},
			{"GET", []string{"customers"}, 0},
			{"DELETE", []string{"x", "y", "orders"}, 2},
			{"DELETE", []string{"orders"}, 2},
			{"GET", nil, 3},
		} {
			got := 0
			for _, f := range m.Fixtures {
				if f.matches("a", tt.method, tt.path) {
					got = f.index
					break
				}
			}
			if got != tt.want {
				t.Errorf("%s %v matched fixture %d, want %d", tt.method, tt.path, got, tt.want)
			}
		}
		if string(m.Fixtures[0].body) != `{"id":1}` || m.Fixtures[2].delay.Milliseconds() != 5 || m.Fixtures[1].Status != 404 {
			t.Errorf("fixtures %+v", m.Fixtures)
		}
	}
	for doc, want := range map[string]string{
		`[{method: GET}]`:                                    "serviceId is required",
		`[{serviceId: a, delay: soon}]`:                      "delay",
		`[{serviceId: a, fault: timeout}]`:                   `fault "timeout": use one of connect-timeout, read-timeout, connection-refused, not-json, token-request-failed`,
		`[{serviceId: a, fault: read-timeout, status: 504}]`: "fault read-timeout: the call gets no answer, so give no status, headers or body",
		`[{serviceId: a, fault: not-json, status: 500}]`:     "status 500 is not 2XX",
		`[{serviceId: a, fault: not-json, body: [1]}]`:       "give the body as bodyText or bodyBase64",
		`[{serviceId: a, fault: not-json, bodyText: "[1]"}]`: "the body must be text that is not JSON",
		`[{serviceId: a, fault: not-json, bodyText: " "}]`:   "the body must be text that is not JSON",
		`[{serviceId: a, status: 42}]`:                       "not an HTTP status",
		`[{serviceId: a, answer: 1}]`:                        "answer",
		`{fixture: []}`:                                      "expected a list",
		`[{"serviceId":"a","answer":1}]`:                     "answer",
		`[{serviceId: a, path: "[x"}]`:                       "bad pattern",
	} {
		if _, err := ParseMock("f", []byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", doc, err, want)
		}
	}
}

// FuzzParseMock: any file either parses into usable fixtures or fails
// with an error; it never panics.
func FuzzParseMock(f *testing.F) {
	f.Add([]byte(`[{serviceId: a, path: "**", body: {x: [1, 2]}}]`))
	f.Add([]byte(`{"fixtures":[{"serviceId":"a","bodyText":"x","delay":"1ms"}]}`))
	f.Add([]byte(`fixtures: [{serviceId: a, headers: {A: b}, status: 500}]`))
	f.Add([]byte(`[{serviceId: a, fault: connect-timeout, delay: 1ms}, {serviceId: a, fault: read-timeout, times: 1}, {serviceId: b, fault: connection-refused}]`))
	f.Add([]byte(`[{"serviceId":"a","fault":"not-json","status":203,"headers":{"Content-Type":"text/html"},"bodyText":"<p>"},{"serviceId":"a","fault":"not-json","bodyBase64":"/w=="}]`))
	f.Add([]byte(`[{serviceId: a, fault: not-json, bodyText: "{\"x\": 1}"}, {serviceId: a, fault: read-timeout, status: 504}]`))
	f.Add([]byte("fixtures:\n" + strings.Repeat("- {serviceId: s, path: \"a/*\", fault: not-json, bodyText: \"<html>\"}\n- {serviceId: s, fault: connect-timeout}\n", 1000)))
	f.Add([]byte(`[{serviceId: a, path: 'x\/y/\*', query: {p: [1, "2"], q: x}, times: 2, bodyBase64: "AAE="}]`))
	f.Add([]byte(`[{"serviceId":"a","query":{"p":[1,true]},"headers":{"X":2},"times":1,"body":{"z":1.0,"a":[1e400]}}]`))
	f.Add([]byte("- serviceId: a\n  body:\n" + strings.Repeat("  ", 1) + strings.Repeat("- ", 500) + "x\n"))
	f.Add([]byte("fixtures:\n" + strings.Repeat("- {serviceId: s, method: GET, path: \"a/*\", body: {k: [1, 2, {x: y}]}}\n", 2000)))
	// Alias bombs: refused by the YAML budget, or small enough to expand.
	f.Add([]byte(aliasBody(9)))
	f.Add([]byte(aliasBody(4)))
	f.Add([]byte("- serviceId: a\n  body:\n    s: &s " + strings.Repeat("x", 4000) + "\n    l: [" + strings.Repeat("*s,", 300) + "*s]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMock("f", data)
		if err != nil {
			return
		}
		for _, fx := range m.Fixtures {
			// The budget bounds a body: 10 times the document's text and
			// values and a floor, each byte escaped to at most 6.
			if len(fx.body) > 200*len(data)+8<<20 {
				t.Fatalf("a %d-byte document made a %d-byte body", len(data), len(fx.body))
			}
			_ = fx.matches(fx.ServiceID, "GET", []string{"a", "b"})
			_, _, _ = m.find(mockCall{serviceID: fx.ServiceID, method: "GET", params: []string{"a/b"}, query: []QueryParam{{"p", "1"}}}, true)
			if fx.BodyText == nil && fx.Body != nil && !json.Valid(fx.body) {
				t.Fatalf("fixture body %q is not JSON", fx.body)
			}
			switch fx.Fault {
			case "":
			case CodeNotJSON:
				if fx.Status < 200 || fx.Status > 299 || json.Valid(fx.body) || len(bytes.TrimSpace(fx.body)) == 0 {
					t.Fatalf("fault not-json answers %d %q", fx.Status, fx.body)
				}
			case CodeConnectTimeout, CodeReadTimeout, CodeConnectionRefused:
				if fx.body != nil || fx.Headers != nil || fx.Status != 200 {
					t.Fatalf("fault %s has an answer: %d %v %q", fx.Fault, fx.Status, fx.Headers, fx.body)
				}
				if fx.fault("h", limits{}) == nil {
					t.Fatalf("fault %s fails nothing", fx.Fault)
				}
			default:
				t.Fatalf("unknown fault %q parsed", fx.Fault)
			}
		}
	})
}

// FuzzMultipartFields: a payload either becomes fields that encode, or
// an error; never a panic.
func FuzzMultipartFields(f *testing.F) {
	f.Add([]byte(`{"a":"x","b":1,"c":[true],"d":null}`))
	f.Add([]byte(`[1]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		fields, err := MultipartFields(data)
		if err != nil {
			return
		}
		if _, _, err := encodeMultipart(fields); err != nil {
			t.Fatalf("encode %q: %v", data, err)
		}
	})
}

// matches reports whether f answers a call without a query.
func (f *Fixture) matches(serviceID, method string, params []string) bool {
	return f.mismatch(mockCall{serviceID: serviceID, method: method, params: params}) == 0
}

// Len returns how many calls have been recorded.
func (r *Recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}
