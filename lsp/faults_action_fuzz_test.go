package lsp

import (
	"strings"
	"testing"
)

// FuzzCasesEnd: where the fault quick fix inserts a case in a test file
// the user wrote: never a panic, a place at a line's start inside the
// text, an indent of spaces; found only in a file with a cases: line.
func FuzzCasesEnd(f *testing.F) {
	f.Add("script: a.js\ncases:\n  - name: one\n    result: 1\n")
	f.Add("script: a.js\ncases:\n- name: one\n# trailing\nfixtures: x.yaml\n")
	f.Add("script: a.js\r\ncases:\r\n    - name: one\r\n")
	f.Add("cases: [a, b]\n")
	f.Add("script: a.js\nresult: 1\n")
	f.Add("cases:\n" + strings.Repeat("  - name: c\n    result: {a: [1, 2]}\n", 2000))
	f.Add("cases:\n  - name: " + strings.Repeat("x", 1<<16))
	f.Fuzz(func(t *testing.T, text string) {
		at, indent, ok := casesEnd([]byte(text))
		if at < 0 || at > len(text) || at > 0 && at < len(text) && text[at-1] != '\n' {
			t.Fatalf("insertion at %d of %d bytes, not at a line start", at, len(text))
		}
		if strings.Trim(indent, " ") != "" {
			t.Fatalf("indent %q is not spaces", indent)
		}
		if ok && !strings.Contains(text, "cases:") {
			t.Fatalf("a cases list found in a text without cases:")
		}
	})
}
