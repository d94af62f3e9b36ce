package textpos

import (
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// BytePos is a line and a column counted in bytes, 1-based, as
// config/xmlscan.go counted them: the differential test compares with it.
type BytePos struct{ Line, Col int }

// BytePos returns the line and byte column of off, clamped as RunePos is.
func (m *Mapper) BytePos(off ByteOffset) BytePos {
	l, c := m.pos(off, unitBytes)
	return BytePos{l, c}
}

// OffsetOfBytes returns the offset of p, clamped as OffsetOfRunes is.
func (m *Mapper) OffsetOfBytes(p BytePos) ByteOffset { return m.offset(p.Line, p.Col, unitBytes) }

// The units side by side: "b" after an "é" (2 bytes, 1 character, 1
// UTF-16 unit) and a "😀" (4 bytes, 1 character, 2 UTF-16 units).
func TestUnits(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		file       bool
		off        ByteOffset
		b          BytePos
		r          RunePos
		u          UTF16Pos
	}{
		{"ascii", "x\nab", false, 3, BytePos{2, 2}, RunePos{2, 2}, UTF16Pos{2, 2}},
		{"two-byte", "éb", false, 2, BytePos{1, 3}, RunePos{1, 2}, UTF16Pos{1, 2}},
		{"surrogate pair", "😀b", false, 4, BytePos{1, 5}, RunePos{1, 2}, UTF16Pos{1, 3}},
		{"crlf", "a\r\nb😀c", false, 8, BytePos{2, 6}, RunePos{2, 3}, UTF16Pos{2, 4}},
		{"lone cr", "a\rb\rc", false, 4, BytePos{3, 1}, RunePos{3, 1}, UTF16Pos{3, 1}},
		{"bom in an editor's text", BOM + "ab", false, 4, BytePos{1, 5}, RunePos{1, 3}, UTF16Pos{1, 3}},
		{"bom of a file", BOM + "ab", true, 4, BytePos{1, 2}, RunePos{1, 2}, UTF16Pos{1, 2}},
		{"bom of a file, line 2", BOM + "a\nb", true, 5, BytePos{2, 1}, RunePos{2, 1}, UTF16Pos{2, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(tc.text)
			if tc.file {
				m = NewFile(tc.text)
			}
			if got := m.BytePos(tc.off); got != tc.b {
				t.Errorf("BytePos(%d) = %v, want %v", tc.off, got, tc.b)
			}
			if got := m.RunePos(tc.off); got != tc.r {
				t.Errorf("RunePos(%d) = %v, want %v", tc.off, got, tc.r)
			}
			if got := m.UTF16Pos(tc.off); got != tc.u {
				t.Errorf("UTF16Pos(%d) = %v, want %v", tc.off, got, tc.u)
			}
			if got := m.OffsetOfBytes(tc.b); got != tc.off {
				t.Errorf("OffsetOfBytes(%v) = %d, want %d", tc.b, got, tc.off)
			}
			if got := m.OffsetOfRunes(tc.r); got != tc.off {
				t.Errorf("OffsetOfRunes(%v) = %d, want %d", tc.r, got, tc.off)
			}
			if got := m.OffsetOfUTF16(tc.u); got != tc.off {
				t.Errorf("OffsetOfUTF16(%v) = %d, want %d", tc.u, got, tc.off)
			}
		})
	}
}

// Clamping: what lies outside a line or the text.
func TestClamp(t *testing.T) {
	m := NewFile(BOM + "a😀\r\nb")
	for _, tc := range []struct {
		name string
		got  ByteOffset
		want ByteOffset
	}{
		{"column 0", m.OffsetOfRunes(RunePos{2, 0}), 10},
		{"past the line's end", m.OffsetOfUTF16(UTF16Pos{1, 99}), 8},
		{"between the halves of a pair", m.OffsetOfUTF16(UTF16Pos{1, 3}), 4},
		{"line 0", m.OffsetOfBytes(BytePos{0, 5}), 7},
		{"past the last line", m.OffsetOfBytes(BytePos{3, 1}), 11},
		{"bytes past the line's end", m.OffsetOfBytes(BytePos{1, 99}), 8},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, tc.got, tc.want)
		}
	}
	for off, want := range map[ByteOffset]RunePos{-3: {1, 1}, 1: {1, 1}, 5: {1, 2}, 9: {1, 3}, 99: {2, 2}} {
		if got := m.RunePos(off); got != want {
			t.Errorf("RunePos(%d) = %v, want %v (inside the mark, a character, a break, outside)", off, got, want)
		}
	}
}

// The implementations the converter replaced, as they were, to compare
// with: lsp/mapper.go (UTF-16, 0-based, every LSP line break),
// check/check.go (characters, "\n" only) and config/xmlscan.go (bytes,
// "\n" only).

type oldLSP struct {
	text  string
	lines []int
	bom   int
}

