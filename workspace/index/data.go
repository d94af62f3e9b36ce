package index

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
	"github.com/restls/restls/textpos"
)

// Data files are the fixtures files beside scripts (Options.MockSuffixes:
// orders.mock.yaml of orders.js) and the test files (Options.TestSuffix)
// of restls test: the serviceIds they name are occurrences a rename must
// edit, or the tests fail after it. The index keeps where each serviceId
// is written, not the text.

// maxDataFile bounds a data file the index reads (the test file limit;
// a larger fixtures file is left out).
const maxDataFile = 4 << 20

// DataFile is a fixtures file or a test file and the serviceIds it names.
type DataFile struct {
	Path string // absolute
	Rel  string // relative to the root, slash-separated
	Test bool   // a test file, else a fixtures file
	// Places are the serviceIds written in the file's fixtures and
	// expected calls, in file order.
	Places []Place

	script   string      // test file: its script: key, resolved; "" when none
	kind     config.Kind // test file: its kind: key
	fixtures []string    // test file: the fixtures files it names, resolved
	size     int64
	mtime    time.Time
}

// Place is one serviceId written in a data file: the value of a
// serviceId key of a fixture or of an expected call.
type Place struct {
	ServiceID string
	// Start and End are the byte range of the id's text (inside its
	// quotes); Found is false when the text there is not the id itself
	// (an escape), which a rename then refuses.
	Start, End int
	Found      bool
	Line       int // 1-based
}

// DataRef is one place of a data file: File.Places[Place].
type DataRef struct {
	File  *DataFile
	Place int
}

// At returns the place.
func (r DataRef) At() Place { return r.File.Places[r.Place] }

// dataKind says whether path is a data file the index reads: a test file
// (test) or a fixtures file (not test): one by its name, or one a test
// file names (fixtures: FILE). The caller holds no lock.
func (ix *Index) dataKind(path string) (rel string, test, ok bool) {
	rel, ok = ix.rel(path)
	if !ok {
		return "", false, false
	}
	ix.mu.RLock()
	_, named := ix.named[path]
	ix.mu.RUnlock()
	if named {
		return rel, false, true
	}
	if !ix.dataByName(path) {
		return "", false, false
	}
	s := ix.opts.TestSuffix
	return rel, s != "" && strings.HasSuffix(path, s), true
}

// dataByName reports whether path names a data file by its suffix.
func (ix *Index) dataByName(path string) bool {
	base := filepath.Base(path)
	if s := ix.opts.TestSuffix; s != "" && len(base) > len(s) && strings.HasSuffix(base, s) {
		return true
	}
	for _, s := range ix.opts.MockSuffixes {
		if len(base) > len(s) && strings.HasSuffix(base, s) {
			return true
		}
	}
	return false
}

// readData reads the data file at path; nil when it is not one (gone, too
// large, not YAML the index can read). fi is the file's as found before
// reading it, nil when it is gone.
func (ix *Index) readData(path string) (df *DataFile, fi os.FileInfo) {
	rel, test, ok := ix.dataKind(path)
	if !ok {
		return nil, nil
	}
	return ix.readDataAs(path, rel, test)
}

// readDataAs reads the file at path as a test file (test) or a fixtures
// file.
func (ix *Index) readDataAs(path, rel string, test bool) (*DataFile, os.FileInfo) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil
	}
	if !fi.Mode().IsRegular() {
		return nil, fi
	}
	if fi.Size() > maxDataFile {
		if test {
			return largeTest(path, rel, fi), fi
		}
		return nil, fi
	}
	k := input.Fixtures
	if test {
		k = input.TestFile
	}
	data, err := readFile(path, k)
	if err != nil || len(data) > maxDataFile {
		return nil, fi
	}
	df := parseData(path, rel, test, data)
	df.size, df.mtime = fi.Size(), fi.ModTime()
	return df, fi
}

// maxHead is how much of a test file too large to read (maxDataFile)
// the index reads for its script: line.
const maxHead = 64 << 10

// largeTest is a test file too large to read, held as a malformed one
// is: without places, naming the script its script: line (in its first
// maxHead bytes) names, so the run of that script's tests (the
// designer's) reports it with restls test's message, where the designer
// answered "no test file". nil when its head cannot be read.
func largeTest(path, rel string, fi os.FileInfo) *DataFile {
	head, err := readHead(path, input.TestFile, maxHead)
	if err != nil {
		return nil
	}
	if len(head) == maxHead {
		if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
			head = head[:i+1] // a line cut short names no script
		} else {
			head = nil
		}
	}
	df := &DataFile{Path: path, Rel: rel, Test: true, size: fi.Size(), mtime: fi.ModTime()}
	if raw, ok := scriptLine(head); ok {
		df.script = testScript(path, raw)
	}
	return df
}

