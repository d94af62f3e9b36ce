package config

import (
	"strings"

	"github.com/restls/restls/input"
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

// KindGlob maps the files a glob matches (input.FileGlob) to a kind.
type KindGlob struct {
	Glob *input.Glob
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
		if kg.Glob.MatchPath(file) {
			return kg.Kind
		}
	}
	return ScriptService
}
