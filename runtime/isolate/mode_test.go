package isolate

import (
	"testing"
)

// TestMode: a run is record when it writes a fixture file, mock when
// fixtures (a file or a pasted document) answer it, live otherwise.
func TestMode(t *testing.T) {
	for _, tc := range []struct {
		req  Request
		want string
	}{
		{Request{Text: "1"}, ModeLive},
		{Request{Text: "1", MockFile: "/ws/o.mock.yaml"}, ModeMock},
		{Request{Text: "1", Mock: []byte{}}, ModeMock},
		{Request{Text: "1", RecordFile: "/ws/o.mock.json"}, ModeRecord},
		{Request{Text: "1", MockFile: "/ws/o.mock.yaml", RecordFile: "/ws/o.mock.yaml"}, ModeRecord},
		{Request{Text: "1", Mock: []byte("[]"), RecordFile: "/ws/o.mock.yaml"}, ModeRecord},
	} {
		if got := tc.req.Mode(); got != tc.want {
			t.Errorf("%+v: mode %q, want %q", tc.req, got, tc.want)
		}
	}
}
