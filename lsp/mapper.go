package lsp

import (
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/restls/restls/hints"
)

// mapper converts between LSP positions (line, UTF-16 code unit) and byte
// offsets into a document's UTF-8 text. It is the only place in the package
// that knows about UTF-16; every handler goes through it.
//
// Line breaks are "\n", "\r\n" and a lone "\r", as the LSP specification
// says. A position past the end of a line maps to the end of that line (the
// specification's rule), a line past the last maps to the end of the text,
// and a character inside a surrogate pair (the middle of a 4-byte UTF-8
// sequence) maps to the start of that character, so an edit never splits a
// code point.
type mapper struct {
	text string
	// lines[i] is the byte offset where line i starts; lines[0] == 0.
	lines []int
	// bom is the length of a byte order mark that starts a text read from
	// disk (newFileMapper): editors drop it from what they show and send,
	// so it takes no column.
	bom int
}

// utf8BOM is the byte order mark some editors save scripts and
// configuration files with.
const utf8BOM = "\ufeff"

// newFileMapper maps a file's text as read from disk, for positions an
// editor shows: a leading byte order mark takes no column (editors drop
// it), so an edit or location in a file that is not open lands where it
// would in the editor. Every text read from disk that positions are sent
// for is mapped here; an open document's text (newMapper) is the
// editor's own.
func newFileMapper(text string) *mapper {
	m := newMapper(text)
	if strings.HasPrefix(text, utf8BOM) {
		m.bom = len(utf8BOM)
	}
	return m
}

func newMapper(text string) *mapper {
	m := &mapper{text: text, lines: make([]int, 1, strings.Count(text, "\n")+2)}
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

// lineEnd returns the byte offset of the end of line l, before its break.
func (m *mapper) lineEnd(l int) int {
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

// offset returns the byte offset of pos.
func (m *mapper) offset(pos protocol.Position) int {
	l := int(pos.Line)
	if l >= len(m.lines) {
		return len(m.text)
	}
	start, end := m.lines[l], m.lineEnd(l)
	if l == 0 {
		start = min(m.bom, end)
	}
	want := int(pos.Character)
	units := 0
	for i := start; i < end; {
		if units >= want {
			return i
		}
		r, size := utf8.DecodeRuneInString(m.text[i:end])
		n := 1
		if r >= 0x10000 {
			n = 2
		}
		if units+n > want {
			// want points between the two halves of a surrogate pair.
			return i
		}
		units += n
		i += size
	}
	return end
}

// position returns the LSP position of byte offset off (clamped to the
// text; an offset inside a character maps to that character's start).
func (m *mapper) position(off int) protocol.Position {
	if off < 0 {
		off = 0
	}
	if off > len(m.text) {
		off = len(m.text)
	}
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
	start := m.lines[lo]
	end := m.lineEnd(lo)
	if lo == 0 {
		start = min(m.bom, end)
		off = max(off, start) // inside the byte order mark
	}
	if off > end {
		off = end // inside a line break
	}
	units := 0
	for i := start; i < off; {
		r, size := utf8.DecodeRuneInString(m.text[i:end])
		if i+size > off {
			break // off is inside this character: map to its start
		}
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
		i += size
	}
	return protocol.Position{Line: uint32(lo), Character: uint32(units)}
}

// toRange converts a byte range to an LSP range.
func (m *mapper) toRange(r hints.Range) protocol.Range {
	return protocol.Range{Start: m.position(r.Start), End: m.position(r.End)}
}

// fromRange converts an LSP range to byte offsets, start <= end.
func (m *mapper) fromRange(r protocol.Range) (start, end int) {
	start, end = m.offset(r.Start), m.offset(r.End)
	if end < start {
		start, end = end, start
	}
	return start, end
}

// lineRange is the range of 1-based line (its first when out of the
// text), from its start to its end.
func (m *mapper) lineRange(line int) protocol.Range {
	if line < 1 || line > len(m.lines) {
		line = 1
	}
	l := line - 1
	if l >= len(m.lines) {
		return protocol.Range{}
	}
	return protocol.Range{Start: m.position(m.lines[l]), End: m.position(m.lineEnd(l))}
}
