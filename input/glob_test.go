package input

import (
	"errors"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// refFileGlob is config.MatchGlob as restls shipped it before issue 23:
// the semantics FileGlob keeps, by a backtracking search that is
// obviously right and exponential in the number of "**".
func refFileGlob(glob, file string) bool {
	if glob == "" || file == "" {
		return false
	}
	file = filepath.ToSlash(file)
	glob = filepath.ToSlash(glob)
	if !strings.Contains(glob, "/") {
		ok, _ := path.Match(glob, path.Base(file))
		return ok
	}
	g := strings.Split(glob, "/")
	anchored := strings.HasPrefix(glob, "/")
	if len(g) > 0 && g[0] == "" {
		g = g[1:]
	}
	if !anchored && (len(g) == 0 || g[0] != "**") {
		g = append([]string{"**"}, g...)
	}
	return refSegs(g, strings.Split(strings.TrimPrefix(file, "/"), "/"))
}

// refSegs is runtime/restclient's matchSegs before issue 23.
func refSegs(pat, segs []string) bool {
	if len(pat) == 0 {
		return len(segs) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(segs); i++ {
			if refSegs(pat[1:], segs[i:]) {
				return true
			}
		}
		return false
	}
	if len(segs) == 0 {
		return false
	}
	if ok, _ := path.Match(pat[0], segs[0]); !ok {
		return false
	}
	return refSegs(pat[1:], segs[1:])
}

func TestFileGlob(t *testing.T) {
	tests := []struct {
		glob, file string
		want       bool
	}{
		{"*.js", "/w/a/b.js", true},
		{"**/tasks/*.js", "/w/tasks/a.js", true},
		{"**/tasks/*.js", "/w/tasks/sub/a.js", false},
		{"tasks/**", "/w/tasks/sub/a.js", true},
		{"tasks/**", "/w/tasks", true},
		{"/w/tasks/*.js", "/w/tasks/a.js", true},
		{"/w/tasks/*.js", "/x/w/tasks/a.js", false},
		{"*.validator.js", "/w/a.js", false},
		{"*.validator.js", "/w/a.validator.js", true},
		{"a/**/b/**/c.js", "a/x/b/y/z/c.js", true},
		{"a/**/b/**/c.js", "a/b/c.js", true},
		{"a/**/b/**/c.js", "a/c.js", false},
		{"[ab]/?.js", "/w/b/x.js", true},
		{`\*.js`, "/w/*.js", true},
		{`\*.js`, "/w/a.js", false},
		{"**", "/anything/at/all", true},
		{"*.js", "", false},
	}
	for _, tt := range tests {
		g, err := FileGlob(tt.glob)
		if err != nil {
			t.Fatalf("FileGlob(%q): %v", tt.glob, err)
		}
		if got := g.MatchPath(tt.file); got != tt.want {
			t.Errorf("FileGlob(%q).MatchPath(%q) = %v, want %v", tt.glob, tt.file, got, tt.want)
		}
		if ref := refFileGlob(tt.glob, tt.file); ref != tt.want {
			t.Errorf("reference(%q, %q) = %v, want %v", tt.glob, tt.file, ref, tt.want)
		}
	}
}

func TestBadPatterns(t *testing.T) {
	for _, p := range []string{"", "[x", "a/[x/b", `a\`, "[a-]", "**/[]"} {
		_, err := FileGlob(p)
		var be *BadPatternError
		if !errors.As(err, &be) {
			t.Errorf("FileGlob(%q) = %v, want a BadPatternError", p, err)
		}
	}
	if _, err := PathGlob("a/[x/b"); err == nil || err.Error() != `bad pattern "[x"` {
		t.Errorf("PathGlob: %v", err)
	}
	var nilGlob *Glob
	if nilGlob.MatchPath("a") || nilGlob.MatchSegments([]string{"a"}) || nilGlob.String() != "" {
		t.Error("a nil Glob matched")
	}
}

func TestPathGlob(t *testing.T) {
	tests := []struct {
		pattern string
		params  []string
		want    bool
	}{
		{"", nil, true},
		{"", []string{"a"}, false},
		{"*", []string{"42"}, true},
		{"*", []string{"a/b"}, false},
		{`a\/b`, []string{"a/b"}, true},
		{`a\/b`, []string{"a", "b"}, false},
		{"/a/b/", []string{"a", "b"}, true},
		{"**", nil, true},
		{"**/orders", []string{"c", "1", "orders"}, true},
		{"customers/*/orders/**", []string{"customers", "1", "orders"}, true},
		{`\*`, []string{"*"}, true},
		{`\*`, []string{"x"}, false},
	}
	for _, tt := range tests {
		g, err := PathGlob(tt.pattern)
		if err != nil {
			t.Fatalf("PathGlob(%q): %v", tt.pattern, err)
		}
		if got := g.MatchSegments(tt.params); got != tt.want {
			t.Errorf("PathGlob(%q).MatchSegments(%q) = %v, want %v", tt.pattern, tt.params, got, tt.want)
		}
	}
}

// Issue 23's findings 2 and 6: patterns that took the backtracking
// matchers 25 s, 40 s or forever. The work is counted, not timed: at
// most one comparison per pattern segment and path segment.
func TestGlobWorkIsBounded(t *testing.T) {
	kind := strings.Repeat("**/a/", 8) + "b.js"
	file := "/" + strings.Repeat("a/", 49) + "c.js"
	fixture := strings.Repeat("**/a/", 10) + "b"
	params := strings.Split(strings.Repeat("a/", 59)+"a", "/")
	long := strings.Split(strings.Repeat("a/", 999)+"a", "/")

	g, _ := FileGlob(kind)
	if ok, work := g.matchPath(file); ok || work > len(g.segs)*50 {
		t.Errorf("kind glob: match %v after %d comparisons, want none and at most %d", ok, work, len(g.segs)*50)
	}
	p, _ := PathGlob(fixture)
	for _, segs := range [][]string{params, long} {
		if ok, work := p.matchSegments(segs); ok || work > len(p.segs)*len(segs) {
			t.Errorf("fixture glob on %d segments: match %v after %d comparisons", len(segs), ok, work)
		}
	}
	yes, _ := PathGlob(fixture[:len(fixture)-1] + "a")
	if ok, work := yes.matchSegments(long); !ok || work > len(yes.segs)*len(long) {
		t.Errorf("fixture glob that matches: %v after %d comparisons", ok, work)
	}
}

// checkGlob compares a compiled glob with the reference on one input,
// and its work with the bound.
func checkGlob(t *testing.T, flavour byte, pattern, target string) {
	switch flavour % 2 {
	case 0:
		want := refFileGlob(pattern, target)
		g, err := FileGlob(pattern)
		if err != nil {
			if want {
				t.Fatalf("FileGlob(%q): %v, but the reference matches %q", pattern, err, target)
			}
			return
		}
		got, work := g.matchPath(target)
		if got != want {
			t.Fatalf("FileGlob(%q).MatchPath(%q) = %v, reference %v", pattern, target, got, want)
		}
		if n := strings.Count(target, "/") + 1; work > len(g.segs)*n {
			t.Fatalf("FileGlob(%q) on %q: %d comparisons, bound %d", pattern, target, work, len(g.segs)*n)
		}
	case 1:
		// pathParams may hold "/": they are separated by "," here.
		params := strings.Split(target, ",")
		if target == "" {
			params = nil
		}
		want := false
		segs := SplitPathGlob(pattern)
		valid := true
		for _, s := range segs {
			if _, err := path.Match(s, ""); err != nil {
				valid = false
			}
		}
		if valid {
			want = refSegs(segs, params)
		}
		g, err := PathGlob(pattern)
		if (err == nil) != valid {
			t.Fatalf("PathGlob(%q): %v, path.Match says valid %v", pattern, err, valid)
		}
		if err != nil {
			return
		}
		got, work := g.matchSegments(params)
		if got != want {
			t.Fatalf("PathGlob(%q).MatchSegments(%q) = %v, reference %v", pattern, params, got, want)
		}
		if work > len(g.segs)*max(len(params), 1) {
			t.Fatalf("PathGlob(%q) on %d params: %d comparisons", pattern, len(params), work)
		}
	}
}

// FuzzGlob checks both flavours against the backtracking reference on
// small inputs (the reference is exponential: inputs are cut short).
func FuzzGlob(f *testing.F) {
	for _, s := range []struct {
		p, t string
	}{
		{"*.js", "/w/a.js"}, {"**/tasks/**", "/w/tasks/a.js"}, {"a/**/b/**/c", "a/b/x/c"},
		{"/w/*/x", "/w/a/x"}, {"[a-c]?/**", "b1/x"}, {`a\/b/**`, "a/b,c"}, {"", ""},
		{"**/a/**/a/**/b", "a/a/a/a/a/c"}, {"*a*b*", "xaybz"}, {"**/**/x", "x"},
		{"[^a]", "b"}, {`\`, "x"}, {"[", "["}, {"a/**", "a"}, {"**", ""},
	} {
		f.Add(byte(0), s.p, s.t)
		f.Add(byte(1), s.p, s.t)
	}
	f.Fuzz(func(t *testing.T, flavour byte, pattern, target string) {
		if len(pattern) > 40 || len(target) > 40 || strings.Count(pattern, "**") > 4 {
			return
		}
		checkGlob(t, flavour, pattern, target)
	})
}

// FuzzGlobLarge holds large inputs to the bound: many "**", deep
// patterns, 1,000-segment paths. Only the work is checked (the
// reference would not finish).
func FuzzGlobLarge(f *testing.F) {
	f.Add(strings.Repeat("**/a/", 10)+"b", 60, "a")
	f.Add(strings.Repeat("**/a/", 30)+"b", 1000, "a")
	f.Add(strings.Repeat("*a*/", 60)+"**", 1000, "aaaa")
	f.Add(strings.Repeat("**/", 100)+"x", 1000, "x")
	f.Add(strings.Repeat("a/", 500)+"**", 1000, "a")
	f.Add("**/"+strings.Repeat("*a", 30)+"b", 100, strings.Repeat("a", 100))
	f.Fuzz(func(t *testing.T, pattern string, n int, seg string) {
		if n < 0 || n > 1000 || len(pattern) > 1000 || len(seg) > 100 {
			return
		}
		segs := make([]string, n)
		for i := range segs {
			segs[i] = seg
		}
		if g, err := PathGlob(pattern); err == nil {
			if _, work := g.matchSegments(segs); work > len(g.segs)*max(n, 1) {
				t.Fatalf("PathGlob: %d comparisons for %d x %d", work, len(g.segs), n)
			}
		}
		if g, err := FileGlob(pattern); err == nil {
			// The path's own segments, not n: seg may hold "/" itself.
			path := "/" + strings.Join(segs, "/")
			m := strings.Count(path, "/")
			if _, work := g.matchPath(path); work > len(g.segs)*max(m, 1) {
				t.Fatalf("FileGlob: %d comparisons for %d x %d", work, len(g.segs), m)
			}
		}
		if p, ok := ParseIgnorePattern(pattern); ok {
			_ = p.Match(segs, false)
		}
	})
}

func TestIgnorePattern(t *testing.T) {
	tests := []struct {
		line  string
		rel   string
		isDir bool
		want  IgnoreVerdict
	}{
		{"*.log", "a.log", false, Ignored},
		{"*.log", "x/y/a.log", false, Ignored},
		{"build/", "build", true, Ignored},
		{"build/", "build", false, NotMatched},
		{"build/", "x/build", true, Ignored},
		{"/build", "x/build", true, NotMatched},
		{"/build", "build", false, Ignored},
		{"a/b", "a/b", false, Ignored},
		{"a/b", "x/a/b", false, NotMatched},
		{"**/b/c", "b/x/b/c", false, Ignored},
		{"a/**/c", "a/c", false, Ignored},
		{"a/**/c", "a/x/y/c", false, Ignored},
		{"a/**", "a", true, NotMatched},
		{"a/**", "a/x", false, Ignored},
		{"!keep.js", "keep.js", false, Reincluded},
		{`\!keep.js`, "!keep.js", false, Ignored},
		{`\#x`, "#x", false, Ignored},
		{"[!a].js", "b.js", false, Ignored},
		{"[!a].js", "a.js", false, NotMatched},
		{"x.js   ", "x.js", false, Ignored},
		{`x\ `, "x ", false, Ignored},
		{"**", "a/b", false, Ignored},
	}
	for _, tt := range tests {
		p, ok := ParseIgnorePattern(tt.line)
		if !ok {
			t.Fatalf("ParseIgnorePattern(%q): no pattern", tt.line)
		}
		if got := p.Match(strings.Split(tt.rel, "/"), tt.isDir); got != tt.want {
			t.Errorf("%q on %q (dir %v) = %v, want %v", tt.line, tt.rel, tt.isDir, got, tt.want)
		}
	}
	for _, line := range []string{"", "# comment", "   ", "!", "/", "[x"} {
		if _, ok := ParseIgnorePattern(line); ok {
			t.Errorf("ParseIgnorePattern(%q) is a pattern", line)
		}
	}
}
