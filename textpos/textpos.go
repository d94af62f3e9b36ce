package textpos

import (
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// ByteOffset is a 0-based offset in bytes into a text's UTF-8.
type ByteOffset int

// RunePos is a line and a column counted in Unicode characters (code
// points; each byte of invalid UTF-8 counts as one). Line and Col are
// 1-based. It is the column `restls check` prints (SARIF's
// "unicodeCodePoints").
type RunePos struct{ Line, Col int }

// UTF16Pos is a line and a column counted in UTF-16 code units: a
// character beyond U+FFFF (a surrogate pair) takes two. Line and Col are
// 1-based, as in every type here; the Language Server Protocol counts
// both from 0, which is its adapter's to subtract.
type UTF16Pos struct{ Line, Col int }

// BOM is the UTF-8 byte order mark some editors save scripts and
// configuration files with.
const BOM = "\ufeff"

// Mapper converts between the positions of one text. It is immutable and
// safe for concurrent use.
type Mapper struct {
	text string
	// lines[i] is the byte offset where line i+1 starts; lines[0] == 0.
	lines []int
	// bom is the length of a byte order mark that starts a text read from
	// disk (NewFile): editors drop it from what they show and send, so it
	// takes no column.
	bom int

	// Checkpoints bound a conversion on a long line (a minified file)
	// to about checkpointEvery bytes of counting: built once, on the
	// first such conversion.
	once  sync.Once
	cks   []checkpoint
	every int // checkpointEvery; smaller in tests, to reach them
}

// checkpointEvery is how many bytes a conversion counts at most (plus one
// character) on a line longer than that.
const checkpointEvery = 1024

// checkpoint is a place where decoding the text from its start reaches
// the start of a character, with the characters and UTF-16 units before
// it.
type checkpoint struct{ off, runes, utf16 int }

// checkpoints returns the text's checkpoints, one at least every
// checkpointEvery bytes.
func (m *Mapper) checkpoints() []checkpoint {
	m.once.Do(func() {
		m.cks = make([]checkpoint, 0, len(m.text)/m.every+1)
		runes, units, next := 0, 0, 0
		for i := 0; i < len(m.text); {
			if i >= next {
				m.cks = append(m.cks, checkpoint{i, runes, units})
				next = i + m.every
			}
			r, size := utf8.DecodeRuneInString(m.text[i:])
			runes++
			units += width(r, unitUTF16)
			i += size
		}
	})
	return m.cks
}

// from returns the character start to count from, for a count from the
// line start (a character start) to off: the last checkpoint at or after
// start and at or before off, with the columns in u between start and
// it; start itself and 0 on a short stretch.
func (m *Mapper) from(start, off int, u unit) (at, n int) {
	if off-start <= m.every {
		return start, 0
	}
	cks := m.checkpoints()
	j := sort.Search(len(cks), func(j int) bool { return cks[j].off > off }) - 1
	if j < 0 || cks[j].off <= start {
		return start, 0
	}
	return cks[j].off, m.count(cks[j], u) - m.countAt(start, u)
}

// count is the columns in u before checkpoint c.
func (m *Mapper) count(c checkpoint, u unit) int {
	if u == unitUTF16 {
		return c.utf16
	}
	return c.runes
}

// countAt is the columns in u before off, a character start.
func (m *Mapper) countAt(off int, u unit) int {
	cks := m.checkpoints()
	j := sort.Search(len(cks), func(j int) bool { return cks[j].off > off }) - 1
	n := m.count(cks[j], u)
	for i := cks[j].off; i < off; {
		r, size := utf8.DecodeRuneInString(m.text[i:])
		n += width(r, u)
		i += size
	}
	return n
}

// New maps text as an editor holds it: every character, a byte order mark
// too, takes its column.
func New(text string) *Mapper {
	m := &Mapper{text: text, lines: make([]int, 1, strings.Count(text, "\n")+2), every: checkpointEvery}
	if strings.IndexByte(text, '\r') < 0 {
		// The common case, searched with the vectorised IndexByte: a
		// keystroke in a 10,000-line script rebuilds this index.
		for i := 0; ; {
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				break
			}
			i += j + 1
			m.lines = append(m.lines, i)
		}
		return m
	}
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
	return m
}

// NewFile maps a file's text as read from disk, for positions an editor
// shows: a leading byte order mark takes no column (editors drop it), so
// a position in a file that is not open means what it would in the
// editor. This is the one place the rule is written.
func NewFile(text string) *Mapper {
	m := New(text)
	if strings.HasPrefix(text, BOM) {
		m.bom = len(BOM)
	}
	return m
}

// Text returns the text mapped.
func (m *Mapper) Text() string { return m.text }

// Lines returns the number of lines: one more than the line breaks.
func (m *Mapper) Lines() int { return len(m.lines) }

