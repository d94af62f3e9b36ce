package lsp

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
	"github.com/restls/restls/hints"
	"github.com/restls/restls/input"
	"github.com/restls/restls/workspace"
	"github.com/restls/restls/workspace/index"
)

// diagnosticsWorker computes and publishes one session's diagnostics off
// the read goroutine, latest state wins: documents and the configuration
// are queued (mark), and run publishes what is queued once changes pause,
// reading the session's latest text and registry each round, so a publish
// never carries a stale version after a newer one.
//
// Locks:
//   - mu guards dirty, configDirty, published and configURIs.
//   - pubMu orders publishing a document against forgetting it (didClose),
//     so a closed document never keeps diagnostics computed just before,
//     and no cache entry outlives its document.
//   - Order: pubMu, then session.mu or mu; session.mu and mu are never held
//     together, and nothing calls the client under mu.
//
// Goroutines: mark, forget and cached may be called from any goroutine
// (the read goroutine for notifications, request goroutines for code
// actions); run, and so publishDocument and publishConfig, runs on the
// worker's own goroutine only.
type diagnosticsWorker struct {
	s     *session
	delay time.Duration // Options.DiagnosticsDelay
	wake  chan struct{} // holds at most one pending wake-up

	pubMu sync.Mutex

	// awaitingIndex is set while a goroutine waits for the project
	// index's build to publish service-unused.
	awaitingIndex atomic.Bool

	mu          sync.Mutex
	dirty       map[uri.URI]struct{} // documents to diagnose
	configDirty bool                 // publish config diagnostics and status
	// published are the diagnostics last published per document, for code
	// actions: a document keeps no syntax tree between requests.
	published map[uri.URI]diagCache
	// configURIs are the config files we published diagnostics on.
	configURIs map[uri.URI]bool
}

// diagCache is what Diagnose returned for one text and registry.
type diagCache struct {
	d     *document // the text (by identity) and version diagnosed
	reg   *config.Registry
	diags []hints.Diagnostic
}

func newDiagnosticsWorker(s *session, delay time.Duration) *diagnosticsWorker {
	return &diagnosticsWorker{
		s:          s,
		delay:      delay,
		wake:       make(chan struct{}, 1),
		dirty:      map[uri.URI]struct{}{},
		published:  map[uri.URI]diagCache{},
		configURIs: map[uri.URI]bool{},
	}
}

// mark queues documents, and the configuration when config is true, and
// wakes the worker.
func (w *diagnosticsWorker) mark(config bool, uris ...uri.URI) {
	w.mu.Lock()
	w.configDirty = w.configDirty || config
	for _, u := range uris {
		w.dirty[u] = struct{}{}
	}
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// take empties the queue.
func (w *diagnosticsWorker) take() (dirty map[uri.URI]struct{}, configDirty bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	dirty, configDirty = w.dirty, w.configDirty
	w.dirty, w.configDirty = map[uri.URI]struct{}{}, false
	return dirty, configDirty
}

// cached returns the diagnostics last published for document u.
func (w *diagnosticsWorker) cached(u uri.URI) (diagCache, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	c, ok := w.published[u]
	return c, ok
}

// forget runs drop, which removes document u from the session, with no
// publish of u under way; then unqueues u, drops its cached diagnostics
// and clears them in the editor, unless u is a configuration file, whose
// diagnostics come from the registry and stay.
func (w *diagnosticsWorker) forget(ctx context.Context, u uri.URI, drop func()) {
	w.pubMu.Lock()
	defer w.pubMu.Unlock()
	drop()
	w.mu.Lock()
	delete(w.dirty, u)
	delete(w.published, u)
	isConfig := w.configURIs[u]
	w.mu.Unlock()
	if !isConfig {
		w.s.notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: []protocol.Diagnostic{}})
	}
}

// run publishes diagnostics for queued documents until ctx ends.
func (w *diagnosticsWorker) run(ctx context.Context) {
	s := w.s
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		}
		if !w.settle(ctx) {
			return
		}
		if !s.isInitialized() {
			continue // the queue waits for initialized
		}
		dirty, configDirty := w.take()
		if configDirty {
			s.safely("config diagnostics", func() { w.publishConfig(ctx) })
		}
		uris := make([]uri.URI, 0, len(dirty))
		for u := range dirty {
			uris = append(uris, u)
		}
		sort.Slice(uris, func(i, j int) bool { return uris[i] < uris[j] })
		for _, u := range uris {
			if ctx.Err() != nil {
				return
			}
			s.safely("diagnostics", func() { w.publishDocument(ctx, u) })
		}
		if configDirty || len(uris) > 0 {
			s.refreshAfterPublish(ctx, configDirty)
		}
	}
}

