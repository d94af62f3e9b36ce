package index

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/restls/restls/config"
	"github.com/restls/restls/textpos"
)

// intersects reports whether a and b share a kind.
func intersects(a, b []config.Kind) bool {
	for _, k := range a {
		if slices.Contains(b, k) {
			return true
		}
	}
	return false
}

func (ix *Index) callsLocked(id string, kinds []config.Kind) []Ref {
	var out []Ref
	for _, p := range sortedPaths(ix.byID[id]) {
		s := ix.scripts[p]
		if !slices.Contains(kinds, s.Kind) {
			continue
		}
		for i, c := range s.Calls {
			if !c.Dynamic && c.ServiceID == id && c.IDRange.End > 0 {
				out = append(out, Ref{s, i})
			}
		}
	}
	return out
}

// Callers returns how many scripts call serviceId id, asked from kinds
// (an entry's): those of its Occurrences, what the code lens counts.
func (ix *Index) Callers(id string, kinds []config.Kind) int {
	o := ix.Occurrences(id, false, kinds)
	return o.Scripts()
}

// EntriesIn returns the entries written in file, in order.
func (ix *Index) EntriesIn(file string) []config.Entry {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out := make([]config.Entry, 0, len(ix.byFile[file]))
	for _, i := range ix.byFile[file] {
		out = append(out, ix.entries[i])
	}
	return out
}

// EntryFiles returns the configuration files that hold entries.
func (ix *Index) EntryFiles() []string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out := make([]string, 0, len(ix.byFile))
	for f := range ix.byFile {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// Symbol is a workspace symbol: one definition of a serviceId or an oAuth
// id.
type Symbol struct {
	Entry config.Entry
}

// Symbols returns the definitions whose id holds query (ignoring case),
// at most limit of them, ordered by id then reading order; and whether
// more matched.
func (ix *Index) Symbols(query string, limit int) ([]Symbol, bool) {
	q := strings.ToLower(query)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var out []Symbol
	more := false
	for _, e := range ix.entries {
		if e.ID == "" || q != "" && !containsFold(e.ID, q) {
			continue
		}
		if len(out) >= limit {
			more = true
			break
		}
		out = append(out, Symbol{e})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Entry.ID < out[j].Entry.ID })
	return out, more
}

// containsFold reports whether s holds the lower-case q, ignoring ASCII
// case without allocating.
func containsFold(s, q string) bool {
	if len(q) > len(s) {
		return false
	}
	for i := 0; i+len(q) <= len(s); i++ {
		j := 0
		for ; j < len(q); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != q[j] {
				break
			}
		}
		if j == len(q) {
			return true
		}
	}
	return false
}

// KindsOf returns the kinds of the sources that define id (api entries).
func (ix *Index) KindsOf(id string) []config.Kind {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var out []config.Kind
	for _, i := range ix.defs[id] {
		for _, k := range ix.entries[i].Kinds {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// where names a script position for a message: rel:line:col, the column
// in characters as restls check prints it (it counted bytes).
func where(s *Script, off int) string {
	p := textpos.NewFile(s.Text).RunePos(textpos.ByteOffset(off))
	return fmt.Sprintf("%s:%d:%d", s.Rel, p.Line, p.Col)
}
