package config

import (
	"bytes"

	"github.com/restls/restls/textpos"
)

// xmlPositions maps elements to their start positions. etree keeps no
// positions, so a byte scan records the start of every element in document
// order, and an element's number in that order finds its position.
type xmlPositions struct {
	file  string
	lines *textpos.Mapper
	start []int64 // byte offset of each element's '<', document order
	// The root as the scan saw it, to split a large file: its name as
	// written, the offset just past its start tag (0 when it has no
	// content), and the numbers (indexes into start) of its children.
	rootName string
	rootEnd  int
	top      []int
}

// scanXML records the offset of every start tag in document order, and the
// root and its children. A byte scan suffices because only a document
// etree accepts is ever read by it: it skips comments, CDATA, processing
// instructions, the DOCTYPE (with its internal subset) and quoted
// attribute values, where a '<' or '>' is not markup. It runs before etree
// parses, so on a malformed document what it records means nothing, and
// nothing relies on it: the whole parse fails and its error is reported.
// FuzzScanXML checks it against encoding/xml.
func scanXML(file string, data []byte) *xmlPositions {
	// Every element starts with a '<', so their count bounds the elements.
	xp := &xmlPositions{file: file, lines: textpos.NewFile(string(data)), start: make([]int64, 0, bytes.Count(data, []byte{'<'}))}
	n := len(data)
	skipPast := func(i int, end string) int {
		j := bytes.Index(data[i:], []byte(end))
		if j < 0 {
			return n
		}
		return i + j + len(end)
	}
	depth := 0 // elements open; right only for a well-formed document
	for i := 0; i < n; {
		j := bytes.IndexByte(data[i:], '<')
		if j < 0 {
			break
		}
		i += j
		switch {
		case bytes.HasPrefix(data[i:], []byte("<!--")):
			i = skipPast(i+4, "-->")
		case bytes.HasPrefix(data[i:], []byte("<![CDATA[")):
			i = skipPast(i+9, "]]>")
		case bytes.HasPrefix(data[i:], []byte("<?")):
			i = skipPast(i+2, "?>")
		case bytes.HasPrefix(data[i:], []byte("<!")):
			i = skipDecl(data, i+2)
		case i+1 < n && data[i+1] == '/':
			i = skipPast(i+2, ">")
			depth--
		default:
			num := len(xp.start)
			xp.start = append(xp.start, int64(i))
			end, empty := skipTag(data, i+1)
			switch {
			case num == 0 && !empty:
				xp.rootName, xp.rootEnd = tagName(data[i+1:end]), end
			case depth == 1 && xp.rootEnd > 0:
				xp.top = append(xp.top, num)
			}
			if !empty {
				depth++
			}
			i = end
		}
	}
	return xp
}

// skipDecl skips a <!DOCTYPE ...> or other declaration the way
// encoding/xml (under etree) reads it: the byte after "<!" is taken as it
// is, whatever it is; then, outside quoted strings, each '<' opens a level
// (or a comment) and each '>' closes one, and a '>' at level 0 ends the
// declaration. Brackets mean nothing to it.
func skipDecl(data []byte, i int) int {
	if i < len(data) {
		i++
	}
	var quote byte
	depth := 0
	for i < len(data) {
		switch c := data[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '>':
			if depth == 0 {
				return i + 1
			}
			depth--
		case c == '"' || c == '\'':
			quote = c
		case c == '<':
			if bytes.HasPrefix(data[i+1:], []byte("!--")) {
				k := bytes.Index(data[i+4:], []byte("-->"))
				if k < 0 {
					return len(data)
				}
				i += 4 + k + 3
				continue
			}
			depth++
		}
		i++
	}
	return i
}

// skipTag skips to the end of a start tag, past quoted attribute values,
// and tells whether the tag closes itself (<a/>).
func skipTag(data []byte, i int) (end int, empty bool) {
	for i < len(data) {
		switch c := data[i]; c {
		case '"', '\'':
			k := bytes.IndexByte(data[i+1:], c)
			if k < 0 {
				return len(data), false
			}
			i += k + 2
		case '>':
			return i + 1, data[i-1] == '/'
		default:
			i++
		}
	}
	return i, false
}

// tagName returns the name at the start of a tag's bytes after '<'.
func tagName(tag []byte) string {
	end := bytes.IndexAny(tag, " \t\r\n/>")
	if end < 0 {
		end = len(tag)
	}
	return string(tag[:end])
}

// at returns where element x starts.
func (xp *xmlPositions) at(x node) Position {
	if x.n >= len(xp.start) {
		return Position{}
	}
	p := xp.lines.RunePos(textpos.ByteOffset(xp.start[x.n]))
	return Position{xp.file, p.Line, p.Col}
}
