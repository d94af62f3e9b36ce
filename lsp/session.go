package lsp

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/hints"
)

type lifecycle int

const (
	stateNew lifecycle = iota
	stateInitialized
	stateShutdown
)

// clientCaps is what the session remembers of the client's capabilities.
type clientCaps struct {
	dynamicWatch     bool // workspace.didChangeWatchedFiles.dynamicRegistration
	configPull       bool // workspace.configuration
	workDoneProgress bool // window.workDoneProgress
	snippets         bool // completionItem.snippetSupport
	lazyDocs         bool // completionItem.resolveSupport has "documentation"
	editRange        bool // completionList.itemDefaults has "editRange"
	dataDefault      bool // completionList.itemDefaults has "data"
}

// session is one editor connection: its documents, settings and lifecycle.
// Notifications that change state run in arrival order on the connection's
// read goroutine; read-only requests run concurrently and take what they
// need under mu before they detach.
type session struct {
	srv  *Server
	id   int
	log  *zap.Logger
	conn jsonrpc2.Conn
	ctx  context.Context // session lifetime, carries the slog bridge
	end  context.CancelFunc

	mu         sync.Mutex
	state      lifecycle
	exited     bool
	docs       map[uri.URI]*document
	settings   settings
	own        *registry // nil: the server's shared registry
	root       string    // workspace root directory, for relative settings paths
	caps       clientCaps
	watching   bool             // the client watches the config files for us
	configURIs map[uri.URI]bool // config files we published diagnostics on
	// diags are the diagnostics last published per document, for code
	// actions: a document keeps no syntax tree between requests.
	diags       map[uri.URI]diagCache
	toldRestart bool
	inflight    map[jsonrpc2.ID]context.CancelFunc
	// lastItems are the items of the latest completion answer, for
	// completionItem/resolve to add their documentation.
	lastItems    []hints.CompletionItem
	lastItemsSeq int64
	itemsSeq     int64            // the latest sequence number given to an answer
	lastItemsReg *config.Registry // builds the documentation of LazyDoc items
	// answers recycles completion answers; with this package's stream it
	// holds each until it is written.
	answers *answerRecycler

	// Diagnostics are computed off the read goroutine, latest state wins.
	// pubMu orders a document's publish against didClose's clearing, so a
	// closed document never keeps diagnostics computed just before.
	pubMu       sync.Mutex
	pullMu      sync.Mutex // serialises workspace/configuration pulls
	watchMu     sync.Mutex // serialises watcher (re)registrations
	dirty       map[uri.URI]struct{}
	configDirty bool
	wake        chan struct{}
}

// document is one open script. It is immutable: a change replaces it.
type document struct {
	uri     uri.URI
	path    string // file system path, "" for other schemes
	version int32
	doc     *hints.Document
	m       *mapper
}

// newDocument makes a document. It clones u and text: strings decoded by
// protocol.Unmarshal may alias the whole message they came from, and a
// document outlives its message (a retained URI would keep a copy of the
// full text of didOpen alive).
func newDocument(u uri.URI, version int32, text string) *document {
	return makeDocument(uri.URI(strings.Clone(string(u))), version, strings.Clone(text))
}

// makeDocument makes a document of strings that alias nothing else.
func makeDocument(u uri.URI, version int32, text string) *document {
	d := &document{uri: u, version: version, doc: hints.NewDocument(text), m: newMapper(text)}
	if u.IsFile() {
		d.path = u.FsPath()
	} else {
		d.path = u.Path()
	}
	return d
}

// diagCache is what Diagnose returned for one text and registry.
type diagCache struct {
	d     *document // the text (by identity) and version diagnosed
	reg   *config.Registry
	diags []hints.Diagnostic
}

// unparsed returns d without its syntax tree. Only Diagnose needs the tree
// (about 1 MB per 1,000 lines, and pointer-dense, so it also slows every
// garbage collection); completion, hover and signature help work from the
// text, and code actions from the cached diagnostics.
func (d *document) unparsed() *document {
	c := *d
	c.doc = hints.NewDocument(d.doc.Text())
	return &c
}

func newSession(srv *Server, id int, end context.CancelFunc) *session {
	return &session{
		srv:        srv,
		id:         id,
		log:        srv.log.With(zap.Int("session", id)),
		end:        end,
		docs:       map[uri.URI]*document{},
		configURIs: map[uri.URI]bool{},
		diags:      map[uri.URI]diagCache{},
		inflight:   map[jsonrpc2.ID]context.CancelFunc{},
		dirty:      map[uri.URI]struct{}{},
		wake:       make(chan struct{}, 1),
	}
}

func (s *session) ended() (shutdown, exited bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == stateShutdown, s.exited
}

// registryLocked returns the registry this session reads.
func (s *session) registryLocked() *registry {
	if s.own != nil {
		return s.own
	}
	return s.srv.shared
}

func (s *session) ownRegistry() *registry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.own
}

// snapshot returns the session's current registry snapshot.
func (s *session) snapshot() *config.Snapshot {
	s.mu.Lock()
	r := s.registryLocked()
	s.mu.Unlock()
	return r.get()
}

// view is what a read-only request needs, taken in arrival order.
type view struct {
	d    *document
	snap *config.Snapshot
	kind config.Kind
	reg  *config.Registry // nil when the registry failed to load
	caps clientCaps
}

// viewOf returns the document and the registry it sees; ok is false when
// the document is not open.
func (s *session) viewOf(u uri.URI) (view, bool) {
	s.mu.Lock()
	d := s.docs[u]
	r := s.registryLocked()
	set := s.settings
	caps := s.caps
	s.mu.Unlock()
	if d == nil {
		return view{}, false
	}
	snap := r.get()
	kind := kindOf(d, set)
	return view{d: d, snap: snap, kind: kind, reg: usable(snap.For(kind)), caps: caps}, true
}