// parseData finds the serviceIds of a fixtures or test file's text, and
// the script and fixtures files a test file names (resolved against
// path's directory).
func parseData(path, rel string, test bool, data []byte) *DataFile {
	df := &DataFile{Path: path, Rel: rel, Test: test}
	root, err := input.YAMLNode(data)
	if root != nil && root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if err != nil || root == nil || test && root.Kind != yaml.MappingNode {
		// Held without places: it is watched, and read again when it
		// changes. A test file names its script by its script: line
		// all the same, so the run of that script's tests reports it
		// as restls test does.
		if raw, ok := scriptLine(data); ok && test {
			df.script = testScript(path, raw)
		}
		return df
	}
	text := string(data)
	pos := textpos.NewFile(text)
	place := func(m *yaml.Node) {
		v := mapValue(m, "serviceId")
		if v == nil || v.Kind != yaml.ScalarNode || v.Value == "" {
			return
		}
		df.Places = append(df.Places, placeOf(pos, v))
	}
	items := func(n *yaml.Node) {
		if n != nil && n.Kind == yaml.SequenceNode {
			for _, it := range n.Content {
				if it.Kind == yaml.MappingNode {
					place(it)
				}
			}
		}
	}
	resolve := func(n *yaml.Node) string {
		if n == nil || n.Kind != yaml.ScalarNode || n.Value == "" {
			return ""
		}
		p, _ := input.NamedPath(path, n.Value) // absolute: refused by the run, held as meant
		return p
	}
	if !test {
		// A list of fixtures, or {fixtures: [...]}.
		if root.Kind == yaml.MappingNode {
			root = mapValue(root, "fixtures")
		}
		items(root)
		return df
	}
	if n := mapValue(root, "script"); n != nil && n.Kind == yaml.ScalarNode && n.Value != "" {
		df.script = testScript(path, n.Value)
	}
	if k := mapValue(root, "kind"); k != nil && k.Kind == yaml.ScalarNode {
		df.kind = config.Kind(k.Value)
	}
	group := func(m *yaml.Node) {
		fx := mapValue(m, "fixtures")
		if fx != nil && fx.Kind == yaml.ScalarNode {
			if p := resolve(fx); p != "" && !slices.Contains(df.fixtures, p) {
				df.fixtures = append(df.fixtures, p)
			}
		} else {
			items(fx)
		}
		items(mapValue(m, "calls"))
	}
	group(root)
	if cases := mapValue(root, "cases"); cases != nil && cases.Kind == yaml.SequenceNode {
		for _, c := range cases.Content {
			if c.Kind == yaml.MappingNode {
				group(c)
			}
		}
	}
	slices.SortStableFunc(df.Places, func(a, b Place) int { return a.Start - b.Start })
	return df
}

// testScript is the script a test file at path names by raw, resolved
// by the one rule restls test resolves it by (input.NamedPath: against
// the file's directory). An absolute raw, which restls test refuses, is
// the script it means: that script's tests (the designer's) run the file
// and report the refusal, as restls test does.
func testScript(path, raw string) string {
	p, _ := input.NamedPath(path, raw)
	return p
}

// scriptLine is the value of a malformed test file's first line that
// starts with "script:" (a top-level key), unquoted, without a comment:
// the script the file means to test, read tolerantly where YAML does not
// read. False when no such line names one.
func scriptLine(data []byte) (string, bool) {
	for line := range strings.Lines(string(data)) {
		v, ok := strings.CutPrefix(line, "script:")
		if !ok {
			continue
		}
		v, _, _ = strings.Cut(v, "\r") // a line break to YAML too
		v = strings.TrimSpace(v)
		if v == "" || v[0] == '#' {
			return "", false
		}
		if q := v[:1]; q == `"` || q == "'" {
			if end := strings.Index(v[1:], q); end >= 0 {
				v = v[1 : 1+end]
			}
		} else if i := strings.Index(v, " #"); i >= 0 {
			v = strings.TrimSpace(v[:i])
		}
		return v, v != ""
	}
	return "", false
}

// TestFile is a test file the index holds and the script its script:
// key names.
type TestFile struct {
	File   string // absolute
	Script string // resolved as restls test resolves it; "" when none can be told
}

// Tests returns the test files the index holds (restls test's: every
// file ending in Options.TestSuffix below the root, in no directory
// input.SkipDir leaves out), sorted by path: what the designer runs for
// a script without walking the project per request.
func (ix *Index) Tests() []TestFile {
	ix.mu.RLock()
	out := make([]TestFile, 0, len(ix.data))
	for _, df := range ix.data {
		if df.Test {
			out = append(out, TestFile{File: df.Path, Script: df.script})
		}
	}
	ix.mu.RUnlock()
	slices.SortFunc(out, func(a, b TestFile) int { return strings.Compare(a.File, b.File) })
	return out
}

// mapValue returns the value of key in mapping m, or nil.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// placeOf finds scalar v (a serviceId) in m's text: its line and column
// (characters) from the parser, checked against the bytes there.
func placeOf(m *textpos.Mapper, v *yaml.Node) Place {
	p := Place{ServiceID: v.Value, Line: v.Line}
	at := textpos.RunePos{Line: v.Line, Col: v.Column}
	if v.Line < 1 || v.Line > m.Lines() || v.Column < 1 {
		return p
	}
	o := m.OffsetOfRunes(at)
	if m.RunePos(o) != at {
		return p // past the line's end: the Mapper clamped it
	}
	text, off := m.Text(), int(o)
	switch v.Style {
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		off++ // the quote
	case 0, yaml.FlowStyle:
	default:
		return p // a block scalar: never the id written plainly
	}
	if off+len(v.Value) <= len(text) && text[off:off+len(v.Value)] == v.Value {
		p.Start, p.End, p.Found = off, off+len(v.Value), true
	}
	return p
}