// settle waits until changes pause for the delay (at most ten times that
// in all, so diagnostics keep up with continuous typing). It returns false
// when ctx ended.
func (w *diagnosticsWorker) settle(ctx context.Context) bool {
	d := w.delay
	if d <= 0 {
		return ctx.Err() == nil
	}
	deadline := time.Now().Add(10 * d)
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-w.wake:
			if wait := time.Until(deadline); wait > 0 {
				t.Reset(min(d, wait))
			}
		case <-t.C:
			return true
		}
	}
}

// publishDocument diagnoses document u as it is now and publishes the
// result, unless the document changed or closed meanwhile (the newer state
// is then queued). The document diagnosed gives up its syntax tree.
func (w *diagnosticsWorker) publishDocument(ctx context.Context, u uri.URI) {
	s := w.s
	v, ok := s.viewOf(u)
	if !ok {
		return // closed meanwhile; didClose cleared it
	}
	if filepath.Base(v.d.path) == workspace.FileName {
		w.publishProject(ctx, u, v.d)
		return
	}
	if isTestDocument(v.d.path) {
		w.publishTest(ctx, u, v.d)
		return
	}
	if isConfigDocument(v.d.path) {
		s.fixtureEdited(v.d.path)
		return // a configuration file: publishConfig diagnoses it
	}
	release, err := s.srv.parsing(ctx, len(v.d.doc.Text()))
	if err != nil {
		return // the session ended while it waited
	}
	diags := hints.Diagnose(v.d.doc, v.reg, s.displayFor(v))
	diags = append(diags, hints.BudgetDiagnostics(v.d.doc, s.slowCalls(v.d))...)
	diags = append(diags, s.faultDiagnostics(v.d)...)
	out := make([]protocol.Diagnostic, 0, len(diags))
	for _, d := range diags {
		out = append(out, toDiagnostic(v.d.m, d))
	}
	w.pubMu.Lock()
	defer w.pubMu.Unlock()
	if d := s.dropTree(u, v.d); d != nil {
		w.mu.Lock()
		w.published[u] = diagCache{d: d, reg: v.reg, diags: diags}
		w.mu.Unlock()
		v.d = d
	} else {
		v.d = v.d.unparsed()
	}
	// Nothing holds the tree now: the budget may go to the next parse.
	release()
	cur := s.document(u)
	if cur == nil || cur.version != v.d.version || cur.doc.Text() != v.d.doc.Text() {
		return // closed or changed meanwhile: the newer state is queued
	}
	s.notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{
		URI: u, Version: protocol.NewOptional(v.d.version), Diagnostics: out,
	})
	s.publishFixtures(ctx, v)
}

// publishProject publishes the problems of an open project file
// (restls.yaml) as it is typed: unknown keys with the nearest known one,
// values of the wrong form, as every command reports them
// (workspace.ParseProject). The server reads the file it started with
// only at start; the status names it.
func (w *diagnosticsWorker) publishProject(ctx context.Context, u uri.URI, d *document) {
	p := workspace.ParseProject(d.path, []byte(d.doc.Text()))
	out := make([]protocol.Diagnostic, 0, len(p.Diagnostics))
	for _, pd := range p.Diagnostics {
		out = append(out, configDiagnostic(d.m, pd))
	}
	w.pubMu.Lock()
	defer w.pubMu.Unlock()
	if cur := w.s.document(u); cur == nil || cur.version != d.version {
		return // closed or changed meanwhile: the newer state is queued
	}
	w.s.notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{
		URI: u, Version: protocol.NewOptional(d.version), Diagnostics: out,
	})
}

// publishTest publishes a test file's diagnostics
// (testfile_diagnostics.go), unless it changed or closed meanwhile.
func (w *diagnosticsWorker) publishTest(ctx context.Context, u uri.URI, d *document) {
	s := w.s
	out := s.testDiagnostics(d)
	w.pubMu.Lock()
	defer w.pubMu.Unlock()
	cur := s.document(u)
	if cur == nil || cur.version != d.version || cur.doc.Text() != d.doc.Text() {
		return
	}
	s.notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{
		URI: u, Version: protocol.NewOptional(d.version), Diagnostics: out,
	})
}

