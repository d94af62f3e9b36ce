package input

import (
	"fmt"
	"math/bits"
	"path"
	"path/filepath"
	"strings"
)

// The one glob matcher. A pattern is compiled once into segments, each a
// "**" (any number of path segments) or a pattern over one segment; a
// path is then matched by simulating the automaton whose states are the
// positions between pattern segments (a set of positions, never a
// backtracking search), reading each path segment once.
//
// Bound: each path segment is tried against each pattern segment at most
// once, and a pattern segment p meets a path segment s in
// O((len(p)+1)*(len(s)+1)) (path.Match: each star-free chunk is tried at
// each position of s once, leftmost match only, no backtracking between
// stars). A whole match is therefore O((len(pattern)+1)*(len(path)+1))
// time and O(pattern segments) memory, whatever the number of "**":
// a 60-segment glob holding 10 "**" against a 1,000-segment path makes
// at most 60,000 segment comparisons, where a backtracking search tries
// every way of splitting the path among the "**" (about 1,000^10).

// Glob is a compiled glob pattern. Its methods are safe for concurrent
// use; a nil *Glob matches nothing.
type Glob struct {
	src  string
	segs []segment
	anys []int // indices of the "**" segments
	// base: a file glob without "/", matched against the path's last
	// element only.
	base bool
}

type segKind uint8

const (
	segMatch   segKind = iota // path.Match
	segLiteral                // no pattern character: equal
	segStar                   // "*": any segment without "/"
	segPrefix                 // "lit*": pat, then no "/"
	segSuffix                 // "*lit": no "/", ending in pat
	segAny                    // "**": any number of segments
)

type segment struct {
	pat  string
	kind segKind
}

// BadPatternError is a glob that does not compile: Part is the segment
// path.Match refuses (a "[" without its "]", a "\" at its end, a bad
// range).
type BadPatternError struct {
	Part string
}

func (e *BadPatternError) Error() string {
	if e.Part == "" {
		return "empty pattern"
	}
	return fmt.Sprintf("bad pattern %q", e.Part)
}

// FileGlob compiles a glob over slash-separated file paths, as the
// scriptKinds setting, --kind-map, --include and --exclude write them:
// "*", "?", "[...]" and "\" escapes within a segment (path.Match), "**"
// for any number of directories. A glob without "/" matches the base
// name, as editors' file associations do; a relative glob may match
// anywhere below the root, an absolute one ("/w/*.js") only from the root.
// Backslashes are separators on Windows (filepath.ToSlash), escapes
// elsewhere.
func FileGlob(glob string) (*Glob, error) {
	if glob == "" {
		return nil, &BadPatternError{}
	}
	slash := filepath.ToSlash(glob)
	if !strings.Contains(slash, "/") {
		// path.Match semantics for the whole name: "**" is "*" here.
		s, err := compileSegment(slash, false)
		if err != nil {
			return nil, err
		}
		return &Glob{src: glob, segs: []segment{s}, base: true}, nil
	}
	parts := strings.Split(slash, "/")
	anchored := parts[0] == ""
	if anchored {
		parts = parts[1:]
	}
	if !anchored && parts[0] != "**" {
		parts = append([]string{"**"}, parts...)
	}
	return compile(glob, parts, nil)
}

// PathGlob compiles a fixture's path pattern (docs/runtime.md, mock
// fixtures): segments split at every "/" no backslash escapes, one
// leading and one trailing "/" ignored, each segment matched with
// path.Match ("\/" is a "/" inside one segment), "**" for any number of
// segments. "" matches only a call without pathParams.
func PathGlob(pattern string) (*Glob, error) {
	return compile(pattern, SplitPathGlob(pattern), nil)
}

// SplitPathGlob splits a fixture's path pattern into its segments, as
// PathGlob does: at every "/" that no backslash escapes, a leading and a
// trailing one ignored.
func SplitPathGlob(p string) []string {
	segs := []string{}
	start := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '/':
			segs = append(segs, p[start:i])
			start = i + 1
		}
	}
	segs = append(segs, p[start:])
	if len(segs) > 0 && segs[0] == "" {
		segs = segs[1:]
	}
	if len(segs) > 0 && segs[len(segs)-1] == "" {
		segs = segs[:len(segs)-1]
	}
	return segs
}

// compile builds a Glob from its segments; rewrite, when set, changes a
// segment's text before it is compiled (gitignore's "[!...]").
func compile(src string, parts []string, rewrite func(string) string) (*Glob, error) {
	g := &Glob{src: src, segs: make([]segment, 0, len(parts))}
	for _, p := range parts {
		if rewrite != nil {
			p = rewrite(p)
		}
		s, err := compileSegment(p, true)
		if err != nil {
			return nil, err
		}
		if s.kind == segAny {
			if n := len(g.segs); n > 0 && g.segs[n-1].kind == segAny {
				continue // "**/**" is "**"
			}
			g.anys = append(g.anys, len(g.segs))
		}
		g.segs = append(g.segs, s)
	}
	return g, nil
}

