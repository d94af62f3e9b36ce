package input

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable returns s as it may be written to a terminal: every character
// that could steer one instead of being shown (C0 and C1 control
// characters, DEL, the bidirectional overrides that reorder a line, line
// and paragraph separators) and every byte that is not UTF-8 is written as
// a Go escape (\x1b, \n, \u202e), so a file name, a serviceId or a
// message read from a repository or a service shows what it holds and
// cannot colour, move, hide or rewrite the output around it. Text
// without such characters is returned as it is.
func Printable(s string) string { return printable(s, false) }

// PrintableLines is Printable for text of several lines: line feeds and
// tabs stay as they are.
func PrintableLines(s string) string { return printable(s, true) }

func printable(s string, lines bool) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x80 {
			r, n := utf8.DecodeRuneInString(s[i:])
			if unsafeRune(r, n) {
				break
			}
			i += n
			continue
		}
		if c < 0x20 || c == 0x7f {
			if !lines || c != '\n' && c != '\t' {
				break
			}
		}
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case lines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r < 0x80 && (r < 0x20 || r == 0x7f):
			switch r {
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			default:
				b.WriteString(`\x`)
				b.WriteString(hex2(byte(r)))
			}
		case unsafeRune(r, n):
			q := strconv.QuoteRuneToASCII(r) // '\u202e'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// unsafeRune reports whether the non-ASCII rune r (n bytes long) must be
// escaped: invalid UTF-8, a C1 control, a bidirectional formatting
// character, or a line or paragraph separator.
func unsafeRune(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n == 1, unicode.IsControl(r):
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, 0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069:
		return true // Arabic letter mark, LRM/RLM, embeddings, overrides, isolates
	case r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// TextJSON is json.Marshal's text of v without its HTML escapes: for
// JSON shown to a person (a test's expected and actual values, a run's
// diff), and for JSON that carries a body as it was sent (a dry run's
// child's lines, a call's trace). json.Marshal writes & < > as \u0026
// \u003c \u003e, for JSON embedded in HTML, and in a json.RawMessage it
// rewrites the body's own bytes so; a terminal or an editor shows them
// as they are. The text is still JSON; print it through Printable as
// any other text.
func TextJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
