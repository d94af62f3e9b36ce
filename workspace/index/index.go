package index

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/restls/restls/config"
	"github.com/restls/restls/hints"
	"github.com/restls/restls/input"
)

// Defaults of Options.
const (
	DefaultGlob        = "**/*.js"
	DefaultMaxFiles    = 50_000
	DefaultMaxFileSize = 1 << 20
	DefaultMaxBytes    = 128 << 20
)

// Options say which scripts the index holds.
type Options struct {
	// Root is the project root; scripts are looked for below it.
	Root string
	// Glob selects the scripts (input.FileGlob, relative to Root);
	// DefaultGlob when empty. The directories input.SkipDir leaves out
	// (hidden ones, node_modules) are never entered.
	Glob string
	// Kinds decides each script's kind (config.KindMap.Decide).
	Kinds config.KindMap
	// MaxFiles and MaxFileSize bound what is read: past MaxFiles scripts
	// the index is Truncated; a larger script is left out.
	MaxFiles    int
	MaxFileSize int64
	// MaxBytes bounds what the index holds in all: the scripts' text
	// and call sites, a file read through several links counting once;
	// the scripts past it are left out (LeftOut says which).
	// DefaultMaxBytes when 0.
	MaxBytes int64
	// MockSuffixes and TestSuffix name the data files (data.go) whose
	// serviceIds are occurrences too: the fixtures file beside a script
	// (orders.mock.yaml) and restls test's test files. None when empty.
	MockSuffixes []string
	TestSuffix   string
	// Workers read and parse during Build; GOMAXPROCS when 0. The
	// language server leaves a core free for the first completion.
	Workers int
}

// Script is one script of the project.
type Script struct {
	Path  string      // absolute
	Rel   string      // relative to the root, slash-separated
	Kind  config.Kind // as config.KindMap.Decide decides it
	Text  string
	Calls []hints.CallSite

	// size and mtime are the file's when it was read (Poll compares
	// them); zero for an editor's buffer.
	size  int64
	mtime time.Time
	// text is what Text and Calls are read from, shared by every path
	// that is a link to the same file.
	text *fileText
}

// fileText is one file's text as read, or an editor's buffer, and its call
// sites: read and parsed once however many paths lead to it.
type fileText struct {
	text  string
	calls []hints.CallSite
	fi    os.FileInfo // the file's, nil for a buffer
	refs  int         // scripts holding it
}

// cost is what holding t charges to MaxBytes: its text and its call sites.
func (t *fileText) cost() int64 {
	return int64(len(t.text)) + int64(len(t.calls))*int64(unsafe.Sizeof(hints.CallSite{}))
}

// FromDisk reports whether the script's text was read from its file (not
// an editor's buffer): its text may then start with a byte order mark
// the editor does not show.
func (s *Script) FromDisk() bool { return !s.mtime.IsZero() }

// Ref is one call site: Script.Calls[Call].
type Ref struct {
	Script *Script
	Call   int
}

// Site returns the call site.
func (r Ref) Site() hints.CallSite { return r.Script.Calls[r.Call] }

// Index is the project index. It is safe for concurrent use: queries
// read under a shared lock, Build, Update and SetConfig write under an
// exclusive one, so a query sees one state.
type Index struct {
	opts Options
	glob *input.Glob

	mu        sync.RWMutex
	scripts   map[string]*Script             // by Path
	byID      map[string]map[string]struct{} // serviceId -> paths of scripts with a literal call of it
	dynamic   map[string]struct{}            // paths of scripts with a call whose id is built at run time
	truncated bool
	// texts are the texts read from files, by size, to find a file's
	// text again through another link (os.SameFile); bytes is the size
	// of every text held, each once; leftOut the scripts MaxBytes left out.
	texts   map[int64][]*fileText
	bytes   int64
	leftOut map[string]struct{}
	// walkStop is why a walk of the root (Build, Poll, Update) stopped
	// at its bound (input.WalkBound), the first time one did since the
	// last Build; nil when none did. The index keeps what it has.
	walkStop *input.WalkLimitError
	// data are the fixtures and test files, by path; dataByID the paths
	// of those naming each serviceId.
	data     map[string]*DataFile
	dataByID map[string]map[string]struct{}
	named    map[string]int // fixtures files test files name -> how many
	// unheld are the files the index read and does not hold (not text,
	// past MaxBytes by their call sites, not YAML it can read), and the
	// scripts MaxBytes left out by their size: what Poll found of each,
	// so that it reads one again only when it changes (a file past
	// MaxFiles is not read at all while the index is full).
	unheld map[string]stamp

	entryTable // the configuration part
}