func newOldLSP(text string, file bool) *oldLSP {
	m := &oldLSP{text: text, lines: []int{0}}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			m.lines = append(m.lines, i+1)
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			m.lines = append(m.lines, i+1)
		}
	}
	if file && strings.HasPrefix(text, BOM) {
		m.bom = len(BOM)
	}
	return m
}

func (m *oldLSP) lineEnd(l int) int {
	if l+1 >= len(m.lines) {
		return len(m.text)
	}
	end := m.lines[l+1]
	if end > 0 && m.text[end-1] == '\n' {
		end--
	}
	if end > m.lines[l] && m.text[end-1] == '\r' {
		end--
	}
	return end
}

func (m *oldLSP) offset(line, char int) int {
	l := line
	if l >= len(m.lines) {
		return len(m.text)
	}
	start, end := m.lines[l], m.lineEnd(l)
	if l == 0 {
		start = min(m.bom, end)
	}
	units := 0
	for i := start; i < end; {
		if units >= char {
			return i
		}
		r, size := utf8.DecodeRuneInString(m.text[i:end])
		n := 1
		if r >= 0x10000 {
			n = 2
		}
		if units+n > char {
			return i
		}
		units += n
		i += size
	}
	return end
}

func (m *oldLSP) position(off int) (line, char int) {
	off = max(0, min(off, len(m.text)))
	lo, hi := 0, len(m.lines)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if m.lines[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	start, end := m.lines[lo], m.lineEnd(lo)
	if lo == 0 {
		start = min(m.bom, end)
		off = max(off, start)
	}
	off = min(off, end)
	units := 0
	for i := start; i < off; {
		r, size := utf8.DecodeRuneInString(m.text[i:end])
		if i+size > off {
			break
		}
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
		i += size
	}
	return lo, units
}

func oldLineStarts(text string) []int {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

func oldCheckPosition(text string, starts []int, off int) (line, col int) {
	off = max(0, min(off, len(text)))
	i := sort.Search(len(starts), func(i int) bool { return starts[i] > off }) - 1
	return i + 1, utf8.RuneCountInString(text[starts[i]:off]) + 1
}

func oldXMLPos(starts []int, off int) (line, col int) {
	lo, hi := 0, len(starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo + 1, off - starts[lo] + 1
}

// compare checks, for text, that every conversion round trips and agrees
// with the old implementations where they were right.
func compare(t *testing.T, text string) {
	t.Helper()
	loneCR := strings.Contains(strings.ReplaceAll(text, "\r\n", ""), "\r")
	bom := strings.HasPrefix(text, BOM)
	starts := oldLineStarts(text)
	for _, c := range []struct{ file, small bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		file := c.file
		m, old := New(text), newOldLSP(text, false)
		if file {
			m, old = NewFile(text), newOldLSP(text, true)
		}
		if c.small {
			m.every = 5 // checkpoints every few bytes, in short texts too
		}
		for off := -1; off <= len(text)+1; off++ {
			o := ByteOffset(off)
			// The language server's mapper was right everywhere.
			l, c := old.position(off)
			if got := m.UTF16Pos(o); got != (UTF16Pos{l + 1, c + 1}) {
				t.Fatalf("file %v: UTF16Pos(%d) = %v, the old mapper said %d:%d (0-based) in %q", file, off, got, l, c, text)
			}
			inText := off >= 0 && off <= len(text)
			boundary := inText && (off == len(text) || utf8.RuneStart(text[off]))
			afterCR := off > 0 && off <= len(text) && text[off-1] == '\r'
			inBOM := file && bom && off < len(BOM)
			// Round trips, from an offset that is a column: the start of
			// a character, not inside a line break or the byte order mark.
			if inText && !inBOM && !(afterCR && off < len(text) && text[off] == '\n') {
				if got := m.OffsetOfBytes(m.BytePos(o)); got != o {
					t.Fatalf("file %v: offset %d -> %v -> %d in %q", file, off, m.BytePos(o), got, text)
				}
				if boundary {
					if got := m.OffsetOfRunes(m.RunePos(o)); got != o {
						t.Fatalf("file %v: offset %d -> %v -> %d in %q", file, off, m.RunePos(o), got, text)
					}
					if got := m.OffsetOfUTF16(m.UTF16Pos(o)); got != o {
						t.Fatalf("file %v: offset %d -> %v -> %d in %q", file, off, m.UTF16Pos(o), got, text)
					}
				}
			}
			// check's characters and xmlscan's bytes were right where no
			// lone "\r" breaks a line, outside the "\r\n" of a line they
			// counted the "\r" of, and for a file without a byte order
			// mark (which takes no column in an editor; they counted it).
			if !inText || loneCR || (afterCR && off < len(text) && text[off] == '\n') || (file && bom) {
				continue
			}
			if boundary {
				l, c := oldCheckPosition(text, starts, off)
				if got := m.RunePos(o); got != (RunePos{l, c}) {
					t.Fatalf("file %v: RunePos(%d) = %v, check said %d:%d in %q", file, off, got, l, c, text)
				}
			}
			l, c = oldXMLPos(starts, off)
			if got := m.BytePos(o); got != (BytePos{l, c}) {
				t.Fatalf("file %v: BytePos(%d) = %v, xmlscan said %d:%d in %q", file, off, got, l, c, text)
			}
		}
		// From line and column back: the old mapper's clamping, every
		// column of every line and one past.
		for line := 0; line <= len(old.lines); line++ {
			width := len(text) + 2
			if line < len(old.lines) {
				width = old.lineEnd(line) - old.lines[line] + 2
			}
			for char := 0; char <= width; char++ {
				if got, want := m.OffsetOfUTF16(UTF16Pos{line + 1, char + 1}), old.offset(line, char); got != ByteOffset(want) {
					t.Fatalf("file %v: OffsetOfUTF16(%d:%d) = %d, the old mapper said %d in %q", file, line+1, char+1, got, want, text)
				}
			}
		}
		// With a byte order mark in a file, check's and xmlscan's
		// columns on line 1 were one character, three bytes, too far.
		if file && bom && !loneCR {
			end := strings.IndexAny(text, "\r\n")
			if end < 0 {
				end = len(text)
			}
			for off := len(BOM); off <= end; off++ {
				l, c := oldXMLPos(starts, off)
				if got := m.BytePos(ByteOffset(off)); got != (BytePos{l, c - len(BOM)}) {
					t.Fatalf("BytePos(%d) = %v, want xmlscan's %d:%d less the mark in %q", off, got, l, c, text)
				}
				if off == end || utf8.RuneStart(text[off]) {
					l, c := oldCheckPosition(text, starts, off)
					if got := m.RunePos(ByteOffset(off)); got != (RunePos{l, c - 1}) {
						t.Fatalf("RunePos(%d) = %v, want check's %d:%d less the mark in %q", off, got, l, c, text)
					}
				}
			}
		}
	}
}

var seeds = []string{
	"",
	"a",
	"a\nbc\n", // check's FuzzPosition's seeds
	"ä\r\n\n\x80x",
	strings.Repeat("ü\n", 10000),
	"\n",
	"\r",
	"\r\n",
	"\n\r",
	"a\r\nb\rc\nd",
	BOM,
	BOM + "a😀b\r\né\n",
	BOM + "\r\nx",
	"😀😀\n😀",
	"é\u2028ü\n𝄞x",
	"\xff\xfe invalid \xc3 utf-8 \xed\xa0\x80",
	"line one\n\tindented 😀 tab\r\n  last without break",
	strings.Repeat("😀é\r\n", 200),                  // many lines
	strings.Repeat("a😀", 300) + "\n" + BOM + "\rz", // a long line, a mark not at the start
	// Long lines, past checkpointEvery: a minified file.
	BOM + strings.Repeat("é😀x\xff\xe2\x82", 300) + "\r\n" + strings.Repeat("a", 3000) + "😀\r" + strings.Repeat("𝄞", 600),
}

func TestDifferential(t *testing.T) {
	for _, s := range seeds {
		compare(t, s)
	}
}

// FuzzMapper checks, for any text, that the conversions round trip and
// agree with the implementations they replaced where those were right.
func FuzzMapper(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 256 {
			// The comparison is quadratic in a line's length; longer
			// texts add nothing TestDifferential's large seeds do not
			// hold, and CI runs 10000 executions.
			text = text[:256]
		}
		compare(t, text)
	})
}

// minified is one line of n bytes with a character beyond ASCII in every
// eight, as a generated configuration file can be.
func minified(n int) string { return strings.Repeat("<a x='é'>", n/10) }

// TestLongLineIsBounded: converting every element of a minified file, one
// line of 2 MB, takes checkpoints, not a count from the line's start each
// time (which would decode about 40 GB here: minutes, not milliseconds).
func TestLongLineIsBounded(t *testing.T) {
	text := minified(2 << 20)
	m := NewFile(text)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for off := 0; off < len(text); off += 100 {
			p := m.RunePos(ByteOffset(off))
			if got := m.OffsetOfRunes(p); got != ByteOffset(off) {
				t.Errorf("offset %d -> %v -> %d", off, p, got)
				return
			}
			u := m.UTF16Pos(ByteOffset(off))
			if got := m.OffsetOfUTF16(u); got != ByteOffset(off) {
				t.Errorf("offset %d -> %v -> %d", off, u, got)
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("20,000 conversions on one long line took more than 20 s: each counts from the line's start")
	}
}

func BenchmarkLongLine(b *testing.B) {
	text := minified(1 << 20)
	m := New(text)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		off := ByteOffset(i * 7919 % len(text))
		m.OffsetOfRunes(m.RunePos(off))
	}
}
