package lsptest

import (
	"fmt"
	"strings"
	"testing"
)

func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

func TestFrames(t *testing.T) {
	note := `{"jsonrpc":"2.0","method":"x"}`
	for _, tc := range []struct {
		name, out string
		n         int
		err       string // "" = no error
	}{
		{"empty", "", 0, ""},
		{"two", frame(note) + frame(`{"jsonrpc":"2.0","id":1,"result":null}`), 2, ""},
		{"log line", frame(note) + "info: hello\n", 1, "frame 2: non-protocol bytes"},
		{"no blank line", "Content-Length: 3\r\n", 0, "frame 1: header without blank line"},
		{"bad length", "Content-Length: x\r\n\r\n{}", 0, "frame 1: bad Content-Length"},
		{"zero length", "Content-Length: 0\r\n\r\n", 0, "frame 1: bad Content-Length"},
		{"truncated", frame(note)[:30], 0, "frame 1: truncated"},
		{"not JSON-RPC", frame("[1]"), 0, "frame 1: body is not a JSON-RPC message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := Frames([]byte(tc.out))
			if n != tc.n {
				t.Errorf("%d frames, want %d", n, tc.n)
			}
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)) {
				t.Errorf("error %v, want one starting %q", err, tc.err)
			}
		})
	}
}

func TestHeadIsShort(t *testing.T) {
	_, err := Frames([]byte(strings.Repeat("x", 10000)))
	if err == nil || len(err.Error()) > 400 {
		t.Fatalf("error of %d bytes: a bad stream is quoted whole", len(fmt.Sprint(err)))
	}
}

// TestBigScript: the cursor is at the end of the serviceId being typed on
// the last call, whatever the size.
func TestBigScript(t *testing.T) {
	for _, lines := range []int{1, 10, 1000} {
		text, pos := BigScript(lines)
		all := strings.Split(text, "\n")
		if int(pos.Line) >= len(all) {
			t.Fatalf("%d lines: cursor on line %d of %d", lines, pos.Line, len(all))
		}
		if before := all[pos.Line][:pos.Character]; !strings.HasSuffix(before, `post("service-0`) {
			t.Errorf("%d lines: text before the cursor %q", lines, before)
		}
	}
}

func TestServiceXML(t *testing.T) {
	x := ServiceXML(3)
	if n := strings.Count(x, "<api "); n != 3 || !strings.Contains(x, `url="service-00000/sub1"`) {
		t.Errorf("%d services, want 3 with a reference:\n%s", n, x)
	}
}