// New returns an empty index for opts; Build fills it.
func New(opts Options) (*Index, error) {
	if opts.Glob == "" {
		opts.Glob = DefaultGlob
	}
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = DefaultMaxFiles
	}
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Root != "" {
		opts.Root = filepath.Clean(opts.Root)
	}
	g, err := input.FileGlob(opts.Glob)
	if err != nil {
		return nil, err
	}
	ix := &Index{opts: opts, glob: g}
	ix.resetScripts()
	ix.setEntries(nil)
	return ix, nil
}

func (ix *Index) resetScripts() {
	ix.scripts = map[string]*Script{}
	ix.byID = map[string]map[string]struct{}{}
	ix.dynamic = map[string]struct{}{}
	ix.truncated = false
	ix.texts = map[int64][]*fileText{}
	ix.bytes = 0
	ix.leftOut = map[string]struct{}{}
	ix.walkStop = nil
	ix.data = map[string]*DataFile{}
	ix.dataByID = map[string]map[string]struct{}{}
	ix.named = map[string]int{}
	ix.unheld = map[string]stamp{}
}

// stamp is what the index keeps of a file it does not hold: its size and
// modification time when it was looked at, and whether it was left out
// by MaxBytes for its size alone (budget: room for it is a reason to
// read it again).
type stamp struct {
	size   int64
	mtime  time.Time
	budget bool
}

// is reports whether fi is the file as it was stamped.
func (st stamp) is(fi os.FileInfo) bool {
	return st.size == fi.Size() && st.mtime.Equal(fi.ModTime())
}

// noteUnheldLocked keeps the stamp of the file at path, which the index
// looked at (fi) and does not hold; fi nil (gone) forgets it.
func (ix *Index) noteUnheldLocked(path string, fi os.FileInfo, budget bool) {
	if fi == nil {
		delete(ix.unheld, path)
		return
	}
	ix.unheld[path] = stamp{size: fi.Size(), mtime: fi.ModTime(), budget: budget}
}

// Root returns the project root.
func (ix *Index) Root() string { return ix.opts.Root }

// rel returns path relative to the root, slash-separated, and whether it
// is below the root and in no skipped directory.
func (ix *Index) rel(path string) (string, bool) {
	if ix.opts.Root == "" {
		return "", false
	}
	r, err := filepath.Rel(ix.opts.Root, path)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", false
	}
	r = filepath.ToSlash(r)
	parts := strings.Split(r, "/")
	for _, p := range parts[:len(parts)-1] {
		if input.SkipDir(p) {
			return "", false
		}
	}
	return r, true
}

// wants reports whether path is a script the index holds when it exists.
func (ix *Index) wants(path string) (string, bool) {
	rel, ok := ix.rel(path)
	return rel, ok && ix.glob.MatchPath(rel)
}

// indexed reports whether path is a script or a data file the index
// holds when it exists.
func (ix *Index) indexed(path string) bool {
	if _, ok := ix.wants(path); ok {
		return true
	}
	_, _, ok := ix.dataKind(path)
	return ok
}

// readFile and readHead read every file the index reads (input's; a
// test counts the reads of a poll).
var readFile, readHead = input.ReadFile, input.ReadHead

// The bounds of the index's walks (input's, lowered by tests).
var maxWalkEntries, maxWalkDepth = input.MaxWalkEntries, input.MaxWalkDepth

