package config

import (
	"strings"

	"github.com/restls/restls/input"
)

// The script kind rule: which kind a script is, from its own text and the
// globs the user maps to kinds. The language server (setting scriptKinds),
// restls check (--kind-map), restls test and restls run all decide with
// KindMap.Decide, or KindMap.DecideNamed when the user named a kind.

// kindMarker is the first-line comment that selects a script kind.
const kindMarker = "restls-kind:"

// KindDirective is the word of the first-line comment that selects a
// script's kind: "// restls-kind: scriptTask".
const KindDirective = kindMarker

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
	// Explicit: the glob names the kind the user chose for these files
	// (the designer's "Script kind" selector, sent as explicitKinds), so
	// it wins over the script's directive, as a run's named kind does.
	Explicit bool
}

// KindMap is a list of globs and kinds, in the order written: the first
// match wins.
type KindMap []KindGlob

// KindSource says which part of the kind rule decided a script's kind.
type KindSource string

// The parts of the kind rule, in the order KindMap.Decide tries them.
const (
	// KindFromExplicit: the user named the kind (a run's kind, the
	// designer's selector: an explicit glob); it wins over the directive.
	KindFromExplicit KindSource = "explicit"
	// KindFromDirective: the script's first-line "// restls-kind: K".
	KindFromDirective KindSource = "directive"
	// KindFromMap: a glob of the kind map (scriptKinds, --kind-map).
	KindFromMap KindSource = "kindMap"
	// KindFromDefault: neither, so scriptService.
	KindFromDefault KindSource = "default"
)

// KindDecision is a script's kind and why: every surface (run, test,
// check, the language server and, through restls/documentInfo, the
// editors) decides with KindMap.Decide, so they agree.
type KindDecision struct {
	Kind   Kind       `json:"kind"`
	Source KindSource `json:"source"`
	// Glob is the kind map glob that matched, as written; set when Source
	// is KindFromMap, or KindFromExplicit through an explicit glob.
	Glob string `json:"glob,omitempty"`
}

// Decide decides the kind of the script at file with text: the first
// explicit glob of m that matches file (the user chose that kind), then a
// first-line comment "// restls-kind: K" (it is in the file itself), then
// the first other glob of m that matches file, then scriptService.
func (m KindMap) Decide(file, text string) KindDecision {
	for _, kg := range m {
		if kg.Explicit && kg.Glob.MatchPath(file) {
			return KindDecision{Kind: kg.Kind, Source: KindFromExplicit, Glob: kg.Glob.String()}
		}
	}
	if k, ok := DetectKind(text); ok {
		return KindDecision{Kind: k, Source: KindFromDirective}
	}
	for _, kg := range m {
		if !kg.Explicit && kg.Glob.MatchPath(file) {
			return KindDecision{Kind: kg.Kind, Source: KindFromMap, Glob: kg.Glob.String()}
		}
	}
	return KindDecision{Kind: ScriptService, Source: KindFromDefault}
}

// DecideNamed is Decide for a request whose user may have named a kind
// (POST /v1/run's kind, run --kind, a launch's kind): a named kind wins
// over everything, as an explicit glob does; "" leaves it to Decide.
func (m KindMap) DecideNamed(named Kind, file, text string) KindDecision {
	if named != "" {
		return KindDecision{Kind: named, Source: KindFromExplicit}
	}
	return m.Decide(file, text)
}

// Explicit is m with every glob explicit: the kinds the user chose for
// the files they match, winning over a script's directive.
func (m KindMap) Explicit() KindMap {
	out := make(KindMap, len(m))
	for i, kg := range m {
		kg.Explicit = true
		out[i] = kg
	}
	return out
}

// KindOf is the kind Decide decides.
func (m KindMap) KindOf(file, text string) Kind { return m.Decide(file, text).Kind }
