package index

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/restls/restls/config"
)

// Edit replaces [Start, End) of a file's text with NewText.
type Edit struct {
	Start, End int
	NewText    string
}

// FileEdits are the edits of one file. Config is set for a configuration
// file (the editor asks before applying those); Script is the script
// edited, nil for a configuration or data file; Data is the fixtures or
// test file edited.
type FileEdits struct {
	Path   string
	Config bool
	Script *Script
	Data   *DataFile
	Edits  []Edit
}

// Plan is a rename: configuration files first (in reading order), then
// scripts by path.
type Plan struct {
	// Kinds are the script kinds the rename covers: those of the sources
	// defining the id, closed over every source a renamed definition is in.
	Kinds []config.Kind
	Files []FileEdits
}

// ErrRefused is the error, wrapped, of a rename that would change what a
// script calls; the message says why and where.
var ErrRefused = errors.New("rename refused")

func refuse(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrRefused}, args...)...)
}

// ValidID says why id cannot be a serviceId written by a rename: it must
// be letters, digits, '-', '_' and '.', at most 200 bytes, so that it
// needs no escape in a script literal, YAML, .properties or XML, and is
// never read as an <id>/<suffix> reference.
func ValidID(id string) error {
	if id == "" {
		return errors.New("a serviceId cannot be empty")
	}
	if len(id) > 200 {
		return fmt.Errorf("a serviceId of %d bytes is too long (at most 200)", len(id))
	}
	for _, r := range id {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' && r != '.' {
			return fmt.Errorf("%q is not a valid serviceId: use letters, digits, '-', '_' and '.' (%q cannot be written without an escape or would read as a reference)", id, r)
		}
	}
	return nil
}

// Rename plans renaming serviceId id to newID for kinds (those of the
// call or entry the rename starts from): every definition of id in the
// sources of those kinds, every <id>/<suffix> url and every literal call
// in their scripts. It refuses (ErrRefused) when newID is not valid, is
// already configured for one of the kinds, when a call of those kinds
// builds its serviceId at run time (it may name id), or when an
// occurrence is written with an escape.
func (ix *Index) Rename(id, newID string, kinds []config.Kind) (*Plan, error) {
	if err := ValidID(newID); err != nil {
		return nil, refuse("%v", err)
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	// The one set of places references list (Occurrences): the kinds
	// close over the definitions, since renaming a definition in
	// application.yml renames it for every kind, whose scripts must follow.
	occ := ix.occurrencesLocked(id, false, kinds)
	scope := occ.Kinds
	if newID == id {
		return &Plan{Kinds: scope}, nil
	}
	for _, i := range ix.defs[newID] {
		if e := &ix.entries[i]; intersects(e.Kinds, scope) {
			return nil, refuse("serviceId %q is already configured at %s for %s scripts, which call %q; choose another id or remove that entry first",
				newID, e.IDAt, kindList(e.Kinds, scope), id)
		}
	}
	// The message names the first dynamic call and counts the rest:
	// where (a textpos.Mapper of the whole script) only for the first.
	var first string
	dyn := 0
	for _, p := range sortedPaths(ix.dynamic) {
		s := ix.scripts[p]
		if !slices.Contains(scope, s.Kind) {
			continue
		}
		for _, c := range s.Calls {
			if c.Dynamic {
				if dyn == 0 {
					first = where(s, c.IDRange.Start)
				}
				dyn++
			}
		}
	}
	if dyn > 0 {
		more := ""
		if dyn > 1 {
			more = fmt.Sprintf(" (and %d more)", dyn-1)
		}
		return nil, refuse("the call at %s%s builds its serviceId at run time and may call %q; write the serviceId as a string literal, or rename by hand",
			first, more, id)
	}

	plan := &Plan{Kinds: scope}
	byFile := map[string]*FileEdits{}
	var order []string
	add := func(path string, cfg bool, s *Script, e Edit) {
		f := byFile[path]
		if f == nil {
			f = &FileEdits{Path: path, Config: cfg, Script: s}
			byFile[path] = f
			order = append(order, path)
		}
		f.Edits = append(f.Edits, e)
	}
	for i := range occ.Definitions {
		e := &occ.Definitions[i]
		if !e.IDSpan.Found {
			return nil, refuse("the serviceId %q at %s is written with an escape or over several lines; write it plainly, then rename", id, e.IDAt)
		}
		add(e.Defined.File, true, nil, Edit{e.IDSpan.Start, e.IDSpan.End, newID})
	}
	for i := range occ.URLRefs {
		e := &occ.URLRefs[i]
		if !e.RefersToSpan.Found {
			return nil, refuse("the url of %q at %s refers to %q but is written with an escape; write it plainly, then rename", e.ID, e.IDAt, id)
		}
		add(e.Defined.File, true, nil, Edit{e.RefersToSpan.Start, e.RefersToSpan.End, newID})
	}
	for _, r := range occ.Calls {
		c := r.Site()
		if r.Script.Text[c.IDRange.Start:c.IDRange.End] != id {
			return nil, refuse("the serviceId at %s is written with an escape; write it plainly, then rename", where(r.Script, c.IDRange.Start))
		}
		add(r.Script.Path, false, r.Script, Edit{c.IDRange.Start, c.IDRange.End, newID})
	}
	for _, r := range occ.Data {
		pl := r.At()
		if !pl.Found {
			return nil, refuse("the serviceId %q at %s:%d is written with an escape or over several lines; write it plainly, then rename", id, r.File.Rel, pl.Line)
		}
		f := byFile[r.File.Path]
		add(r.File.Path, false, nil, Edit{pl.Start, pl.End, newID})
		if f == nil {
			byFile[r.File.Path].Data = r.File
		}
	}
	for _, p := range order {
		f := byFile[p]
		sort.Slice(f.Edits, func(i, j int) bool { return f.Edits[i].Start < f.Edits[j].Start })
		plan.Files = append(plan.Files, *f)
	}
	return plan, nil
}

// kindList names the kinds of ks that are in scope.
func kindList(ks, scope []config.Kind) string {
	var names []string
	for _, k := range ks {
		if slices.Contains(scope, k) {
			names = append(names, string(k))
		}
	}
	return strings.Join(names, " and ")
}