// walkBound returns the bound of one walk of root.
func walkBound(root string) *input.WalkBound {
	b := input.NewWalkBound()
	b.MaxEntries, b.MaxDepth = maxWalkEntries, maxWalkDepth
	b.Root(root)
	return b
}

// visit counts the entry p of a walk of the root: a skipped directory
// is skipped (SkipDir); past the walk's bound the walk stops (SkipAll)
// and *stop says why; any other directory or file is looked at (nil).
func visit(b *input.WalkBound, root, p string, d fs.DirEntry, stop **input.WalkLimitError) error {
	if d.IsDir() && p != root && input.SkipDir(d.Name()) {
		return filepath.SkipDir
	}
	if err := b.Visit(p, d.IsDir()); err != nil {
		*stop = err.(*input.WalkLimitError)
		return filepath.SkipAll
	}
	return nil
}

// noteWalkStop keeps the first reason a walk stopped at its bound.
func (ix *Index) noteWalkStop(stop *input.WalkLimitError) {
	if stop == nil {
		return
	}
	ix.mu.Lock()
	if ix.walkStop == nil {
		ix.walkStop = stop
	}
	ix.mu.Unlock()
}

// WalkStop returns why a walk of the root (Build, Poll, Update) stopped
// at input's walk bounds since the last Build (the index keeps what it
// found before); nil when none did.
func (ix *Index) WalkStop() *input.WalkLimitError {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.walkStop
}

