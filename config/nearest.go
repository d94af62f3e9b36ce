package config

import (
	"fmt"
	"sort"
)

// nearest returns up to n candidates within a small edit distance of s,
// closest first, ties broken alphabetically. It allocates nothing per
// candidate: with 10,000 serviceIds it runs on every unknown id a script
// names.
func nearest(s string, candidates []string, n int) []string {
	if n <= 0 || s == "" {
		return nil
	}
	limit := min(len(s)/3+1, 4)
	type scored struct {
		id string
		d  int
	}
	less := func(a, b scored) bool { return a.d < b.d || a.d == b.d && a.id < b.id }
	// best holds the n closest so far, in order; once it is full, the
	// worst of them bounds the search.
	best := make([]scored, 0, n)
	ls := []rune(lower(s))
	var buf distBuf
	for _, c := range candidates {
		if c == s {
			continue
		}
		// Rune counts differ by at least the byte-length difference over 4.
		if d := len(c) - len(s); d > 4*limit || -d > 4*limit {
			continue
		}
		d := buf.distance(ls, c, limit)
		if d > limit {
			continue
		}
		e := scored{c, d}
		if len(best) == n {
			if !less(e, best[n-1]) {
				continue
			}
			best = best[:n-1]
		}
		i := sort.Search(len(best), func(i int) bool { return less(e, best[i]) })
		best = append(best, scored{})
		copy(best[i+1:], best[i:])
		best[i] = e
		if len(best) == n {
			limit = best[n-1].d
		}
	}
	out := make([]string, len(best))
	for i, b := range best {
		out[i] = b.id
	}
	return out
}

// Nearest is nearest for callers outside the package (hints, runtime).
func Nearest(s string, candidates []string, n int) []string { return nearest(s, candidates, n) }

// distBuf holds the buffers of distance, reused across candidates.
type distBuf struct {
	b         []rune
	prev, cur []int
}

// distance is the case-insensitive Levenshtein distance of a (already
// lower-cased runes) and b, giving up (returning limit+1) once it must
// exceed limit.
func (buf *distBuf) distance(a []rune, b string, limit int) int {
	buf.b = buf.b[:0]
	for _, r := range b {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		buf.b = append(buf.b, r)
	}
	rb := buf.b
	if d := len(a) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	if cap(buf.prev) < len(rb)+1 {
		buf.prev = make([]int, len(rb)+1)
		buf.cur = make([]int, len(rb)+1)
	}
	// Only cells within limit of the diagonal can stay within limit
	// (Ukkonen's band); the cells beside the band hold big.
	big := limit + 1
	la, lb := len(a), len(rb)
	prev, cur := buf.prev[:lb+1], buf.cur[:lb+1]
	for j := range prev {
		prev[j] = min(j, big)
	}
	for i := 1; i <= la; i++ {
		lo, hi := max(1, i-limit), min(lb, i+limit)
		rowMin := big
		if lo == 1 {
			cur[0] = min(i, big)
			rowMin = cur[0]
		} else {
			cur[lo-1] = big
		}
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == rb[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost, big)
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if hi < lb {
			cur[hi+1] = big
		}
		if rowMin > limit {
			return big
		}
		prev, cur = cur, prev
	}
	return prev[lb]
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// UnknownKeyMessage is how every file restls reads says a key is unknown:
// the key, and the nearest of known when one is near enough.
func UnknownKeyMessage(key string, known []string) string {
	msg := fmt.Sprintf("unknown key %q", key)
	if near := nearest(key, known, 1); len(near) > 0 {
		msg += fmt.Sprintf(": did you mean %q?", near[0])
	}
	return msg
}
