package lsp

import (
	"testing"

	"go.lsp.dev/protocol"
)

// Tests of testfile_diagnostics.go; the lenses and diagnostics an editor
// gets are tested together in testfile_test.go.

// TestProblemRangeCountsCharacters: a test file's problem column counts
// characters, as YAML reports it; read as bytes it pointed into the middle
// of "😀" on a line with "é" before the key.
func TestProblemRangeCountsCharacters(t *testing.T) {
	t.Parallel()
	m := newMapper("cases:\n  - {name: é😀, bogus: 1}\n")
	got := problemRange(m, &TestProblem{Line: 2, Column: 16})
	want := protocol.Range{Start: protocol.Position{Line: 1, Character: 16}, End: protocol.Position{Line: 1, Character: 21}}
	if got != want {
		t.Errorf("range %v, want %v (the key bogus)", got, want)
	}
}
