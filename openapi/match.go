package openapi

import (
	"strings"
	"sync/atomic"
)

// Seg is one path segment of a call as the script writes it: a literal
// string, or a computed value (a variable, an expression) that may be
// anything.
type Seg struct {
	Text     string
	Computed bool
}

// API is a description as one service sees it: the index and the path
// segments between the description's server url and the service's url
// (a service defined by reference to another adds its suffix).
type API struct {
	Index  *Index
	Prefix []string
}

// IsParam reports whether a template segment is a parameter ({owner}).
func IsParam(seg string) bool {
	return strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}")
}

// matchLen tells whether the template segments tmpl accept the segments
// segs (all of them, or as a prefix when prefix is set), and how many
// literal template segments matched literally (the better match).
func matchSegs(tmpl []string, segs []Seg, prefix bool) (bool, int) {
	if len(segs) > len(tmpl) || !prefix && len(segs) != len(tmpl) {
		return false, 0
	}
	exact := 0
	for i, s := range segs {
		t := tmpl[i]
		if IsParam(t) {
			continue
		}
		if s.Computed {
			continue
		}
		if !segmentEqual(t, s.Text) {
			return false, 0
		}
		exact++
	}
	return true, exact
}

// segmentEqual compares a literal template segment with a script's
// segment; a template with a parameter inside a segment (file.{ext})
// accepts any text around it.
func segmentEqual(t, s string) bool {
	if t == s {
		return true
	}
	if i := strings.IndexByte(t, '{'); i >= 0 && strings.Contains(t[i:], "}") {
		j := strings.LastIndexByte(t, '}')
		return strings.HasPrefix(s, t[:i]) && strings.HasSuffix(s, t[j+1:]) && len(s) >= i+len(t)-j-1
	}
	return false
}

// full returns the API's prefix and then the call's segments, in buf's
// room when it has enough.
func (a API) full(segs, buf []Seg) []Seg {
	if len(a.Prefix) == 0 {
		return segs
	}
	out := buf[:0]
	if cap(out) < len(a.Prefix)+len(segs) {
		out = make([]Seg, 0, len(a.Prefix)+len(segs))
	}
	for _, p := range a.Prefix {
		out = append(out, Seg{Text: p})
	}
	return append(out, segs...)
}

// Match returns the operations of the path the segments address, the
// best (most literal) path first: ops for method, and whether the path
// exists for another method (then ops is empty and others lists them).
func (a API) Match(method string, segs []Seg) (op *Operation, others []*Operation) {
	if a.Index == nil || a.Index.paths == nil {
		return nil, nil
	}
	full := a.full(segs, nil)
	best := -1
	var bestNode *trie
	for _, n := range a.Index.paths.walk(full, nil) {
		if len(n.ops) == 0 {
			continue
		}
		_, exact := matchSegs(n.ops[0].Segments, full, false)
		if exact > best {
			best, bestNode = exact, n
		}
	}
	if bestNode == nil {
		return nil, nil
	}
	for _, o := range bestNode.ops {
		if o.Method == method {
			op = o
		} else {
			others = append(others, o)
		}
	}
	return op, others
}

// Next is a candidate for the next path segment.
type Next struct {
	Segment string // literal text or {param}
	Param   *Param // the parameter of a {param} segment
	// Ops are the first operations at or below it for the call's method
	// (at most MaxNextOps), NOps how many there are; Other and NOther the
	// same for the other methods, OtherMethods their methods.
	Ops, Other   []*Operation
	NOps, NOther int
	OtherMethods []string

	memo *Memo // see Memo()
}

// Memo returns the slot that comes with a candidate kept on the index
// (NextShared), or nil for one built for the call.
func (n *Next) Memo() *Memo { return n.memo }

// MaxNextOps is how many operations a Next lists of each kind.
const MaxNextOps = 3

// Next returns the candidates for the segment after segs, sorted, built
// for this call (see NextShared).
func (a API) Next(method string, segs []Seg) []Next {
	if a.Index == nil || a.Index.paths == nil {
		return nil
	}
	return candidates(a.Index.paths.walk(a.full(segs, nil), nil), method)
}

