package config

import "sort"

// nearest returns up to n candidates within a small edit distance of s,
// closest first, ties broken alphabetically.
func nearest(s string, candidates []string, n int) []string {
	if n <= 0 || s == "" {
		return nil
	}
	limit := len(s)/3 + 1
	if limit > 4 {
		limit = 4
	}
	type scored struct {
		id string
		d  int
	}
	var best []scored
	for _, c := range candidates {
		if c == s {
			continue
		}
		d := editDistance(s, c, limit)
		if d > limit {
			continue
		}
		best = append(best, scored{c, d})
	}
	sort.Slice(best, func(i, j int) bool {
		if best[i].d != best[j].d {
			return best[i].d < best[j].d
		}
		return best[i].id < best[j].id
	})
	if len(best) > n {
		best = best[:n]
	}
	out := make([]string, len(best))
	for i, b := range best {
		out[i] = b.id
	}
	return out
}

// Nearest is nearest for callers outside the package (hints, runtime).
func Nearest(s string, candidates []string, n int) []string { return nearest(s, candidates, n) }

// editDistance is the case-insensitive Levenshtein distance of a and b,
// giving up (returning limit+1) once it must exceed limit.
func editDistance(a, b string, limit int) int {
	ra, rb := []rune(lower(a)), []rune(lower(b))
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
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
