//go:build unix

package runtime

import "testing"

// TestRaiseTo: the soft data-segment limit is raised to what a run
// needs, capped by the hard limit, and left alone when a lower one is in
// force, for both types the platforms give the limits (FreeBSD's int64,
// where -1 is RLIM_INFINITY; uint64 elsewhere).
func TestRaiseTo(t *testing.T) {
	const inf = ^uint64(0)
	for _, c := range []struct {
		name     string
		cur, max uint64
		want     uint64
		changed  bool
		cur2     uint64
	}{
		{"no limits", inf, inf, 100, true, 100},
		{"hard limit below", inf, 50, 100, true, 50},
		{"soft limit above", 200, inf, 100, true, 100},
		{"lower soft limit in force", 30, inf, 100, false, 30},
	} {
		cur, max := c.cur, c.max
		if got := raiseTo(&cur, &max, c.want); got != c.changed || cur != c.cur2 || max != c.max {
			t.Errorf("uint64 %s: raiseTo = %v, cur %d, max %d; want %v, %d, %d", c.name, got, cur, max, c.changed, c.cur2, c.max)
		}
		icur, imax := int64(c.cur), int64(c.max) // inf becomes -1
		if got := raiseTo(&icur, &imax, c.want); got != c.changed || uint64(icur) != c.cur2 || uint64(imax) != c.max {
			t.Errorf("int64 %s: raiseTo = %v, cur %d, max %d; want %v, %d, %d", c.name, got, icur, imax, c.changed, int64(c.cur2), int64(c.max))
		}
	}
}