// NextShared returns what Next does, for a caller that derives something
// from the candidates on every keystroke (package hints: completion
// items). A candidate that comes from one node of the path trie, for a
// method that is one of the upper-case HTTP methods (GET ...), is the one
// kept on that node for that method, built on first use, and carries a
// Memo for the caller's derived value; one merged from several nodes (a
// computed segment reaches every kid: /repos/{owner}/{repo} and
// /repos/{template_owner}/{template_repo}) or for another method is built
// for the call, without a Memo. No candidate may be modified.
func (a API) NextShared(method string, segs []Seg) []*Next {
	if a.Index == nil || a.Index.paths == nil {
		return nil
	}
	var fb [16]Seg
	var nb [4]*trie
	nodes := a.Index.paths.walk(a.full(segs, fb[:0]), nb[:0])
	rank := methodRank(method)
	share := rank < len(upperMethods) && method == upperMethods[rank]
	kids := 0
	for _, n := range nodes {
		kids += len(n.kids)
	}
	out := make([]*Next, 0, kids)
	for i, n := range nodes {
		for _, k := range n.kids {
			if anyFind(nodes[:i], k.seg) {
				continue // merged into the first node's
			}
			if share && !anyFind(nodes[i+1:], k.seg) {
				out = append(out, k.shared(rank, method))
				continue
			}
			nx := newNext(k.seg)
			for _, m := range nodes[i:] {
				if mk := m.find(k.seg); mk != nil {
					nx.add(mk, rank, method)
				}
			}
			out = append(out, nx)
		}
	}
	return out
}

// anyFind reports whether one of nodes has a kid for seg.
func anyFind(nodes []*trie, seg string) bool {
	for _, n := range nodes {
		if n.find(seg) != nil {
			return true
		}
	}
	return false
}

// Memo is a slot for one value derived from a candidate kept on the index
// (NextShared), kept as long as the index: what a caller builds from the
// candidate is built once per trie node and method, not once a keystroke,
// and its size is bounded by the index. Safe for concurrent use.
type Memo struct{ v atomic.Value }

// Load returns the value kept, or nil.
func (m *Memo) Load() any { return m.v.Load() }

// Keep keeps v unless a value is already kept (built concurrently from the
// same candidate), and returns the one kept. Every value kept in a Memo
// must have the same concrete type.
func (m *Memo) Keep(v any) any {
	if m.v.CompareAndSwap(nil, v) {
		return v
	}
	return m.v.Load()
}

// MaxMemos is how many Memos MemoFor keeps on one index.
const MaxMemos = 256

// MemoFor returns a Memo kept on the index for key, a comparable value
// naming what the caller derives (package hints: the items of one schema
// reached from one operation's answer). Unlike the Memos of NextShared,
// whose number the index bounds, these are for values keyed by
// combinations a client could walk without end, so the index keeps the
// MaxMemos used last; a slot dropped is built again when asked for. Nil
// for an index that was not built by this package.
func (idx *Index) MemoFor(key any) *Memo {
	if idx == nil || idx.memos == nil {
		return nil
	}
	if m, ok := idx.memos.Get(key); ok {
		return m
	}
	m := new(Memo)
	if prev, ok, _ := idx.memos.PeekOrAdd(key, m); ok {
		return prev
	}
	return m
}

// upperMethods are methods as Operation.Method spells them.
var upperMethods = func() []string {
	out := make([]string, len(methods))
	for i, m := range methods {
		out[i] = strings.ToUpper(m)
	}
	return out
}()

// shared returns the candidate of kid k for method (of rank rank, one of
// upperMethods), built on first use.
func (k *trie) shared(rank int, method string) *Next {
	if c := k.next[rank].Load(); c != nil {
		return c
	}
	c := newNext(k.seg)
	c.add(k, rank, method)
	c.memo = new(Memo)
	if k.next[rank].CompareAndSwap(nil, c) {
		return c
	}
	return k.next[rank].Load()
}