// Build reads every script under the root, replacing what the index
// held. Reading and parsing run on every core; ctx stops it early (the
// index then holds what was read). The walk stops at input's bounds
// (WalkStop says so): the index then holds what it found before.
func (ix *Index) Build(ctx context.Context) error {
	var paths, dataPaths []string
	truncated := false
	var stop *input.WalkLimitError
	if ix.opts.Root != "" {
		bound := walkBound(ix.opts.Root)
		err := filepath.WalkDir(ix.opts.Root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == ix.opts.Root {
					return err
				}
				return nil // an unreadable directory is skipped
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err := visit(bound, ix.opts.Root, p, d, &stop); err != nil || d.IsDir() {
				return err
			}
			if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			if _, _, ok := ix.dataKind(p); ok {
				if len(dataPaths) < ix.opts.MaxFiles {
					dataPaths = append(dataPaths, p)
				} else {
					truncated = true
				}
				return nil
			}
			if _, ok := ix.wants(p); !ok {
				return nil
			}
			if len(paths) >= ix.opts.MaxFiles {
				// Truncated, but the walk goes on (bounded by walkBound)
				// for the test files: restls test runs those past the
				// scripts' cap too, and the designer finds them here.
				truncated = true
				return nil
			}
			paths = append(paths, p)
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	// One read per file, however many links lead to it: the paths are
	// grouped by the file they name, and the budget is charged per file.
	type file struct {
		fi    os.FileInfo
		paths []string
		text  *fileText
	}
	var files []*file
	bySize := map[int64][]*file{}
	var leftOut []string
	var leftInfo []os.FileInfo
	var total int64
	for _, p := range paths {
		if ctx.Err() != nil {
			break
		}
		fi, ok := ix.stat(p)
		if !ok {
			continue
		}
		var f *file
		for _, g := range bySize[fi.Size()] {
			if os.SameFile(g.fi, fi) {
				f = g
				break
			}
		}
		if f == nil {
			if total+fi.Size() > ix.opts.MaxBytes {
				leftOut = append(leftOut, p)
				leftInfo = append(leftInfo, fi)
				continue
			}
			total += fi.Size()
			f = &file{fi: fi}
			files = append(files, f)
			bySize[fi.Size()] = append(bySize[fi.Size()], f)
		}
		f.paths = append(f.paths, p)
	}
	var wg sync.WaitGroup
	next := make(chan *file)
	workers := ix.opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	for range workers {
		wg.Go(func() {
			for f := range next {
				f.text = ix.readText(f.paths[0], f.fi)
			}
		})
	}
	datas := make([]*DataFile, len(dataPaths))
	dataInfo := make([]os.FileInfo, len(dataPaths))
	nextData := make(chan int)
	var dwg sync.WaitGroup
	for range workers {
		dwg.Go(func() {
			for i := range nextData {
				datas[i], dataInfo[i] = ix.readData(dataPaths[i])
			}
		})
	}
	for _, f := range files {
		if ctx.Err() != nil {
			break
		}
		next <- f
	}
	close(next)
	for i := range dataPaths {
		if ctx.Err() != nil {
			break
		}
		nextData <- i
	}
	close(nextData)
	wg.Wait()
	dwg.Wait()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.resetScripts()
	ix.truncated = truncated
	ix.walkStop = stop
	for i, p := range leftOut {
		ix.leftOut[p] = struct{}{}
		ix.noteUnheldLocked(p, leftInfo[i], true)
	}
	for i, df := range datas {
		if df != nil {
			ix.addDataLocked(df)
		} else {
			ix.noteUnheldLocked(dataPaths[i], dataInfo[i], false) // nil (not read): nothing kept
		}
	}
	for _, df := range datas {
		if df != nil && df.Test {
			ix.readNamedLocked(df)
		}
	}
	for _, f := range files {
		if f.text == nil {
			if ctx.Err() == nil { // read, and not text
				for _, p := range f.paths {
					ix.noteUnheldLocked(p, f.fi, false)
				}
			}
			continue
		}
		if ix.bytes+f.text.cost() > ix.opts.MaxBytes {
			// Its call sites took it past the budget its size fitted in.
			for _, p := range f.paths {
				ix.leftOut[p] = struct{}{}
				ix.noteUnheldLocked(p, f.fi, false)
			}
			continue
		}
		for _, p := range f.paths {
			if s := ix.script(p, f.text); s != nil {
				ix.addLocked(s)
			}
		}
	}
	return ctx.Err()
}

// stat returns the file at path when it is a script the index holds: a
// regular file (through any link) of at most MaxFileSize bytes.
func (ix *Index) stat(path string) (os.FileInfo, bool) {
	if _, ok := ix.wants(path); !ok {
		return nil, false
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > ix.opts.MaxFileSize {
		return nil, false
	}
	return fi, true
}

// readText reads and parses the file fi found at path; nil when it is not
// text or grew past MaxFileSize.
func (ix *Index) readText(path string, fi os.FileInfo) *fileText {
	data, err := readFile(path, input.Script)
	if err != nil || int64(len(data)) > ix.opts.MaxFileSize {
		return nil
	}
	t := string(data)
	return &fileText{text: t, calls: hints.CallSites(hints.NewDocument(t)), fi: fi}
}

// script is the script at path with text t; nil when path is not one the
// index holds.
func (ix *Index) script(path string, t *fileText) *Script {
	rel, ok := ix.wants(path)
	if !ok {
		return nil
	}
	s := &Script{Path: path, Rel: rel, Kind: ix.opts.Kinds.KindOf(filepath.ToSlash(path), t.text), Text: t.text, Calls: t.calls, text: t}
	if t.fi != nil {
		s.size, s.mtime = t.fi.Size(), t.fi.ModTime()
	}
	return s
}

// read reads and parses the script fi found at path, reusing the text of
// a file already held when path is another link to it; nil when it is
// not text. The caller holds no lock.
func (ix *Index) read(path string, fi os.FileInfo) *Script {
	ix.mu.RLock()
	t := ix.heldLocked(fi)
	ix.mu.RUnlock()
	if t == nil {
		if t = ix.readText(path, fi); t == nil {
			return nil
		}
	}
	return ix.script(path, t)
}

// admit reports whether the index has room for the script at path (fi),
// decided before reading it as Build decides: one it holds has; past
// MaxFiles scripts no other has (the index is truncated), nor past
// MaxBytes by its size (left out), unless it is a link to a file held.
func (ix *Index) admit(path string, fi os.FileInfo) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	switch {
	case ix.scripts[path] != nil:
		return true
	case len(ix.scripts) >= ix.opts.MaxFiles:
		ix.truncated = true
		return false
	case ix.heldLocked(fi) == nil && ix.bytes+fi.Size() > ix.opts.MaxBytes:
		ix.leftOut[path] = struct{}{}
		ix.noteUnheldLocked(path, fi, true)
		return false
	}
	return true
}

// heldLocked returns the text held of the file fi describes, unchanged
// since it was read, or nil.
func (ix *Index) heldLocked(fi os.FileInfo) *fileText {
	for _, t := range ix.texts[fi.Size()] {
		if os.SameFile(t.fi, fi) && t.fi.ModTime().Equal(fi.ModTime()) {
			return t
		}
	}
	return nil
}

func (ix *Index) addLocked(s *Script) {
	ix.scripts[s.Path] = s
	delete(ix.leftOut, s.Path)
	delete(ix.unheld, s.Path)
	if t := s.text; t != nil {
		if t.refs == 0 {
			ix.bytes += t.cost()
			if t.fi != nil {
				ix.texts[t.fi.Size()] = append(ix.texts[t.fi.Size()], t)
			}
		}
		t.refs++
	}
	for _, c := range s.Calls {
		switch {
		case c.Dynamic:
			ix.dynamic[s.Path] = struct{}{}
		case c.IDRange != (hints.Range{}) || c.ServiceID != "":
			set := ix.byID[c.ServiceID]
			if set == nil {
				set = map[string]struct{}{}
				ix.byID[c.ServiceID] = set
			}
			set[s.Path] = struct{}{}
		}
	}
}

func (ix *Index) removeLocked(path string) {
	s := ix.scripts[path]
	if s == nil {
		return
	}
	delete(ix.scripts, path)
	delete(ix.dynamic, path)
	if t := s.text; t != nil {
		if t.refs--; t.refs == 0 {
			ix.bytes -= t.cost()
			if t.fi != nil {
				list := ix.texts[t.fi.Size()]
				list = slices.DeleteFunc(list, func(x *fileText) bool { return x == t })
				if len(list) == 0 {
					delete(ix.texts, t.fi.Size())
				} else {
					ix.texts[t.fi.Size()] = list
				}
			}
		}
	}
	for _, c := range s.Calls {
		if set := ix.byID[c.ServiceID]; set != nil {
			delete(set, path)
			if len(set) == 0 {
				delete(ix.byID, c.ServiceID)
			}
		}
	}
}

// Update brings the index current for path, which was created, changed
// or deleted: a file is read once; a deleted directory drops every script
// below it, a created one is walked (within input's walk bounds, depth
// counted from the root: past them WalkStop says so). It reports whether
// the index changed.
func (ix *Index) Update(path string) bool {
	path = filepath.Clean(path)
	fi, err := os.Stat(path)
	if err == nil && fi.IsDir() {
		changed := false
		if _, ok := ix.rel(filepath.Join(path, "x")); !ok {
			return false
		}
		var stop *input.WalkLimitError
		bound := walkBound(ix.opts.Root) // path is below it: depth from the root
		_ = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if err := visit(bound, path, p, d, &stop); err != nil || d.IsDir() {
				return err
			}
			if ix.indexed(p) && ix.updateFile(p) {
				changed = true
			}
			return nil
		})
		ix.noteWalkStop(stop)
		return ix.dropGone(path) || changed
	}
	// Not a directory (any more): whatever was indexed below it is gone.
	changed := ix.updateFile(path)
	return ix.dropGone(path) || changed
}

