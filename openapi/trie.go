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
	kids  []*trie      // sorted by seg
	tmpl  []*trie      // the kids whose seg has a parameter ({id}, file.{ext})
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

// kidKey names a node's kid while the trie is built.
type kidKey struct {
	parent *trie
	seg    string
}

func buildTrie(ops []*Operation) *trie {
	root := &trie{}
	// A map finds a kid while building: 200,000 paths under one node
	// made a search of the list quadratic.
	kids := map[kidKey]*trie{}
	for _, o := range ops {
		n := root
		r := methodRank(o.Method)
		n.below = append(n.below, o)
		n.counts[r]++
		for _, s := range o.Segments {
			k := kids[kidKey{n, s}]
			if k == nil {
				k = &trie{seg: s}
				kids[kidKey{n, s}] = k
				n.kids = append(n.kids, k)
			}
			n = k
			n.below = append(n.below, o)
			n.counts[r]++
		}
		n.ops = append(n.ops, o)
	}
	root.sort()
	return root
}

func (n *trie) sort() {
	sort.Slice(n.kids, func(i, j int) bool { return n.kids[i].seg < n.kids[j].seg })
	for _, k := range n.kids {
		if strings.IndexByte(k.seg, '{') >= 0 {
			n.tmpl = append(n.tmpl, k)
		}
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

// walk returns the nodes the segments reach, in the order of their
// segments at each level. A literal segment is looked up, and only the
// kids with a parameter are compared: a node may have many kids.
func (n *trie) walk(segs []Seg, out []*trie) []*trie {
	if len(segs) == 0 {
		return append(out, n)
	}
	s := segs[0]
	if s.Computed {
		for _, k := range n.kids {
			out = k.walk(segs[1:], out)
		}
		return out
	}
	lit := n.find(s.Text)
	for _, k := range n.tmpl {
		if lit != nil && lit.seg < k.seg {
			out = lit.walk(segs[1:], out)
			lit = nil
		}
		if k != lit && segmentEqual(k.seg, s.Text) {
			out = k.walk(segs[1:], out)
		}
	}
	if lit != nil {
		out = lit.walk(segs[1:], out)
	}
	return out
}
