package lsp

import (
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/restls/restls/internal/cursortest"
)

// cursor splits "ab|c" into the text without "|" and the byte offset of "|".
var cursor = cursortest.Split

func TestMapperPosition(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		want protocol.Position
	}{
		{"start", "|abc", protocol.Position{Line: 0, Character: 0}},
		{"ascii", "ab|c", protocol.Position{Line: 0, Character: 2}},
		{"second line", "ab\nc|d", protocol.Position{Line: 1, Character: 1}},
		{"crlf", "ab\r\nc|d", protocol.Position{Line: 1, Character: 1}},
		{"lone cr", "ab\rc|d", protocol.Position{Line: 1, Character: 1}},
		{"two-byte utf8 is one unit", "é|x", protocol.Position{Line: 0, Character: 1}},
		{"three-byte utf8 is one unit", "€€|", protocol.Position{Line: 0, Character: 2}},
		{"astral is two units", "a😀|b", protocol.Position{Line: 0, Character: 3}},
		{"after astral on line 2", "x\n😀😀|", protocol.Position{Line: 1, Character: 4}},
		{"end of text", "abc\n|", protocol.Position{Line: 1, Character: 0}},
		{"cyrillic", "// Привет\napi.|", protocol.Position{Line: 1, Character: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, off := cursor(t, tt.src)
			m := newMapper(text)
			if got := m.position(off); got != tt.want {
				t.Errorf("position(%d) = %+v, want %+v", off, got, tt.want)
			}
			if got := m.offset(tt.want); got != off {
				t.Errorf("offset(%+v) = %d, want %d", tt.want, got, off)
			}
		})
	}
}

func TestMapperOffsetClamps(t *testing.T) {
	t.Parallel()
	text := "a😀b\nxy\r\nz"
	m := newMapper(text)
	tests := []struct {
		name string
		pos  protocol.Position
		want int
	}{
		{"inside a surrogate pair snaps to the character start", protocol.Position{Line: 0, Character: 2}, 1},
		{"past the end of a line is the line end", protocol.Position{Line: 0, Character: 99}, len("a😀b")},
		{"past the end of a crlf line stops before the break", protocol.Position{Line: 1, Character: 99}, len("a😀b\nxy")},
		{"past the last line is the end of the text", protocol.Position{Line: 9, Character: 0}, len(text)},
		{"last line", protocol.Position{Line: 2, Character: 1}, len(text)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := m.offset(tt.pos); got != tt.want {
				t.Errorf("offset(%+v) = %d, want %d", tt.pos, got, tt.want)
			}
		})
	}
}

// utf16Position is the reference: count UTF-16 units the slow way.
func utf16Position(text string, off int) protocol.Position {
	var line, col uint32
	for i := 0; i < off; {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n':
			line, col = line+1, 0
		case r == '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				if i+1 == off {
					return protocol.Position{Line: line, Character: col}
				}
				size = 2
			}
			line, col = line+1, 0
		default:
			col += uint32(len(utf16.Encode([]rune{r})))
		}
		i += size
	}
	return protocol.Position{Line: line, Character: col}
}

func FuzzMapper(f *testing.F) {
	f.Add("api.rest.v1.get('crm', {}, {})\n", 5)
	f.Add("a😀b\r\nПривет\rx", 3)
	f.Add("\xff\xfe\n\xed\xa0\x80", 2)
	f.Fuzz(func(t *testing.T, text string, off int) {
		m := newMapper(text)
		if off < 0 {
			off = -off
		}
		if len(text) > 0 {
			off %= len(text) + 1
		} else {
			off = 0
		}
		pos := m.position(off)
		back := m.offset(pos)
		if back > off || back < 0 || back > len(text) {
			t.Fatalf("offset(position(%d)=%+v) = %d", off, pos, back)
		}
		// At a character boundary outside a line break the round trip is exact
		// and agrees with the slow reference.
		if utf8.ValidString(text) && (off == len(text) || utf8.RuneStart(text[off])) &&
			!(off > 0 && text[off-1] == '\r' && off < len(text) && text[off] == '\n') {
			if back != off {
				t.Fatalf("round trip of %d gave %d (pos %+v)", off, back, pos)
			}
			if want := utf16Position(text, off); want != pos {
				t.Fatalf("position(%d) = %+v, reference says %+v", off, pos, want)
			}
		}
		// Any position maps into the text.
		if o := m.offset(protocol.Position{Line: uint32(off % 7), Character: uint32(off % 13)}); o < 0 || o > len(text) {
			t.Fatalf("offset out of range: %d", o)
		}
	})
}

// TestIncrementalEditsUTF16 applies edits the way an editor computes them
// (UTF-16 positions) and checks the text matches.
func TestIncrementalEditsUTF16(t *testing.T) {
	t.Parallel()
	text := "// 😀 Привет\nvar r = api.rest.v1.get('crm', {}, {});\n"
	m := newMapper(text)
	// Replace "crm" on line 1: "var r = api.rest.v1.get('" is 25 units.
	start, end := m.fromRange(protocol.Range{Start: protocol.Position{Line: 1, Character: 25}, End: protocol.Position{Line: 1, Character: 28}})
	got := text[:start] + "billing" + text[end:]
	want := "// 😀 Привет\nvar r = api.rest.v1.get('billing', {}, {});\n"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	// Delete the emoji: units 3..5 on line 0.
	m = newMapper(got)
	start, end = m.fromRange(protocol.Range{Start: protocol.Position{Line: 0, Character: 3}, End: protocol.Position{Line: 0, Character: 5}})
	if got2 := got[:start] + got[end:]; got2 != "//  Привет\nvar r = api.rest.v1.get('billing', {}, {});\n" {
		t.Fatalf("emoji delete gave %q", got2)
	}
}
