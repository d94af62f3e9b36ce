package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
	"github.com/restls/restls/workspace"
	"github.com/restls/restls/workspace/index"
)

// The project index (package workspace/index) behind references, rename,
// symbols, code lens and inlay hints. The server holds one per project
// root and registry, shared by the sessions that open that root; it is
// built in the background once the registry has loaded (the first
// completion never waits for it), and kept current from
// workspace/didChangeWatchedFiles, or from the polling watcher when the
// client does not watch files. Its configuration part follows the
// registry's snapshot, and open documents replace their file's text, at
// the start of every request that reads it.

// navIndexes are a server's project indexes.
type navIndexes struct {
	mu sync.Mutex
	m  map[navKey]*navIndex
}

type navKey struct {
	root string
	reg  *workspace.Registry
}

// navIndex is one project index and what it was last brought up to.
type navIndex struct {
	ix    *index.Index
	reg   *workspace.Registry
	ready chan struct{} // closed once the first build is done

	mu       sync.Mutex
	snap     *config.Snapshot    // whose entries the index holds
	buffers  map[string]struct{} // scripts whose text is an editor's buffer
	lastPoll time.Time
	// files are the mappers of configuration files read from disk, for
	// the snapshot in force: an application.yml of 10,000 services is
	// not read again for every request.
	files map[string]*mapper
}

// navIndexBuildTimeout bounds the background build of one index.
const navIndexBuildTimeout = 2 * time.Minute

// projectIndex returns the session's project index, starting its build on
// first use; nil when the session has no root, or its client is shown
// other paths (it could not open the files).
func (s *session) projectIndex() *navIndex {
	s.mu.Lock()
	root, reg, kinds := s.root, s.registryLocked(), s.settings.ScriptKinds
	s.mu.Unlock()
	ctx := s.ctx
	if root == "" || s.opts.ShowPath != nil || ctx == nil || ctx.Err() != nil {
		return nil
	}
	n := &s.srv.nav
	n.mu.Lock()
	defer n.mu.Unlock()
	key := navKey{cleanAbs(root), reg}
	if ni := n.m[key]; ni != nil {
		return ni
	}
	ix, err := index.New(index.Options{Root: key.root, Kinds: kinds, Workers: max(1, runtime.GOMAXPROCS(0)-1), MaxBytes: navIndexMaxBytes,
		MockSuffixes: workspace.MockSuffixes, TestSuffix: workspace.TestFileSuffix})
	if err != nil {
		s.log.Warn("no project index", zap.Error(err))
		return nil
	}
	ni := &navIndex{ix: ix, reg: reg, ready: make(chan struct{}), buffers: map[string]struct{}{}}
	if n.m == nil {
		n.m = map[navKey]*navIndex{}
	}
	n.m[key] = ni
	log := s.log
	// The build is the session's background work: it ends with the
	// session (which waits for it), and the next session builds again.
	s.bg.Go(func() {
		defer close(ni.ready)
		defer func() {
			if r := recover(); r != nil {
				log.Error("recovered from a panic", zap.String("in", "project index"), zap.Any("panic", r))
			}
		}()
		snap := reg.Get() // after the registry's first load
		start := time.Now()
		ctx, cancel := context.WithTimeout(ctx, navIndexBuildTimeout)
		defer cancel()
		if err := ix.Build(ctx); err != nil {
			log.Warn("project index incomplete", zap.String("root", key.root), zap.Error(err))
			n.mu.Lock()
			if n.m[key] == ni {
				delete(n.m, key)
			}
			n.mu.Unlock()
		}
		ni.mu.Lock()
		ix.SetConfig(snap)
		ni.snap = snap
		ni.mu.Unlock()
		scripts, truncated := ix.Len()
		log.Info("project index built", zap.String("root", key.root), zap.Int("scripts", scripts),
			zap.Bool("truncated", truncated), zap.Int64("bytes", ix.Bytes()), zap.Duration("took", time.Since(start)))
		if msg := leftOutMessage(ix, key.root); msg != "" {
			log.Warn(msg)
			s.showMessage(s.ctx, protocol.MessageTypeWarning, msg)
		}
	})
	return ni
}