// candidates builds the candidates after nodes for method; the kids of
// several nodes (a computed segment reaches every kid) are merged by
// segment, in the order the segments first come.
func candidates(nodes []*trie, method string) []Next {
	rank := methodRank(method)
	kids := 0
	for _, n := range nodes {
		kids += len(n.kids)
	}
	out := make([]Next, 0, kids)
	// One array holds every candidate's operations.
	pool := make([]*Operation, 2*MaxNextOps*kids)
	var at map[string]int // the kids of several nodes may share segments
	if len(nodes) > 1 {
		at = map[string]int{}
	}
	for _, n := range nodes {
		for _, k := range n.kids {
			i, seen := len(out), false
			if at != nil {
				i, seen = at[k.seg]
				if !seen {
					i = len(out)
					at[k.seg] = i
				}
			}
			if !seen {
				p := pool[2*MaxNextOps*i:]
				out = append(out, Next{Segment: k.seg, Ops: p[:0:MaxNextOps], Other: p[MaxNextOps : MaxNextOps : 2*MaxNextOps]})
			}
			out[i].add(k, rank, method)
		}
	}
	return out
}

// newNext returns an empty candidate with room for its operations.
func newNext(seg string) *Next {
	pool := make([]*Operation, 2*MaxNextOps)
	return &Next{Segment: seg, Ops: pool[:0:MaxNextOps], Other: pool[MaxNextOps : MaxNextOps : 2*MaxNextOps]}
}

// add merges kid k, whose segment is nx's, into nx.
func (nx *Next) add(k *trie, rank int, method string) {
	for r, c := range k.counts {
		if r == rank {
			nx.NOps += int(c)
		} else if c > 0 {
			nx.NOther += int(c)
			if m := methodName(r); !containsStr(nx.OtherMethods, m) {
				nx.OtherMethods = append(nx.OtherMethods, m)
			}
		}
	}
	for _, o := range k.below {
		if len(nx.Ops) >= MaxNextOps && len(nx.Other) >= MaxNextOps {
			break
		}
		if o.Method == method {
			if len(nx.Ops) < MaxNextOps {
				nx.Ops = append(nx.Ops, o)
			}
		} else if len(nx.Other) < MaxNextOps {
			nx.Other = append(nx.Other, o)
		}
	}
	if nx.Param == nil && IsParam(k.seg) && len(k.below) > 0 {
		o := k.below[0]
		name := k.seg[1 : len(k.seg)-1]
		for j := range o.PathParams {
			if o.PathParams[j].Name == name {
				nx.Param = &o.PathParams[j]
			}
		}
	}
}

func methodName(rank int) string {
	if rank < len(upperMethods) {
		return upperMethods[rank]
	}
	return "OTHER"
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Nearest returns the path template closest to the segments, for a
// message ("did you mean"), or "".
func (a API) Nearest(segs []Seg) string {
	if a.Index == nil {
		return ""
	}
	full := a.full(segs, nil)
	best, bestScore := "", -1
	for _, o := range a.Index.Ops {
		score := 0
		for i := 0; i < len(full) && i < len(o.Segments); i++ {
			t, s := o.Segments[i], full[i]
			switch {
			case IsParam(t) || s.Computed:
				score += 2
			case t == s.Text:
				score += 4
			default:
				score += 3 - min(3, distance(t, s.Text))
			}
		}
		score -= abs(len(full) - len(o.Segments))
		if score > bestScore {
			best, bestScore = o.Path, score
		}
	}
	return best
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// distance is the Levenshtein distance of a and b, capped at 4.
func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		if a == b {
			return 0
		}
		return 4
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], 4)
}

// NearestSegment returns the literal segment at position len(segs)-1 of
// an operation closest to the last of segs, for a quick fix, or "".
func (a API) NearestSegment(segs []Seg) string {
	if a.Index == nil || len(segs) == 0 {
		return ""
	}
	last := segs[len(segs)-1]
	best, bestD := "", 3
	for _, n := range a.Next("", segs[:len(segs)-1]) {
		if IsParam(n.Segment) {
			continue
		}
		if d := distance(n.Segment, last.Text); d < bestD {
			best, bestD = n.Segment, d
		}
	}
	return best
}
