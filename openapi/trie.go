package openapi

import (
	"sort"
	"strings"
	"sync/atomic"
)

// trie is the path templates by segment, so that a lookup walks the
// segments a call gives instead of every operation (GitHub's description
// has 1,223).
type trie struct {
	seg   string
	kids  []*trie
	ops   []*Operation // at exactly this path
	below []*Operation // at or below it, in Ops order
	// counts counts below by method (methodRank).
	counts [9]int32
	// next is this node as a candidate for the next segment, by method
	// (methodRank), built on first use (shared): the index is immutable,
	// so they are too, and a keystroke reads them instead of building
	// them (NextShared).
	next [len(methods)]atomic.Pointer[Next]
}

func buildTrie(ops []*Operation) *trie {
	root := &trie{}
	for _, o := range ops {
		n := root
		r := methodRank(o.Method)
		n.below = append(n.below, o)
		n.counts[r]++
		for _, s := range o.Segments {
			n = n.kid(s)
			n.below = append(n.below, o)
			n.counts[r]++
		}
		n.ops = append(n.ops, o)
	}
	root.sort()
	return root
}

func (n *trie) kid(seg string) *trie {
	for _, k := range n.kids {
		if k.seg == seg {
			return k
		}
	}
	k := &trie{seg: seg}
	n.kids = append(n.kids, k)
	return k
}

func (n *trie) sort() {
	sort.Slice(n.kids, func(i, j int) bool { return n.kids[i].seg < n.kids[j].seg })
	for _, k := range n.kids {
		k.sort()
	}
}

// find returns the kid for a literal segment, or nil.
func (n *trie) find(seg string) *trie {
	if n == nil {
		return nil
	}
	i := sort.Search(len(n.kids), func(i int) bool { return n.kids[i].seg >= seg })
	if i < len(n.kids) && n.kids[i].seg == seg {
		return n.kids[i]
	}
	return nil
}

// walk returns the nodes the segments reach.
func (n *trie) walk(segs []Seg, out []*trie) []*trie {
	if len(segs) == 0 {
		return append(out, n)
	}
	s := segs[0]
	for _, k := range n.kids {
		if s.Computed || k.seg == s.Text || strings.IndexByte(k.seg, '{') >= 0 && segmentEqual(k.seg, s.Text) {
			out = k.walk(segs[1:], out)
		}
	}
	return out
}
