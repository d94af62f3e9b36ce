// Package deepgentest generates deeply nested and long scripts for the fuzz
// targets of the packages that read scripts (hints, runtime, jsdepth):
// random bytes rarely nest deeper than a few levels, and the inputs that
// matter for the nesting budget are tens of thousands of levels deep. It
// is test support only and imports nothing of restls.
package deepgentest

import "strings"

// Shapes is how many nesting shapes Script knows.
const Shapes = 12

// MaxDepth bounds the depth Script generates.
const MaxDepth = 40000

// Script returns a script of the given shape (taken modulo Shapes) nested
// depth levels deep (taken modulo MaxDepth+1), closed or left open, with
// tail appended: a function body that returns the nested value where the
// shape allows it.
func Script(shape, depth int, closed bool, tail string) string {
	if shape < 0 {
		shape = -shape
	}
	if depth < 0 {
		depth = -depth
	}
	depth %= MaxDepth + 1
	open, mid, close := parts(shape % Shapes)
	var b strings.Builder
	b.Grow(len("return ") + depth*(len(open)+len(close)) + len(mid) + len(tail))
	b.WriteString("return ")
	for range depth {
		b.WriteString(open)
	}
	b.WriteString(mid)
	if closed {
		for range depth {
			b.WriteString(close)
		}
	}
	b.WriteString(tail)
	return b.String()
}

// parts returns what opens a level, the innermost value and what closes a
// level.
func parts(shape int) (open, mid, close string) {
	switch shape {
	case 0:
		return "(", "1", ")"
	case 1:
		return "[", "1", "]"
	case 2:
		return "{a:", "1", "}"
	case 3:
		return "`${", "1", "}`"
	case 4:
		return "f(", "1", ")"
	case 5:
		return "(function(){return ", "1", "})()"
	case 6:
		return "[{a:(", "1", ")}]"
	case 7:
		return "/(/.test(", "1", "),"
	case 8:
		return "a ? (", "1", ") : 0"
	case 9:
		// long and flat: one level, depth terms
		return "1+", "1", ""
	case 10:
		return "x.y[", "0", "]"
	default:
		return "{}/(", "1", ")"
	}
}