func compileSegment(p string, doubleStar bool) (segment, error) {
	switch {
	case p == "**" && doubleStar:
		return segment{kind: segAny}, nil
	case p == "*" || p == "**":
		return segment{pat: p, kind: segStar}, nil
	case !strings.ContainsAny(p, `*?[\`):
		return segment{pat: p, kind: segLiteral}, nil
	case p[0] == '*' && !strings.ContainsAny(p[1:], `*?[\`):
		return segment{pat: p[1:], kind: segSuffix}, nil
	case p[len(p)-1] == '*' && !strings.ContainsAny(p[:len(p)-1], `*?[\`):
		return segment{pat: p[:len(p)-1], kind: segPrefix}, nil
	}
	// path.Match checks the whole pattern when the name does not match
	// (and "" matches no pattern that reaches here but a run of stars,
	// handled above): a pattern accepted here never errors later.
	if _, err := path.Match(p, ""); err != nil {
		return segment{}, &BadPatternError{Part: p}
	}
	return segment{pat: p, kind: segMatch}, nil
}

// String returns the pattern as it was written.
func (g *Glob) String() string {
	if g == nil {
		return ""
	}
	return g.src
}

func (s *segment) match(name string) bool {
	switch s.kind {
	case segLiteral:
		return s.pat == name
	case segStar:
		return strings.IndexByte(name, '/') < 0
	case segPrefix:
		return strings.HasPrefix(name, s.pat) && strings.IndexByte(name[len(s.pat):], '/') < 0
	case segSuffix:
		return strings.HasSuffix(name, s.pat) && strings.IndexByte(name, '/') < 0
	case segAny:
		return true
	}
	ok, _ := path.Match(s.pat, name)
	return ok
}

// MatchPath reports whether the slash-separated file path matches g. An
// empty path matches nothing.
func (g *Glob) MatchPath(file string) bool {
	ok, _ := g.matchPath(file)
	return ok
}

// MatchSegments reports whether the path made of segs (a call's
// pathParams, a file's path elements) matches g.
func (g *Glob) MatchSegments(segs []string) bool {
	ok, _ := g.matchSegments(segs)
	return ok
}

// matchPath is MatchPath, also returning its work: the number of segment
// comparisons made (the fuzz targets hold it to the bound).
func (g *Glob) matchPath(file string) (bool, int) {
	if g == nil || file == "" {
		return false, 0
	}
	file = filepath.ToSlash(file)
	if g.base {
		return g.segs[0].match(path.Base(file)), 1
	}
	file = strings.TrimPrefix(file, "/")
	var a, b [2]uint64
	cur, next := g.sets(a[:], b[:])
	work := 0
	for {
		seg, rest, more := strings.Cut(file, "/")
		alive, w := g.step(cur, next, seg)
		work += w
		cur, next = next, cur
		if !alive {
			return false, work
		}
		if g.restMatches(cur) {
			return true, work
		}
		if !more {
			break
		}
		file = rest
	}
	return has(cur, len(g.segs)), work
}

func (g *Glob) matchSegments(segs []string) (bool, int) {
	if g == nil {
		return false, 0
	}
	if g.base {
		return len(segs) > 0 && g.segs[0].match(segs[len(segs)-1]), 1
	}
	var a, b [2]uint64
	cur, next := g.sets(a[:], b[:])
	work := 0
	for _, seg := range segs {
		alive, w := g.step(cur, next, seg)
		work += w
		cur, next = next, cur
		if !alive {
			return false, work
		}
		if g.restMatches(cur) {
			return true, work
		}
	}
	return has(cur, len(g.segs)), work
}

// sets returns the two position sets of a match, in a and b when they
// are large enough, with the start positions in the first.
func (g *Glob) sets(a, b []uint64) (cur, next []uint64) {
	words := (len(g.segs) + 64) / 64
	if words <= len(a) {
		cur, next = a[:words], b[:words]
	} else {
		cur, next = make([]uint64, words), make([]uint64, words)
	}
	cur[0] = 1
	g.closure(cur)
	return cur, next
}

// closure adds to set the position after each "**" it holds ("**"
// matches no segment too); one pass in order handles runs of them.
func (g *Glob) closure(set []uint64) {
	for _, i := range g.anys {
		if has(set, i) {
			set[(i+1)>>6] |= 1 << ((i + 1) & 63)
		}
	}
}

// step reads one path segment: next holds the positions reachable from
// cur through it. It reports whether any is, and the comparisons made.
func (g *Glob) step(cur, next []uint64, seg string) (bool, int) {
	clear(next)
	n := len(g.segs)
	work := 0
	for w, word := range cur {
		for word != 0 {
			i := w<<6 | bits.TrailingZeros64(word)
			word &= word - 1
			if i == n {
				continue
			}
			s := &g.segs[i]
			work++
			switch {
			case s.kind == segAny:
				next[i>>6] |= 1 << (i & 63)
			case s.match(seg):
				next[(i+1)>>6] |= 1 << ((i + 1) & 63)
			}
		}
	}
	g.closure(next)
	for _, w := range next {
		if w != 0 {
			return true, work
		}
	}
	return false, work
}

// restMatches reports whether cur holds a trailing "**", which matches
// whatever rest of the path there is.
func (g *Glob) restMatches(cur []uint64) bool {
	n := len(g.segs)
	return n > 0 && g.segs[n-1].kind == segAny && has(cur, n-1)
}

func has(set []uint64, i int) bool {
	return set[i>>6]&(1<<(i&63)) != 0
}

// IgnorePattern is one line of a .gitignore file (gitignore(5)), matched
// against paths relative to the directory of the file that holds it.
type IgnorePattern struct {
	glob    *Glob
	negate  bool // "!pattern": re-includes what an earlier line ignored
	dirOnly bool // "pattern/": directories only
}

// IgnoreVerdict is what one .gitignore line says of a path.
type IgnoreVerdict int8

const (
	// NotMatched: the line does not speak of the path.
	NotMatched IgnoreVerdict = iota
	// Ignored: the line ignores the path.
	Ignored
	// Reincluded: a "!" line takes the path back.
	Reincluded
)

// ParseIgnorePattern compiles one line of a .gitignore file as git does
// (gitignore(5)): blank lines and "#" comments are no pattern (ok false),
// trailing spaces are dropped unless escaped, "!" negates, a trailing "/"
// matches directories only, a pattern with a "/" elsewhere is anchored to
// the file's directory and one without matches a name at any depth, a
// leading "**/" matches in every directory, a trailing "/**" everything
// inside (not the directory itself), "/**/" zero or more directories, and
// "[!...]" is "[^...]". A line path.Match refuses is no pattern either:
// git ignores what it cannot parse rather than failing the walk.
func ParseIgnorePattern(line string) (IgnorePattern, bool) {
	line = trimTrailingSpaces(line)
	if line == "" || line[0] == '#' {
		return IgnorePattern{}, false
	}
	var p IgnorePattern
	if line[0] == '!' {
		p.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = line[:len(line)-1]
	}
	if line == "" {
		return IgnorePattern{}, false
	}
	var parts []string
	if strings.Contains(line, "/") {
		parts = strings.Split(strings.TrimPrefix(line, "/"), "/")
		if parts[len(parts)-1] == "**" {
			// Everything inside, at least one level down.
			parts = append(parts[:len(parts)-1:len(parts)-1], "*", "**")
		}
	} else {
		// A name at any depth: "**" alone is one name of any spelling.
		if line == "**" {
			line = "*"
		}
		parts = []string{"**", line}
	}
	g, err := compile(line, parts, bangClass)
	if err != nil {
		return IgnorePattern{}, false
	}
	p.glob = g
	return p, true
}

// Match says whether the pattern ignores or re-includes rel, a path's
// elements below the .gitignore's directory, or says nothing of it.
func (p IgnorePattern) Match(rel []string, isDir bool) IgnoreVerdict {
	if (p.dirOnly && !isDir) || len(rel) == 0 || !p.glob.MatchSegments(rel) {
		return NotMatched
	}
	if p.negate {
		return Reincluded
	}
	return Ignored
}

// trimTrailingSpaces drops trailing spaces that no backslash escapes, as
// git's dir.c trim_trailing_spaces does.
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i == len(s) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

// bangClass rewrites git's negated class "[!...]" to path.Match's "[^...]".
func bangClass(seg string) string {
	if !strings.Contains(seg, "[!") {
		return seg
	}
	b := []byte(seg)
	inClass := false
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '\\':
			i++
		case !inClass && b[i] == '[':
			inClass = true
			if i+1 < len(b) && b[i+1] == '!' {
				b[i+1] = '^'
			}
			if i+1 < len(b) && b[i+1] == '^' {
				i++
			}
			// A "]" right after "[" (or "[^") is refused by path.Match
			// anyway: no special case.
		case inClass && b[i] == ']':
			inClass = false
		}
	}
	return string(b)
}

// GlobSyntax says how to write a glob, for messages about one that does
// not compile.
const GlobSyntax = `within a path segment "*", "?" and "[a-z]" ("[^a-z]": not a-z) match, "\" escapes the next character (write a literal "[", "*", "?" or "\" so), and each "[" needs its "]"; "**" alone between slashes matches any number of segments`
