package lsp

import (
	"context"
	"path/filepath"
	"slices"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
	"github.com/restls/restls/workspace"
	"github.com/restls/restls/workspace/index"
)

// The project index (workspace.ProjectIndex) behind references, rename,
// symbols, code lens and inlay hints is the Session's, one per project
// root and registry, shared by the sessions that open that root (and by
// the MCP server's references tool). A session builds it in the
// background once the registry has loaded (the first completion never
// waits for it), and keeps it current from
// workspace/didChangeWatchedFiles, or from the polling watcher when the
// client does not watch files. Its configuration part follows the
// registry's snapshot, and open documents replace their file's text, at
// the start of every request that reads it.

// navIndex is the Session's project index as lsp reads it.
type navIndex = workspace.ProjectIndex

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
	ni, isNew, err := s.srv.ws.ProjectIndex(cleanAbs(root), reg, kinds)
	if err != nil {
		s.log.Warn("no project index", zap.Error(err))
		return nil
	}
	if !isNew {
		return ni
	}
	log := s.log
	// The build is the session's background work: it ends with the
	// session (which waits for it), and the next session builds again.
	s.bg.Go(func() {
		defer func() {
			if r := recover(); r != nil {
				log.Error("recovered from a panic", zap.String("in", "project index"), zap.Any("panic", r))
			}
		}()
		ix := ni.Index()
		start := time.Now()
		if err := ni.Build(ctx); err != nil {
			log.Warn("project index incomplete", zap.String("root", ix.Root()), zap.Error(err))
		}
		scripts, truncated := ix.Len()
		log.Info("project index built", zap.String("root", ix.Root()), zap.Int("scripts", scripts),
			zap.Bool("truncated", truncated), zap.Int64("bytes", ix.Bytes()), zap.Duration("took", time.Since(start)))
		if msg := ni.LeftOutMessage(); msg != "" {
			log.Warn(msg)
			s.showMessage(s.ctx, protocol.MessageTypeWarning, msg)
		}
	})
	return ni
}

// startProjectIndex starts the build of the session's index in the
// background, so that the first reference does not wait for it.
func (s *session) startProjectIndex() { s.projectIndex() }

// navIndexFor returns the session's index, built and current: the
// registry's snapshot and the open documents' texts applied. nil when
// there is none or ctx ended first.
func (s *session) navIndexFor(ctx context.Context) *navIndex {
	ni := s.projectIndex()
	if ni == nil || !ni.Wait(ctx) {
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
		open = s.srv.ws.Overlays(ni.Index().Root())
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
	ni.BringCurrent(open)
}

// pollProjectIndex brings the session's index current with the disk when
// the client does not report file changes, at most once per interval.
func (s *session) pollProjectIndex(every time.Duration) {
	ni := s.projectIndex() // nil without a root
	if ni == nil {
		return
	}
	if ni.Poll(every) {
		s.log.Debug("project index: files changed on disk", zap.String("root", ni.Index().Root()))
		s.diagnostics.mark(true) // service-unused follows the scripts
	}
	s.sayWalkStop(ni)
}

// sayWalkStop tells the user, once per index, that a walk of the
// session's index ni (a Poll, an Update) stopped at input's walk bounds,
// as the build says what it left out.
func (s *session) sayWalkStop(ni *navIndex) {
	if msg := ni.WalkStopMessage(); msg != "" {
		s.log.Warn(msg)
		s.showMessage(s.ctx, protocol.MessageTypeWarning, msg)
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
		m = ms.ni.Memo(path, func() any { return ms.s.configMapper(u, path) }).(*mapper)
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
	if sc := ni.Index().Script(path); sc != nil {
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
	if es := ni.Index().EntriesIn(path); len(es) > 0 {
		return es
	}
	for _, f := range ni.Index().EntryFiles() {
		if sameFile(f, path) {
			return ni.Index().EntriesIn(f)
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