// navIndexMaxBytes is the index's budget (index.Options.MaxBytes);
// index.DefaultMaxBytes when 0. Tests lower it.
var navIndexMaxBytes int64

// leftOutMessage says which scripts the index left out, for the user:
// what navigation will not see and why; "" when none was.
func leftOutMessage(ix *index.Index, root string) string {
	n, first := ix.LeftOut(3)
	held, truncated := ix.Len()
	var parts []string
	if n > 0 {
		budget := navIndexMaxBytes
		if budget <= 0 {
			budget = index.DefaultMaxBytes
		}
		list := strings.Join(first, ", ")
		if n > len(first) {
			list += fmt.Sprintf(" and %d more", n-len(first))
		}
		size := fmt.Sprintf("%d MiB", budget>>20)
		if budget < 1<<20 {
			size = fmt.Sprintf("%d bytes", budget)
		}
		what := "scripts"
		if n == 1 {
			what = "script"
		}
		parts = append(parts, fmt.Sprintf("%d %s past the index's %s (%s)", n, what, size, list))
	}
	if truncated {
		parts = append(parts, fmt.Sprintf("the scripts past the first %d found", held))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("restls: the project index of %s left out %s: references, rename, code lens and service-unused do not see them. "+
		"Move generated or vendored scripts into node_modules or a directory whose name starts with \".\", which are not indexed.",
		root, strings.Join(parts, " and "))
}

// startProjectIndex starts the build of the session's index in the
// background, so that the first reference does not wait for it.
func (s *session) startProjectIndex() { s.projectIndex() }

// navIndexFor returns the session's index, built and current: the
// registry's snapshot and the open documents' texts applied. nil when
// there is none or ctx ended first.
func (s *session) navIndexFor(ctx context.Context) *navIndex {
	ni := s.projectIndex()
	if ni == nil {
		return nil
	}
	select {
	case <-ni.ready:
	case <-ctx.Done():
		return nil
	}
	s.bringCurrent(ni)
	return ni
}

// bringCurrent applies the registry's snapshot and the open documents'
// texts to a built index: every editor's (the workspace's overlay, which
// the sessions sharing the index all see), this session's own first.
func (s *session) bringCurrent(ni *navIndex) {
	var open map[string]string
	if s.overlaysFiles() {
		open = s.srv.ws.Overlays(ni.ix.Root())
	} else {
		open = map[string]string{}
	}
	s.mu.Lock()
	for _, d := range s.docs {
		if d.path != "" && d.uri.IsFile() {
			open[filepath.Clean(d.path)] = d.doc.Text()
		}
	}
	s.mu.Unlock()
	snap := ni.reg.Get()
	ni.mu.Lock()
	defer ni.mu.Unlock()
	if snap != ni.snap {
		ni.ix.SetConfig(snap)
		ni.snap = snap
		ni.files = nil
	}
	for p, text := range open {
		if ni.ix.SetDocument(p, text) || ni.ix.Script(p) != nil {
			ni.buffers[p] = struct{}{}
		}
	}
	for p := range ni.buffers {
		if _, ok := open[p]; !ok {
			delete(ni.buffers, p)
			ni.ix.Update(p) // closed: back to the file
		}
	}
}

// filesChanged updates every index holding one of paths (a client's
// workspace/didChangeWatchedFiles), and reports whether one changed.
func (srv *Server) filesChanged(paths []string) bool {
	srv.nav.mu.Lock()
	list := make([]*navIndex, 0, len(srv.nav.m))
	for _, ni := range srv.nav.m {
		list = append(list, ni)
	}
	srv.nav.mu.Unlock()
	changed := false
	for _, ni := range list {
		select {
		case <-ni.ready:
		default:
			continue // the build reads the files anyway
		}
		root := ni.ix.Root() + string(filepath.Separator)
		for _, p := range paths {
			if p = filepath.Clean(p); strings.HasPrefix(p, root) {
				ni.mu.Lock()
				if _, open := ni.buffers[p]; !open && ni.ix.Update(p) {
					changed = true
				}
				ni.mu.Unlock()
			}
		}
	}
	return changed
}

// pollProjectIndex brings the session's index current with the disk when
// the client does not report file changes, at most once per interval.
func (s *session) pollProjectIndex(every time.Duration) {
	s.mu.Lock()
	root := s.root
	s.mu.Unlock()
	if root == "" {
		return
	}
	ni := s.projectIndex()
	if ni == nil {
		return
	}
	select {
	case <-ni.ready:
	default:
		return
	}
	ni.mu.Lock()
	due := time.Since(ni.lastPoll) >= every
	if due {
		ni.lastPoll = time.Now()
	}
	ni.mu.Unlock()
	if due && ni.ix.Poll() {
		s.log.Debug("project index: files changed on disk", zap.String("root", root))
		s.diagnostics.mark(true) // service-unused follows the scripts
	}
}

// indexWatchers are the watchers of the index's scripts, fixtures files
// and test files, registered with a client that watches files.
func indexWatchers() []protocol.FileSystemWatcher {
	out := []protocol.FileSystemWatcher{{GlobPattern: protocol.Pattern(index.DefaultGlob)}}
	for _, suf := range append(slices.Clone(workspace.MockSuffixes), workspace.TestFileSuffix) {
		out = append(out, protocol.FileSystemWatcher{GlobPattern: protocol.Pattern("**/*" + suf)})
	}
	return out
}

// navLocation is a location in a file for a byte range, mapped with m.
func navLocation(path string, m *mapper, start, end int) protocol.Location {
	return protocol.Location{URI: hostPaths.fileURI(cleanAbs(path)), Range: protocol.Range{Start: m.position(start), End: m.position(end)}}
}

// entryRange is the range of a configuration value: its span when found,
// else the rest of the line it is on.
func entryRange(m *mapper, sp config.Span, at config.Position) protocol.Range {
	if sp.Found {
		return protocol.Range{Start: m.position(sp.Start), End: m.position(sp.End)}
	}
	var r protocol.Range
	if at.Line > 0 && at.Line <= m.Lines() {
		start := configOffset(m, at)
		r = protocol.Range{Start: m.position(start), End: m.position(int(m.LineEnd(at.Line)))}
	}
	return r
}

// mappers maps files once per request.
type mappers struct {
	s  *session
	ni *navIndex // nil: no cache of configuration files
	m  map[string]*mapper
}

func (s *session) newMappers(ni *navIndex) *mappers {
	return &mappers{s: s, ni: ni, m: map[string]*mapper{}}
}

// config returns the mapper of a configuration file: its open document,
// else the file as read for the snapshot in force.
func (ms *mappers) config(path string) *mapper {
	if m := ms.m[path]; m != nil {
		return m
	}
	u := hostPaths.fileURI(cleanAbs(path))
	var m *mapper
	if text, dm, open := ms.s.openText(path); open {
		m = dm
		if m == nil {
			m = newMapper(text)
		}
	} else if ms.ni != nil {
		ms.ni.mu.Lock()
		m = ms.ni.files[path]
		ms.ni.mu.Unlock()
		if m == nil {
			m = ms.s.configMapper(u, path)
			ms.ni.mu.Lock()
			if ms.ni.files == nil {
				ms.ni.files = map[string]*mapper{}
			}
			ms.ni.files[path] = m
			ms.ni.mu.Unlock()
		}
	} else {
		m = ms.s.configMapper(u, path)
	}
	ms.m[path] = m
	return m
}

// data returns the mapper of a fixtures or test file: its open
// document, else the file as read from disk.
func (ms *mappers) data(path string) *mapper {
	if m := ms.m[path]; m != nil {
		return m
	}
	text, m, err := ms.s.readFile(path, input.Fixtures)
	switch {
	case err != nil:
		m = newFileMapper("")
	case m == nil:
		m = newFileMapper(text)
	}
	ms.m[path] = m
	return m
}

// script returns the mapper of an indexed script's text: the editor's
// buffer when the script is open, else its file as read from disk.
func (ms *mappers) script(sc *index.Script) *mapper {
	if m := ms.m[sc.Path]; m != nil {
		return m
	}
	var m *mapper
	if sc.FromDisk() {
		m = newFileMapper(sc.Text)
	} else {
		m = newMapper(sc.Text)
	}
	ms.m[sc.Path] = m
	return m
}

// navTarget is the serviceId (or oAuth id) under the cursor and the kinds
// whose scripts and sources it is about.
type navTarget struct {
	id    string
	oauth bool
	kinds []config.Kind
	// start, end: the id's range in the document.
	start, end int
	// entry is set when the cursor is on a configuration entry's id.
	entry *config.Entry
}

// targetAt finds what the cursor at off of the document at path is on: a
// call's serviceId literal in a script, or an id, reference or oAuth id
// in a configuration file.
func targetAt(ni *navIndex, path string, off int) (navTarget, bool) {
	path = filepath.Clean(path)
	if sc := ni.ix.Script(path); sc != nil {
		for _, c := range sc.Calls {
			if !c.Dynamic && c.IDRange.End > 0 && c.IDRange.Start <= off && off <= c.IDRange.End {
				return navTarget{id: c.ServiceID, kinds: []config.Kind{sc.Kind}, start: c.IDRange.Start, end: c.IDRange.End}, true
			}
		}
		return navTarget{}, false
	}
	for _, e := range entriesOf(ni, path) {
		in := func(sp config.Span) bool { return sp.Found && sp.Start <= off && off <= sp.End }
		switch {
		case in(e.IDSpan) && e.ID != "":
			return navTarget{id: e.ID, oauth: e.OAuth, kinds: e.Kinds, start: e.IDSpan.Start, end: e.IDSpan.End, entry: &e}, true
		case in(e.RefersToSpan):
			return navTarget{id: e.RefersTo, kinds: e.Kinds, start: e.RefersToSpan.Start, end: e.RefersToSpan.End}, true
		case in(e.OAuthRefSpan):
			return navTarget{id: e.OAuthRef, oauth: true, kinds: e.Kinds, start: e.OAuthRefSpan.Start, end: e.OAuthRefSpan.End}, true
		}
	}
	return navTarget{}, false
}

// navTargetAt is what the navigation requests at a cursor share: the
// index, built and current (nil when ctx ended first), and what the cursor
// at pos of the document at u (mapped by m) is on.
func (s *session) navTargetAt(ctx context.Context, m *mapper, u uri.URI, pos protocol.Position) (*navIndex, navTarget, bool) {
	ni := s.navIndexFor(ctx)
	if ni == nil {
		return nil, navTarget{}, false
	}
	path := hostPaths.fsPath(u)
	t, ok := targetAt(ni, path, m.offset(pos))
	if !ok {
		// An id written with an escape has no span: its code lens and
		// symbol point at the rest of its line, and the references asked
		// from there are its references.
		for _, e := range entriesOf(ni, path) {
			if e.IDSpan.Found || e.ID == "" {
				continue
			}
			if r := entryRange(m, e.IDSpan, e.IDAt); r.Start.Line == pos.Line && r.Start.Character <= pos.Character && pos.Character <= r.End.Character {
				start, end := m.fromRange(r)
				return ni, navTarget{id: e.ID, oauth: e.OAuth, kinds: e.Kinds, start: start, end: end, entry: &e}, true
			}
		}
	}
	return ni, t, ok
}

// entriesOf returns the entries of the configuration file at path,
// whatever spelling of the path the registry read it under.
func entriesOf(ni *navIndex, path string) []config.Entry {
	if es := ni.ix.EntriesIn(path); len(es) > 0 {
		return es
	}
	for _, f := range ni.ix.EntryFiles() {
		if sameFile(f, path) {
			return ni.ix.EntriesIn(f)
		}
	}
	return nil
}

// navMapper returns the mapper of an open document that names a file, or
// nil: navigation answers only for files.
func (s *session) navMapper(u uri.URI) *mapper {
	if !u.IsFile() || s.opts.ShowPath != nil {
		return nil
	}
	if d := s.document(u); d != nil {
		return d.m
	}
	return nil
}
