package lsp

import (
	"go.lsp.dev/protocol"

	"github.com/restls/restls/hints"
	"github.com/restls/restls/textpos"
)

// mapper converts between LSP positions (0-based line, 0-based UTF-16
// code unit) and byte offsets into a document's UTF-8 text. The
// conversions, the line-break rule and the byte order mark rule are
// textpos's; mapper only adapts them to the protocol's types and counts
// from 0. Every handler goes through it.
//
// A position past the end of a line maps to the end of that line (the
// specification's rule), a line past the last maps to the end of the text,
// and a character inside a surrogate pair maps to the start of that
// character, so an edit never splits a code point.
type mapper struct{ *textpos.Mapper }

// newFileMapper maps a file's text as read from disk, for positions an
// editor shows: a leading byte order mark takes no column (textpos.NewFile).
// Every text read from disk that positions are sent for is mapped here; an
// open document's text (newMapper) is the editor's own.
func newFileMapper(text string) *mapper { return &mapper{textpos.NewFile(text)} }

func newMapper(text string) *mapper { return &mapper{textpos.New(text)} }

// offset returns the byte offset of pos.
func (m *mapper) offset(pos protocol.Position) int {
	return int(m.OffsetOfUTF16(textpos.UTF16Pos{Line: int(pos.Line) + 1, Col: int(pos.Character) + 1}))
}

// position returns the LSP position of byte offset off (clamped to the
// text; an offset inside a character maps to that character's start).
func (m *mapper) position(off int) protocol.Position {
	p := m.UTF16Pos(textpos.ByteOffset(off))
	return protocol.Position{Line: uint32(p.Line - 1), Character: uint32(p.Col - 1)}
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
	if line < 1 || line > m.Lines() {
		line = 1
	}
	return protocol.Range{Start: m.position(int(m.LineStart(line))), End: m.position(int(m.LineEnd(line)))}
}