// addDataLocked holds df in place of the file at its path.
func (ix *Index) addDataLocked(df *DataFile) {
	ix.removeDataLocked(df.Path)
	delete(ix.unheld, df.Path)
	ix.data[df.Path] = df
	for _, f := range df.fixtures {
		ix.named[f]++
	}
	for _, pl := range df.Places {
		set := ix.dataByID[pl.ServiceID]
		if set == nil {
			set = map[string]struct{}{}
			ix.dataByID[pl.ServiceID] = set
		}
		set[df.Path] = struct{}{}
	}
}

func (ix *Index) removeDataLocked(path string) bool {
	df := ix.data[path]
	if df == nil {
		return false
	}
	delete(ix.data, path)
	for _, f := range df.fixtures {
		if ix.named[f]--; ix.named[f] <= 0 {
			delete(ix.named, f)
			if !ix.dataByName(f) {
				ix.removeDataLocked(f) // no test names it any more
			}
		}
	}
	for _, pl := range df.Places {
		if set := ix.dataByID[pl.ServiceID]; set != nil {
			delete(set, path)
			if len(set) == 0 {
				delete(ix.dataByID, pl.ServiceID)
			}
		}
	}
	return true
}

// updateData reads the data file at path again, or drops it. Past
// MaxFiles data files, one the index does not hold is not read (the index
// is truncated), as Build decides.
func (ix *Index) updateData(path string) bool {
	ix.mu.Lock()
	if ix.data[path] == nil && len(ix.data) >= ix.opts.MaxFiles {
		ix.truncated = true
		ix.mu.Unlock()
		return false
	}
	ix.mu.Unlock()
	df, fi := ix.readData(path)
	ix.mu.Lock()
	defer ix.mu.Unlock()
	old := ix.data[path]
	switch {
	case df == nil:
		ix.noteUnheldLocked(path, fi, false)
		return ix.removeDataLocked(path)
	case old == nil && len(ix.data) >= ix.opts.MaxFiles:
		ix.truncated = true // filled meanwhile
		return false
	case old != nil && slices.Equal(old.Places, df.Places) && old.script == df.script && old.kind == df.kind && slices.Equal(old.fixtures, df.fixtures):
		old.size, old.mtime = df.size, df.mtime
		return false
	}
	ix.addDataLocked(df)
	ix.readNamedLocked(df)
	return true
}

// readNamedLocked reads the fixtures files test file df names that the
// index does not hold yet. It reads with the lock held: a test file names
// few.
func (ix *Index) readNamedLocked(df *DataFile) {
	for _, f := range df.fixtures {
		if ix.data[f] != nil {
			continue
		}
		rel, ok := ix.rel(f)
		if !ok {
			continue // outside the root: restls test refuses it too
		}
		switch nf, fi := ix.readDataAs(f, rel, false); {
		case nf == nil:
			ix.noteUnheldLocked(f, fi, false)
		case len(ix.data) < ix.opts.MaxFiles:
			ix.addDataLocked(nf)
		}
	}
}

// dataKindsLocked returns the kinds of the scripts a data file is for:
// a test file's kind: key, else its script's kind; a fixtures file's
// script beside it and the scripts of the test files that name it. nil
// when none is known: its places are then in every scope.
func (ix *Index) dataKindsLocked(df *DataFile) []config.Kind {
	var out []config.Kind
	add := func(k config.Kind) {
		if k != "" && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	testKind := func(t *DataFile) {
		if t.kind != "" {
			add(t.kind)
		} else if s := ix.scripts[t.script]; s != nil {
			add(s.Kind)
		}
	}
	if df.Test {
		testKind(df)
		return out
	}
	for _, suf := range ix.opts.MockSuffixes {
		if base, ok := strings.CutSuffix(df.Path, suf); ok {
			if s := ix.scripts[base+".js"]; s != nil { // orders.mock.yaml of orders.js
				add(s.Kind)
			}
		}
	}
	for _, t := range ix.data {
		if t.Test && slices.Contains(t.fixtures, df.Path) {
			testKind(t)
		}
	}
	return out
}

// dataLocked returns the places of id in data files of the scope, by
// path then offset.
func (ix *Index) dataLocked(id string, scope []config.Kind) []DataRef {
	var out []DataRef
	for _, p := range sortedPaths(ix.dataByID[id]) {
		df := ix.data[p]
		if ks := ix.dataKindsLocked(df); ks != nil && !intersects(ks, scope) {
			continue
		}
		for i, pl := range df.Places {
			if pl.ServiceID == id {
				out = append(out, DataRef{df, i})
			}
		}
	}
	return out
}
