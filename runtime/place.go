package runtime

import (
	"strings"
	"unicode/utf8"

	"github.com/restls/restls/runtime/restclient"
)

// aboutServiceID reports whether an error with code is about the call's
// serviceId argument, so that it is placed there, where restls check and
// the editor place its diagnostic, rather than at the call's bracket.
func aboutServiceID(code string) bool {
	return code == restclient.CodeUnknownService || code == restclient.CodeServiceUnusable
}

// lineOffset is the byte offset where line (from 1) starts in src, or -1.
func lineOffset(src string, line int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(src[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	return off
}

// firstArgument returns the place of the first argument of the call whose
// '(' is at line and byte column col of src (what goja reports for an
// error thrown by a call): the first character inside the quotes of a
// string literal, as restls check reports a serviceId, else the start of
// the argument. Anything else (no '(' there, no argument) keeps the place.
func firstArgument(src string, line, col int) (int, int) {
	start := lineOffset(src, line)
	i := start + col - 1
	if start < 0 || col < 1 || i >= len(src) || src[i] != '(' {
		return line, col
	}
	for i++; i < len(src); {
		switch {
		case src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r':
			i++
			continue
		case strings.HasPrefix(src[i:], "//"):
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				return line, col
			}
			i += j
			continue
		case strings.HasPrefix(src[i:], "/*"):
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				return line, col
			}
			i += 2 + j + 2
			continue
		}
		break
	}
	if i >= len(src) || src[i] == ')' {
		return line, col
	}
	if c := src[i]; (c == '"' || c == '\'' || c == '`') && i+1 < len(src) {
		i++
	}
	before := src[:i]
	nl := strings.LastIndexByte(before, '\n')
	return strings.Count(before, "\n") + 1, i - nl
}

// charColumn turns a byte column of line into a column in characters
// (Unicode code points), as restls check counts them.
func charColumn(src string, line, col int) int {
	start := lineOffset(src, line)
	if start < 0 || col < 1 {
		return col
	}
	end := min(start+col-1, len(src))
	return utf8.RuneCountInString(src[start:end]) + 1
}
