package hints

import "strings"

// Text from the configuration and from the script goes into the Markdown
// that editors render. It is written so that it shows as written: an
// administrator's description or a string in a script never becomes a
// link, an image, code or HTML in somebody's hover.

// markdownPunct marks the characters that start markup inside a line:
// links and images need '[', autolinks and HTML '<', code '`', emphasis
// '*', and '\\' escapes. Escaping only these keeps the Markdown readable
// for clients that show it raw; what is left (an underscore at a word's
// edge, a '#' starting a line) can change emphasis or size, never what a
// hover links to or runs.
var markdownPunct = [256]bool{'\\': true, '`': true, '*': true, '[': true, ']': true, '<': true, '>': true}

// writeText writes s as plain text.
func writeText(b *strings.Builder, s string) {
	start := 0
	for i := 0; i < len(s); i++ {
		if markdownPunct[s[i]] {
			b.WriteString(s[start:i])
			b.WriteByte('\\')
			start = i
		}
	}
	b.WriteString(s[start:])
}

// writeCodeList writes a paragraph of label and each of list as inline
// code, separated by commas; nothing when list is empty.
func writeCodeList(b *strings.Builder, label string, list []string) {
	if len(list) == 0 {
		return
	}
	b.WriteString(label)
	for i, s := range list {
		if i > 0 {
			b.WriteString(", ")
		}
		writeCode(b, s)
	}
	b.WriteString("\n\n")
}

// writeCode writes the parts, one after the other, as one inline code
// span: the fence is one backtick longer than the longest run of
// backticks in them, and padded with spaces when they start or end with a
// backtick, as CommonMark requires.
func writeCode(b *strings.Builder, parts ...string) {
	longest, run := 0, 0
	for _, s := range parts {
		if s != "" && strings.IndexByte(s, '`') < 0 {
			run = 0 // a part without backticks ends a run
			continue
		}
		for i := 0; i < len(s); i++ {
			if s[i] == '`' {
				run++
				longest = max(longest, run)
			} else {
				run = 0
			}
		}
	}
	pad := false
	if longest > 0 {
		var first, last byte
		for _, s := range parts {
			if s != "" {
				if first == 0 {
					first = s[0]
				}
				last = s[len(s)-1]
			}
		}
		pad = first == '`' || last == '`'
	}
	writeBackticks(b, longest+1)
	if pad {
		b.WriteByte(' ')
	}
	for _, s := range parts {
		b.WriteString(s)
	}
	if pad {
		b.WriteByte(' ')
	}
	writeBackticks(b, longest+1)
}

func writeBackticks(b *strings.Builder, n int) {
	for range n {
		b.WriteByte('`')
	}
}

// plainText returns s as plain text.
func plainText(s string) string {
	var b strings.Builder
	writeText(&b, s)
	return b.String()
}

// code returns s as inline code.
func code(s string) string {
	var b strings.Builder
	writeCode(&b, s)
	return b.String()
}
