package input

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ in, want, lines string }{
		{"orders.js", "orders.js", "orders.js"},
		{"naïve ünïcode ✓.js", "naïve ünïcode ✓.js", "naïve ünïcode ✓.js"},
		{"\x1b[31mred\x1b[0m.js", `\x1b[31mred\x1b[0m.js`, `\x1b[31mred\x1b[0m.js`},
		{"a\nb\tc\rd", `a\nb\tc\rd`, "a\nb\tc\\rd"},
		{"bell\a del\x7f nul\x00", `bell\x07 del\x7f nul\x00`, `bell\x07 del\x7f nul\x00`},
		{"c1 \u009b31m", `c1 \u009b31m`, `c1 \u009b31m`},
		{"evil\u202etxt.js", `evil\u202etxt.js`, `evil\u202etxt.js`},
		{"iso\u2066x\u2069 sep\u2028", `iso\u2066x\u2069 sep\u2028`, `iso\u2066x\u2069 sep\u2028`},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`, `bad \xff\xfe utf8`},
		{"", "", ""},
	} {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := PrintableLines(tc.in); got != tc.lines {
			t.Errorf("PrintableLines(%q) = %q, want %q", tc.in, got, tc.lines)
		}
	}
}

// checkPrintable fails unless out is valid UTF-8 without a character a
// terminal acts on (but \n and \t when lines), and in comes back unchanged
// when it holds none.
func checkPrintable(t *testing.T, in, out string, lines bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("%q -> %q: not UTF-8", in, out)
	}
	for _, r := range out {
		if (r < 0x20 || r == 0x7f) && !(lines && (r == '\n' || r == '\t')) || r >= 0x80 && unsafeRune(r, utf8.RuneLen(r)) {
			t.Fatalf("%q -> %q: holds %U", in, out, r)
		}
	}
	clean := utf8.ValidString(in)
	for _, r := range in {
		if (r < 0x20 || r == 0x7f) && !(lines && (r == '\n' || r == '\t')) || r >= 0x80 && unsafeRune(r, utf8.RuneLen(r)) {
			clean = false
		}
	}
	if clean && out != in {
		t.Fatalf("%q -> %q: changed text with nothing to escape", in, out)
	}
}

func FuzzPrintable(f *testing.F) {
	for _, s := range []string{"", "plain.js", "\x1b[2J\x1b[H", "a\r\nb", "\u202e\u2066\u0085", "\xff", "é\x00",
		strings.Repeat("\x1b]8;;http://x\x07link\x1b]8;;\x07", 100), strings.Repeat("ok\u202e ", 1000)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Printable(s)
		checkPrintable(t, s, out, false)
		checkPrintable(t, s, PrintableLines(s), true)
		if len(out) > 6*len(s) { // \u202e for 3 bytes, \xff for 1
			t.Fatalf("%d bytes grew to %d", len(s), len(out))
		}
	})
}

func BenchmarkPrintableClean(b *testing.B) {
	s := strings.Repeat("scripts/orders/open-orders.js: unknown serviceId ", 100)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Printable(s)
	}
}

// TestTextJSON: JSON a person reads keeps & < > as they are (json.Marshal
// writes \u0026 \u003c \u003e), and is still the same JSON value.
func TestTextJSON(t *testing.T) {
	v := map[string]any{"name": "Smith & <b>Sons</b>", "n": 1}
	got, err := TextJSON(v)
	if err != nil || string(got) != `{"n":1,"name":"Smith & <b>Sons</b>"}` {
		t.Fatalf("%s %v", got, err)
	}
	var back map[string]any
	if err := json.Unmarshal(got, &back); err != nil || back["name"] != v["name"] {
		t.Errorf("does not read back: %v %v", back, err)
	}
}