// updateFile reads one file and replaces or drops its script (or data
// file). A file the index has no room for is not read (admit).
func (ix *Index) updateFile(path string) bool {
	if _, _, ok := ix.dataKind(path); ok {
		return ix.updateData(path)
	}
	fi, ok := ix.stat(path)
	if ok && !ix.admit(path, fi) {
		return false
	}
	var s *Script
	if ok {
		s = ix.read(path, fi) // outside the lock: queries go on meanwhile
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	old := ix.scripts[path]
	switch {
	case s == nil && old == nil:
		delete(ix.leftOut, path)
		ix.noteUnheldLocked(path, fi, false)
		return false
	case s == nil:
		ix.removeLocked(path)
		ix.noteUnheldLocked(path, fi, false)
		return true
	case old != nil && old.Text == s.Text && old.Kind == s.Kind:
		if old.text != s.text { // the same text, read again: hold the current file's
			ix.removeLocked(path)
			ix.addLocked(s)
		}
		return false
	case old == nil && len(ix.scripts) >= ix.opts.MaxFiles:
		ix.truncated = true // filled meanwhile
		return false
	}
	if s.text.refs == 0 {
		freed := int64(0)
		if old != nil && old.text != nil && old.text.refs == 1 {
			freed = old.text.cost()
		}
		if ix.bytes-freed+s.text.cost() > ix.opts.MaxBytes {
			changed := old != nil
			ix.removeLocked(path)
			ix.leftOut[path] = struct{}{}
			ix.noteUnheldLocked(path, fi, false)
			return changed
		}
	}
	ix.removeLocked(path)
	ix.addLocked(s)
	return true
}

// dropGone drops the scripts below dir whose file is gone.
func (ix *Index) dropGone(dir string) bool {
	prefix := dir + string(filepath.Separator)
	ix.mu.RLock()
	var below []string
	for p := range ix.scripts {
		if strings.HasPrefix(p, prefix) {
			below = append(below, p)
		}
	}
	for p := range ix.data {
		if strings.HasPrefix(p, prefix) {
			below = append(below, p)
		}
	}
	for p := range ix.unheld {
		if strings.HasPrefix(p, prefix) {
			below = append(below, p)
		}
	}
	ix.mu.RUnlock()
	changed := false
	for _, p := range below {
		if _, err := os.Lstat(p); err != nil {
			ix.mu.Lock()
			if ix.scripts[p] != nil {
				ix.removeLocked(p)
				changed = true
			}
			if ix.removeDataLocked(p) {
				changed = true
			}
			delete(ix.unheld, p)
			ix.mu.Unlock()
		}
	}
	return changed
}

// SetDocument replaces a script's text with an editor's unsaved buffer,
// so that the open documents' calls are current. A path the index does
// not hold (outside the root, not matched) is ignored.
func (ix *Index) SetDocument(path, text string) bool {
	rel, ok := ix.wants(path)
	if !ok || int64(len(text)) > ix.opts.MaxFileSize {
		return false
	}
	kind := ix.opts.Kinds.KindOf(filepath.ToSlash(path), text)
	ix.mu.RLock()
	old := ix.scripts[path]
	same := old != nil && old.Text == text && old.Kind == kind
	ix.mu.RUnlock()
	if same {
		return false // asked at every request: parse only a changed text
	}
	t := &fileText{text: text, calls: hints.CallSites(hints.NewDocument(text))}
	s := &Script{Path: path, Rel: rel, Kind: kind, Text: text, Calls: t.calls, text: t}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if old := ix.scripts[path]; old != nil {
		if old.Text == text && old.Kind == s.Kind {
			return false
		}
		ix.removeLocked(path)
	} else if len(ix.scripts) >= ix.opts.MaxFiles {
		return false
	}
	ix.addLocked(s)
	return true
}

// Script returns the script at path, or nil.
func (ix *Index) Script(path string) *Script {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.scripts[filepath.Clean(path)]
}

// LeftOut returns how many scripts MaxBytes left out, and the first of
// them (relative to the root, sorted), at most limit: the index holds
// no more script text than MaxBytes, a file read through several links
// counting once.
func (ix *Index) LeftOut(limit int) (int, []string) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	paths := sortedPaths(ix.leftOut)
	var out []string
	for _, p := range paths[:min(limit, len(paths))] {
		rel, _ := ix.rel(p)
		out = append(out, rel)
	}
	return len(paths), out
}