// LineStart returns the offset of 1-based line's first column (past a
// file's byte order mark on line 1): the start of the text for a line
// before the first, its end for one past the last.
func (m *Mapper) LineStart(line int) ByteOffset {
	if line < 1 {
		line = 1
	}
	if line > len(m.lines) {
		return ByteOffset(len(m.text))
	}
	if line == 1 {
		return ByteOffset(min(m.bom, m.lineEnd(0)))
	}
	return ByteOffset(m.lines[line-1])
}

// LineEnd returns the offset of the end of 1-based line, before its
// break: the end of the text for a line past the last.
func (m *Mapper) LineEnd(line int) ByteOffset {
	if line < 1 {
		line = 1
	}
	if line > len(m.lines) {
		return ByteOffset(len(m.text))
	}
	return ByteOffset(m.lineEnd(line - 1))
}

// lineEnd returns the byte offset of the end of 0-based line l, before its
// break.
func (m *Mapper) lineEnd(l int) int {
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

// unit is what a column counts. Nothing outside the tests asks for byte
// columns (config's moved to characters), so only they use unitBytes.
type unit int

const (
	unitBytes unit = iota
	unitRunes
	unitUTF16
)

// RunePos returns the line and character column of off. An offset is
// clamped to the text; one inside a line break or a byte order mark maps
// to the end or the start of its line, one inside a character to that
// character.
func (m *Mapper) RunePos(off ByteOffset) RunePos {
	l, c := m.pos(off, unitRunes)
	return RunePos{l, c}
}

// UTF16Pos returns the line and UTF-16 column of off, clamped as RunePos
// is.
func (m *Mapper) UTF16Pos(off ByteOffset) UTF16Pos {
	l, c := m.pos(off, unitUTF16)
	return UTF16Pos{l, c}
}

// OffsetOfRunes returns the offset of p. A column before the line's
// first maps to its start, one past its end to its end (before the
// break), a line before the first to the text's first column and one past
// the last to the end of the text.
func (m *Mapper) OffsetOfRunes(p RunePos) ByteOffset { return m.offset(p.Line, p.Col, unitRunes) }

// OffsetOfUTF16 returns the offset of p, clamped as OffsetOfRunes is; a
// column between the two halves of a surrogate pair maps to the start of
// its character, so an edit never splits a code point.
func (m *Mapper) OffsetOfUTF16(p UTF16Pos) ByteOffset { return m.offset(p.Line, p.Col, unitUTF16) }

// pos returns the 1-based line and column of off in u.
func (m *Mapper) pos(o ByteOffset, u unit) (line, col int) {
	off := max(0, min(int(o), len(m.text)))
	// The last line start <= off.
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
		off = max(off, start) // inside the byte order mark
	}
	off = min(off, end) // inside a line break
	if u == unitBytes {
		return lo + 1, off - start + 1
	}
	i, n := m.from(start, off, u)
	for i < off {
		r, size := utf8.DecodeRuneInString(m.text[i:end])
		if i+size > off {
			break // off is inside this character: map to its start
		}
		n += width(r, u)
		i += size
	}
	return lo + 1, n + 1
}

// offset returns the byte offset of 1-based line and column col in u.
func (m *Mapper) offset(line, col int, u unit) ByteOffset {
	if line > len(m.lines) {
		return ByteOffset(len(m.text))
	}
	start, end := int(m.LineStart(line)), int(m.LineEnd(line))
	want := col - 1
	if u == unitBytes {
		return ByteOffset(start + max(0, min(want, end-start)))
	}
	i, n := start, 0
	if want > m.every/4 {
		// A long way into the line: from the last checkpoint before
		// the column.
		i, n = m.seek(start, end, want, u)
	}
	for i < end {
		if n >= want {
			return ByteOffset(i)
		}
		r, size := utf8.DecodeRuneInString(m.text[i:end])
		w := width(r, u)
		if n+w > want {
			// want points between the two halves of a surrogate pair.
			return ByteOffset(i)
		}
		n += w
		i += size
	}
	return ByteOffset(end)
}

// seek returns the last checkpoint in the line from start to end whose
// column in u is at most want, with that column (counted from 0): start
// and 0 when there is none.
func (m *Mapper) seek(start, end, want int, u unit) (at, n int) {
	if end-start <= m.every {
		return start, 0
	}
	cks := m.checkpoints()
	base := m.countAt(start, u)
	lo := sort.Search(len(cks), func(j int) bool { return cks[j].off > start })
	hi := sort.Search(len(cks), func(j int) bool { return cks[j].off >= end })
	j := lo + sort.Search(hi-lo, func(k int) bool { return m.count(cks[lo+k], u)-base > want }) - 1
	if j < lo {
		return start, 0
	}
	return cks[j].off, m.count(cks[j], u) - base
}

// width is the columns rune r takes in u (not bytes).
func width(r rune, u unit) int {
	if u == unitUTF16 && r >= 0x10000 {
		return 2
	}
	return 1
}
