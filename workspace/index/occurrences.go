package index

import (
	"slices"
	"sort"

	"github.com/restls/restls/config"
)

// entryTable is the configuration part of the index: every entry as
// written, and the entries naming each id.
type entryTable struct {
	entries   []config.Entry
	defs      map[string][]int // api serviceId -> indexes into entries
	refs      map[string][]int // serviceId an id/suffix url names -> entries
	oauthDefs map[string][]int
	oauthRefs map[string][]int // oAuth id -> api entries whose authorization names it
	byFile    map[string][]int // file -> its entries
}

func newEntryTable(entries []config.Entry) entryTable {
	t := entryTable{entries: entries,
		defs: map[string][]int{}, refs: map[string][]int{},
		oauthDefs: map[string][]int{}, oauthRefs: map[string][]int{},
		byFile: map[string][]int{}}
	for i, e := range entries {
		t.byFile[e.Defined.File] = append(t.byFile[e.Defined.File], i)
		if e.OAuth {
			t.oauthDefs[e.ID] = append(t.oauthDefs[e.ID], i)
			continue
		}
		t.defs[e.ID] = append(t.defs[e.ID], i)
		if e.RefersTo != "" {
			t.refs[e.RefersTo] = append(t.refs[e.RefersTo], i)
		}
		if e.OAuthRef != "" {
			t.oauthRefs[e.OAuthRef] = append(t.oauthRefs[e.OAuthRef], i)
		}
	}
	return t
}

// scope returns the kinds the occurrences of serviceId id are looked for
// in, asked from kinds (a call's script kind, or the kinds reading an
// entry's file), sorted: closed over the definitions of id, because a
// definition read by one of the kinds is renamed with them, and every
// kind reading it then calls the new id.
func (t *entryTable) scope(id string, kinds []config.Kind) []config.Kind {
	scope := slices.Clone(kinds)
	for grew := true; grew; {
		grew = false
		for _, i := range t.defs[id] {
			e := &t.entries[i]
			if !intersects(e.Kinds, scope) {
				continue
			}
			for _, k := range e.Kinds {
				if !slices.Contains(scope, k) {
					scope = append(scope, k)
					grew = true
				}
			}
		}
	}
	sort.Slice(scope, func(i, j int) bool { return scope[i] < scope[j] })
	return scope
}

// Occurrences are every place a serviceId or an oAuth id is named, within
// a scope of kinds: exactly what references list and what a rename
// edits (Index.Occurrences is the one function that finds them; code
// lens counts and service-unused are read from them too).
type Occurrences struct {
	ID    string
	OAuth bool
	// Kinds is the scope: the kinds asked, closed over the definitions.
	Kinds []config.Kind
	// Definitions are the entries defining the id in sources of the
	// scope, overridden ones too, in reading order.
	Definitions []config.Entry
	// URLRefs are the api entries of the scope whose url is
	// <id>/<suffix>; for an oAuth id, the api entries whose authorization
	// names it.
	URLRefs []config.Entry
	// Calls are the literal calls in scripts of the scope, by script path
	// then offset.
	Calls []Ref
	// Data are the serviceIds written in the fixtures and test files of
	// scripts of the scope (or of no script the index knows), by path
	// then offset: a rename that left them would fail restls test.
	Data []DataRef
}

// Scripts returns how many scripts the calls are in.
func (o *Occurrences) Scripts() int {
	n := 0
	var last *Script
	for _, r := range o.Calls {
		if r.Script != last {
			n++
			last = r.Script
		}
	}
	return n
}

// Occurrences returns where serviceId id (or, with oauth, the oAuth id
// id) is named when asked from kinds: the one answer behind references,
// rename, code lens counts and service-unused.
func (ix *Index) Occurrences(id string, oauth bool, kinds []config.Kind) Occurrences {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.occurrencesLocked(id, oauth, kinds)
}

func (ix *Index) occurrencesLocked(id string, oauth bool, kinds []config.Kind) Occurrences {
	if oauth {
		// An oAuth id is read by every kind whose sources define it; its
		// uses are the api entries naming it, whatever their kind.
		o := Occurrences{ID: id, OAuth: true, Kinds: slices.Clone(kinds)}
		for _, i := range ix.oauthDefs[id] {
			o.Definitions = append(o.Definitions, ix.entries[i])
		}
		for _, i := range ix.oauthRefs[id] {
			o.URLRefs = append(o.URLRefs, ix.entries[i])
		}
		return o
	}
	o := ix.entryTable.occurrences(id, kinds)
	o.Calls = ix.callsLocked(id, o.Kinds)
	o.Data = ix.dataLocked(id, o.Kinds)
	return o
}

// occurrences returns the configuration part of a serviceId's
// Occurrences: the scope, its definitions and its <id>/<suffix> urls.
func (t *entryTable) occurrences(id string, kinds []config.Kind) Occurrences {
	o := Occurrences{ID: id, Kinds: t.scope(id, kinds)}
	for _, i := range t.defs[id] {
		if intersects(t.entries[i].Kinds, o.Kinds) {
			o.Definitions = append(o.Definitions, t.entries[i])
		}
	}
	for _, i := range t.refs[id] {
		if intersects(t.entries[i].Kinds, o.Kinds) {
			o.URLRefs = append(o.URLRefs, t.entries[i])
		}
	}
	return o
}