// Bytes returns what the index holds, charged to MaxBytes: the
// scripts' text and call sites, each file once.
func (ix *Index) Bytes() int64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.bytes
}

// Len returns the number of scripts held, and whether MaxFiles cut the
// walk short.
func (ix *Index) Len() (scripts int, truncated bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.scripts), ix.truncated
}

// SetConfig replaces the configuration part with snap's entries.
func (ix *Index) SetConfig(snap *config.Snapshot) {
	entries := snap.Entries()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.setEntries(entries)
}

func (ix *Index) setEntries(entries []config.Entry) { ix.entryTable = newEntryTable(entries) }

// sortedPaths returns the keys of set, sorted.
func sortedPaths(set map[string]struct{}) []string {
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Poll brings the index current with the disk when nobody reports
// changes (a client that does not watch files): one walk that stats every
// script, reading only those whose size or modification time changed, and
// dropping those gone. It reports whether the index changed. A file the
// index does not hold is read only when the index has room for it
// (MaxFiles, MaxBytes by its size) and its size or modification time
// differ from when the index last read it (unheld): a capped index is
// polled at the cost of an uncapped one. Scripts that
// hold an editor's buffer (SetDocument) are left to their editor. A walk
// stopped at input's walk bounds (WalkStop) or after twice MaxFiles
// scripts drops nothing: what it did not reach may still be there.
func (ix *Index) Poll() bool {
	if ix.opts.Root == "" {
		return false
	}
	seen := map[string]struct{}{}
	changed := false
	var stop *input.WalkLimitError
	capped := false  // stopped after twice MaxFiles scripts
	pastCap := false // met a file the index has no room for
	bound := walkBound(ix.opts.Root)
	_ = filepath.WalkDir(ix.opts.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if err := visit(bound, ix.opts.Root, p, d, &stop); err != nil || d.IsDir() {
			return err
		}
		if !ix.indexed(p) {
			return nil
		}
		if len(seen) >= 2*ix.opts.MaxFiles {
			capped = true
			return filepath.SkipAll
		}
		seen[p] = struct{}{}
		fi, err := os.Stat(p)
		if err != nil {
			return nil
		}
		ix.mu.RLock()
		old, df := ix.scripts[p], ix.data[p]
		var same bool
		switch {
		case df != nil:
			same = df.size == fi.Size() && df.mtime.Equal(fi.ModTime())
		case old != nil:
			same = old.mtime.IsZero() || old.size == fi.Size() && old.mtime.Equal(fi.ModTime())
		case ix.full(p):
			same, pastCap = true, true // not read: the index has no room for it
		default:
			st, ok := ix.unheld[p]
			same = ok && st.is(fi) && (!st.budget || ix.bytes+fi.Size() > ix.opts.MaxBytes)
		}
		ix.mu.RUnlock()
		if !same && ix.updateFile(p) {
			changed = true
		}
		return nil
	})
	if pastCap {
		ix.mu.Lock()
		ix.truncated = true
		ix.mu.Unlock()
	}
	if stop != nil || capped {
		// What the walk did not reach may still be there: kept.
		if stop != nil {
			ix.noteWalkStop(stop)
		} else {
			ix.mu.Lock()
			ix.truncated = true
			ix.mu.Unlock()
		}
		return changed
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for p := range ix.scripts {
		if _, ok := seen[p]; !ok && !ix.scripts[p].mtime.IsZero() {
			ix.removeLocked(p)
			changed = true
		}
	}
	for p := range ix.data {
		if _, ok := seen[p]; !ok {
			ix.removeDataLocked(p)
			changed = true
		}
	}
	for p := range ix.unheld {
		if _, ok := seen[p]; !ok {
			delete(ix.unheld, p)
		}
	}
	return changed
}

// full reports whether the index has no room for the file at path, which
// it does not hold: past MaxFiles data files for a data file, past
// MaxFiles scripts for a script. Poll then does not read it.
func (ix *Index) full(path string) bool {
	if _, named := ix.named[path]; named || ix.dataByName(path) {
		return len(ix.data) >= ix.opts.MaxFiles
	}
	return len(ix.scripts) >= ix.opts.MaxFiles
}
