package index

import (
	"fmt"
	"slices"
	"strings"

	"github.com/restls/restls/config"
)

// CodeServiceUnused is the code of the information on a configuration
// entry that no script of a kind reading its file calls (docs/diagnostics.md).
const CodeServiceUnused = "service-unused"

// Unused is one api entry no script of its kinds calls.
type Unused struct {
	Entry config.Entry
	// Message is what the user reads: the id, the kinds asked and what to do.
	Message string
}

// UnusedEntries is the one service-unused rule, for the language server
// (Index.Unused) and restls check --unused: an api entry with an id that
// has no occurrence but its definitions (Occurrences, asked from the
// entry's kinds): no literal call in a script of the scope (called
// answers, given the scope), and no <id>/<suffix> url of the scope
// naming it (it is then part of that service's address). oAuth entries
// and entries without an id are never reported. entries must hold every
// entry of the snapshot: the scope closes over all definitions of an id.
func UnusedEntries(entries []config.Entry, called func(id string, scope []config.Kind) bool) []Unused {
	t := newEntryTable(entries)
	return t.unused(entries, called)
}

// unused judges each of judge (entries of t).
func (t *entryTable) unused(judge []config.Entry, called func(id string, scope []config.Kind) bool) []Unused {
	var out []Unused
	for _, e := range judge {
		if e.OAuth || e.ID == "" || len(e.Kinds) == 0 {
			continue
		}
		o := t.occurrences(e.ID, e.Kinds)
		if slices.ContainsFunc(o.URLRefs, func(r config.Entry) bool { return r.ID != e.ID }) || called(e.ID, o.Kinds) {
			continue
		}
		out = append(out, Unused{Entry: e, Message: unusedMessage(e)})
	}
	return out
}

func unusedMessage(e config.Entry) string {
	kinds := make([]string, len(e.Kinds))
	for i, k := range e.Kinds {
		kinds[i] = string(k)
	}
	return fmt.Sprintf("serviceId %q is not called by any %s script of the project: remove the entry, or call it (a serviceId built at run time is not counted)",
		e.ID, strings.Join(kinds, ", "))
}

// Unused returns the api entries of file that no script of the kinds
// reading it calls; none while the index is truncated (MaxFiles) or a
// walk stopped at its bound (WalkStop): a script left out may call them.
func (ix *Index) Unused(file string) []Unused {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.truncated || ix.walkStop != nil {
		return nil
	}
	judge := make([]config.Entry, 0, len(ix.byFile[file]))
	for _, i := range ix.byFile[file] {
		judge = append(judge, ix.entries[i])
	}
	return ix.entryTable.unused(judge, ix.calledLocked)
}

// calledLocked reports whether a script of kinds calls id with a literal:
// whether Occurrences' calls are not empty, without listing them.
func (ix *Index) calledLocked(id string, kinds []config.Kind) bool {
	for p := range ix.byID[id] {
		if s := ix.scripts[p]; s != nil && containsKind(kinds, s.Kind) {
			return true
		}
	}
	return false
}

func containsKind(kinds []config.Kind, k config.Kind) bool {
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}
