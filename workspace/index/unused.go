package index

import (
	"fmt"
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
// (Index.Unused) and restls check --unused: an api entry with an id whose
// kinds' scripts never call it with a literal serviceId (called answers),
// and that no other entry read by one of those kinds names in an
// <id>/<suffix> url (it is then part of that service's address). oAuth
// entries and entries without an id are never reported.
func UnusedEntries(entries []config.Entry, called func(id string, kinds []config.Kind) bool) []Unused {
	referred := map[string][]config.Kind{}
	for _, e := range entries {
		if !e.OAuth && e.RefersTo != "" && e.RefersTo != e.ID {
			referred[e.RefersTo] = append(referred[e.RefersTo], e.Kinds...)
		}
	}
	var out []Unused
	for _, e := range entries {
		if e.OAuth || e.ID == "" || len(e.Kinds) == 0 || intersects(referred[e.ID], e.Kinds) || called(e.ID, e.Kinds) {
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
// reading it calls; none while the index is truncated (MaxFiles): a
// script left out may call them.
func (ix *Index) Unused(file string) []Unused {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.truncated {
		return nil
	}
	entries := make([]config.Entry, 0, len(ix.byFile[file]))
	for _, i := range ix.byFile[file] {
		entries = append(entries, ix.entries[i])
	}
	// The url references may come from another file: ask every entry
	// naming one of these ids.
	for _, e := range entries {
		for _, i := range ix.refs[e.ID] {
			if ix.entries[i].Defined.File != file {
				entries = append(entries, ix.entries[i])
			}
		}
	}
	var out []Unused
	for _, u := range UnusedEntries(entries, ix.calledLocked) {
		if u.Entry.Defined.File == file {
			out = append(out, u)
		}
	}
	return out
}

// calledLocked reports whether a script of kinds calls id with a literal.
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