// usable returns reg, or nil when it failed to load: the hint engine then
// offers no serviceId hints instead of calling every serviceId unknown.
func usable(reg *config.Registry) *config.Registry {
	if reg == nil || !reg.Loaded {
		return nil
	}
	if reg.Len() == 0 {
		for _, d := range reg.Diagnostics {
			if d.Severity == config.SeverityError {
				return nil
			}
		}
	}
	return reg
}

// kindOf decides a document's script kind: a first-line comment
// "// restls-kind: K" first (it is in the file itself), then the first
// matching scriptKinds glob, then scriptService.
func kindOf(d *document, set settings) config.Kind {
	if k, ok := hints.DetectKind(d.doc.Text()); ok {
		return k
	}
	for _, sk := range set.ScriptKinds {
		if matchGlob(sk.Glob, d.path) {
			return sk.Kind
		}
	}
	return config.ScriptService
}

// markDirty queues documents (none: every open one) for diagnostics.
func (s *session) markDirty(uris ...uri.URI) {
	s.mu.Lock()
	if len(uris) == 0 {
		for u := range s.docs {
			s.dirty[u] = struct{}{}
		}
	}
	for _, u := range uris {
		s.dirty[u] = struct{}{}
	}
	s.mu.Unlock()
	s.kick()
}

// markConfigDirty queues config diagnostics, status and every document.
func (s *session) markConfigDirty() {
	s.mu.Lock()
	s.configDirty = true
	for u := range s.docs {
		s.dirty[u] = struct{}{}
	}
	s.mu.Unlock()
	s.kick()
}

func (s *session) kick() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// diagnosticsLoop publishes diagnostics for queued documents until ctx ends.
// Each round reads the latest text and snapshot, so a publish never carries
// a stale version after a newer one.
func (s *session) diagnosticsLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		}
		if !s.settle(ctx) {
			return
		}
		s.mu.Lock()
		if s.state != stateInitialized {
			s.mu.Unlock()
			continue
		}
		dirty := s.dirty
		s.dirty = map[uri.URI]struct{}{}
		configDirty := s.configDirty
		s.configDirty = false
		s.mu.Unlock()

		if configDirty {
			s.safely("config diagnostics", func() { s.publishConfig(ctx) })
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
			s.safely("diagnostics", func() { s.publishDocument(ctx, u) })
		}
	}
}

// settle waits until changes pause for DiagnosticsDelay (at most ten
// times that in all, so diagnostics keep up with continuous typing). It
// returns false when ctx ended.
func (s *session) settle(ctx context.Context) bool {
	d := s.srv.opts.DiagnosticsDelay
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
		case <-s.wake:
			if wait := time.Until(deadline); wait > 0 {
				t.Reset(min(d, wait))
			}
		case <-t.C:
			return true
		}
	}
}

// safely runs f, logging a panic instead of ending the process: a bug in
// one hint must not take the editor's language server down.
func (s *session) safely(what string, f func()) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("recovered from a panic", zap.String("in", what), zap.Any("panic", r), zap.StackSkip("stack", 2))
		}
	}()
	f()
}

func (s *session) publishDocument(ctx context.Context, u uri.URI) {
	v, ok := s.viewOf(u)
	if !ok {
		return // closed meanwhile; didClose cleared it
	}
	diags := hints.Diagnose(v.d.doc, v.reg)
	s.mu.Lock()
	if s.docs[u] == v.d {
		s.docs[u] = v.d.unparsed()
		s.diags[u] = diagCache{d: s.docs[u], reg: v.reg, diags: diags}
	}
	s.mu.Unlock()
	out := make([]protocol.Diagnostic, 0, len(diags))
	for _, d := range diags {
		out = append(out, toDiagnostic(v.d.m, d))
	}
	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	s.mu.Lock()
	cur := s.docs[u]
	s.mu.Unlock()
	if cur == nil || cur.version != v.d.version || cur.doc.Text() != v.d.doc.Text() {
		return // closed or changed meanwhile: the newer state is queued
	}
	s.notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{
		URI: u, Version: protocol.NewOptional(v.d.version), Diagnostics: out,
	})
}

// notify sends a notification; a failure means the client is gone.
func (s *session) notify(ctx context.Context, method string, params any) {
	if err := s.conn.Notify(ctx, method, params); err != nil {
		s.log.Debug("notification not sent", zap.String("method", method), zap.Error(err))
	}
}

// showMessage tells the user something in a popup.
func (s *session) showMessage(ctx context.Context, typ protocol.MessageType, msg string) {
	s.notify(ctx, protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: typ, Message: msg})
}

// registryReloaded is called after the session's registry was reloaded.
func (s *session) registryReloaded(fromFiles bool) {
	s.mu.Lock()
	tell := fromFiles && !s.toldRestart && s.state == stateInitialized
	if tell {
		s.toldRestart = true
	}
	s.mu.Unlock()
	if tell {
		s.showMessage(s.ctx, protocol.MessageTypeInfo, restartMessage)
	}
	s.markConfigDirty()
}

// restartMessage is said once per session when configuration files change
// (spec 5.2: the platform reads its configuration only at startup).
const restartMessage = "restls reloaded the service configuration. The platform itself applies a configuration change only after webforms-rest is restarted (spec 5.2); until then scripts on the server still see the old services."

func fileURI(path string) uri.URI { return uri.File(path) }

func isConfigFile(path string, files []string) bool {
	for _, f := range files {
		if sameFile(f, path) {
			return true
		}
	}
	return false
}

func sameFile(a, b string) bool {
	return cleanAbs(a) == cleanAbs(b)
}
