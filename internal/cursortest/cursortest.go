// Package cursortest reads the cursor marker of test sources: the tests of
// hints and lsp write the cursor as '|' in the text ("api.rest.v1.|")
// rather than as a line and column. Only _test.go files import it.
//
// It imports no restls package, so any package's tests may use it.
package cursortest

import (
	"strings"
	"testing"
)

// Split removes the cursor marker '|' from src and returns the text and the
// marker's byte offset. It fails t unless src holds exactly one '|'.
func Split(t testing.TB, src string) (string, int) {
	t.Helper()
	i := strings.IndexByte(src, '|')
	if i < 0 || strings.Count(src, "|") != 1 {
		t.Fatalf("source must hold exactly one cursor marker '|': %q", src)
	}
	return src[:i] + src[i+1:], i
}
