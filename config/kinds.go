package config

import (
	"path"
	"path/filepath"
	"strings"
)

// The script kind rule: which kind a script is, from its own text and the
// globs the user maps to kinds. The language server (setting scriptKinds)
// and restls check (--kind-map) both decide with KindMap.KindOf.

// kindMarker is the first-line comment that selects a script kind.
const kindMarker = "restls-kind:"

// DetectKind reads a first-line comment "// restls-kind: scriptTask".
func DetectKind(text string) (Kind, bool) {
	line := text
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	line = strings.TrimPrefix(line, "\ufeff")
	line = strings.TrimSpace(line)
	rest, ok := strings.CutPrefix(line, "//")
	if !ok {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	rest, ok = strings.CutPrefix(rest, kindMarker)
	if !ok {
		return "", false
	}
	k, err := ParseKind(strings.TrimSpace(rest))
	if err != nil {
		return "", false
	}
	return k, true
}

// KindGlob maps the files a glob matches (MatchGlob) to a kind.
type KindGlob struct {
	Glob string
	Kind Kind
}

// KindMap is a list of globs and kinds, in the order written: the first
// match wins.
type KindMap []KindGlob

// KindOf decides the kind of the script at file with text: a first-line
// comment "// restls-kind: K" first (it is in the file itself), then the
// first glob of m that matches file, then scriptService.
func (m KindMap) KindOf(file, text string) Kind {
	if k, ok := DetectKind(text); ok {
		return k
	}
	for _, kg := range m {
		if MatchGlob(kg.Glob, file) {
			return kg.Kind
		}
	}
	return ScriptService
}

// MatchGlob matches a slash-separated file path against a glob with "*",
// "?", "[...]" and "**" (any number of directories). A glob without "/"
// matches the base name, as editors' file associations do; a relative
// glob may match anywhere below the root, an absolute one ("/w/*.js")
// only from the root.
func MatchGlob(glob, file string) bool {
	if glob == "" || file == "" {
		return false
	}
	file = filepath.ToSlash(file)
	glob = filepath.ToSlash(glob)
	if !strings.Contains(glob, "/") {
		ok, _ := path.Match(glob, path.Base(file))
		return ok
	}
	return matchSegments(strings.Split(glob, "/"), strings.Split(strings.TrimPrefix(file, "/"), "/"), strings.HasPrefix(glob, "/"))
}

func matchSegments(g, f []string, anchored bool) bool {
	if len(g) > 0 && g[0] == "" {
		g = g[1:]
	}
	if !anchored && (len(g) == 0 || g[0] != "**") {
		g = append([]string{"**"}, g...)
	}
	var rec func(gi, fi int) bool
	rec = func(gi, fi int) bool {
		for gi < len(g) {
			if g[gi] == "**" {
				for k := fi; k <= len(f); k++ {
					if rec(gi+1, k) {
						return true
					}
				}
				return false
			}
			if fi >= len(f) {
				return false
			}
			if ok, _ := path.Match(g[gi], f[fi]); !ok {
				return false
			}
			gi++
			fi++
		}
		return fi == len(f)
	}
	return rec(0, 0)
}