// unusedEntries are the service-unused entries per configuration file,
// from the project index once it is built. Before that, none: a waiter
// queues the configuration again when the build is done.
func (w *diagnosticsWorker) unusedEntries() map[string][]index.Unused {
	s := w.s
	if s.opts.ShowPath != nil {
		return nil
	}
	ni := s.projectIndex()
	if ni == nil {
		return nil
	}
	select {
	case <-ni.Ready():
	default:
		if w.awaitingIndex.CompareAndSwap(false, true) {
			ctx := s.ctx
			s.bg.Go(func() {
				defer w.awaitingIndex.Store(false)
				select {
				case <-ni.Ready():
					w.mark(true)
				case <-ctx.Done():
				}
			})
		}
		return nil
	}
	s.bringCurrent(ni)
	out := map[string][]index.Unused{}
	for _, f := range ni.Index().EntryFiles() {
		if us := ni.Index().Unused(f); len(us) > 0 {
			out[f] = us
		}
	}
	return out
}

// publishConfig publishes the registry's diagnostics on the configuration
// files themselves (clearing files that no longer have any), then the
// status notification.
func (w *diagnosticsWorker) publishConfig(ctx context.Context) {
	s := w.s
	snap := s.snapshot()
	byFile := map[string][]config.Diagnostic{}
	for _, d := range snap.Diagnostics() {
		if d.File == "" || s.opts.ShowPath != nil {
			// A client shown other paths gets no diagnostics on the files
			// themselves: their URIs would be the real paths.
			continue
		}
		if fi, err := os.Stat(d.File); err == nil && fi.IsDir() {
			continue // "no configuration found in <dir>": status says it
		}
		byFile[d.File] = append(byFile[d.File], d)
	}
	unused := w.unusedEntries()
	published := map[uri.URI]bool{}
	files := make([]string, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	for f := range unused {
		if _, ok := byFile[f]; !ok {
			files = append(files, f)
		}
	}
	sort.Strings(files)
	for _, f := range files {
		u := hostPaths.fileURI(cleanAbs(f))
		published[u] = true
		m := s.configMapper(u, f)
		out := make([]protocol.Diagnostic, 0, len(byFile[f])+len(unused[f]))
		for _, d := range byFile[f] {
			out = append(out, configDiagnostic(m, d))
		}
		for _, un := range unused[f] {
			out = append(out, protocol.Diagnostic{
				Range:    entryRange(m, un.Entry.IDSpan, un.Entry.IDAt),
				Severity: protocol.DiagnosticSeverityInformation,
				Code:     protocol.String(index.CodeServiceUnused),
				Source:   protocol.NewOptional("restls"),
				Message:  protocol.String(un.Message),
			})
		}
		s.notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: out})
	}
	if s.opts.ShowPath == nil {
		for f, diags := range s.descriptionDiagnostics() {
			u := hostPaths.fileURI(cleanAbs(f))
			published[u] = true
			s.notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: diags})
		}
	}
	w.mu.Lock()
	var clear []uri.URI
	for u := range w.configURIs {
		if !published[u] {
			clear = append(clear, u)
		}
	}
	w.configURIs = published
	w.mu.Unlock()
	for _, u := range clear {
		s.notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: []protocol.Diagnostic{}})
	}
	show := workspace.NewPathDisplay(s.opts.ShowPath, snap.Sources)
	st := statusOf(snap, show)
	st.OpenAPI = s.openAPIStatus(workspace.Usable(snap.For(config.ScriptService)), show)
	if s.srv.opts.Project != "" {
		st.Project = show.Path(s.srv.opts.Project)
	}
	s.mu.Lock()
	st.Environments, st.Environment = s.environmentsLocked()
	st.Files = filesOf(s.settings)
	s.mu.Unlock()
	s.notify(ctx, MethodStatus, st)
}

// parseBudget is how many bytes of script text the server's sessions
// parse at once, all sessions together. A syntax tree is some 20 times
// its text while it lives: three /lsp sessions diagnosing their largest
// documents (12 MiB each) at the same moment held three trees and took
// the server past 1 GiB (issue 33, point 23). One budget of the largest
// script restls reads (16 MiB, input's script limit) lets any number of
// ordinary scripts be parsed together, and the large ones one after the
// other.
var parseBudget = input.Script.Limit()

// parsing waits until size bytes of text may be parsed (the whole budget
// for a text past it); release gives them back. err is ctx's when it
// ended first.
func (s *Server) parsing(ctx context.Context, size int) (release func(), err error) {
	n := min(max(int64(size), 1), parseBudget)
	if err := s.parses.Acquire(ctx, n); err != nil {
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(func() { s.parses.Release(n) }) }, nil
}
