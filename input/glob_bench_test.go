package input

import (
	"strings"
	"testing"
)

// BenchmarkGlobWorst: the inputs of issue 23's findings 2 and 6, which
// the backtracking matchers took 25 s to forever on, and a 1,000-segment
// path. docs/decisions.md quotes it.
func BenchmarkGlobWorst(b *testing.B) {
	kind, _ := FileGlob(strings.Repeat("**/a/", 10) + "b.js")
	file := "/" + strings.Repeat("a/", 59) + "c.js"
	fixture, _ := PathGlob(strings.Repeat("**/a/", 10) + "b")
	params := strings.Split(strings.Repeat("a/", 59)+"a", "/")
	long := strings.Split(strings.Repeat("a/", 999)+"a", "/")
	b.Run("kind-10x**-60seg", func(b *testing.B) {
		for b.Loop() {
			kind.MatchPath(file)
		}
	})
	b.Run("fixture-10x**-60seg", func(b *testing.B) {
		for b.Loop() {
			fixture.MatchSegments(params)
		}
	})
	b.Run("fixture-10x**-1000seg", func(b *testing.B) {
		for b.Loop() {
			fixture.MatchSegments(long)
		}
	})
}
