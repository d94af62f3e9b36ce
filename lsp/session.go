package lsp

import (
	"context"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/hints"
	"github.com/restls/restls/openapi"
	"github.com/restls/restls/runtime/dryrun/history"
	"github.com/restls/restls/workspace"
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
	documentChanges  bool // workspace.workspaceEdit.documentChanges (rename.go)
	showDocument     bool // window.showDocument.support (code_action_entry.go)
	lensRefresh      bool // workspace.codeLens.refreshSupport (refresh.go)
	inlayRefresh     bool // workspace.inlayHint.refreshSupport (refresh.go)
	valueRefresh     bool // workspace.inlineValue.refreshSupport (inline_values.go)
}

// session is one editor connection: its documents, settings and lifecycle.
// Notifications that change state run in arrival order on the connection's
// read goroutine; read-only requests run concurrently and take what they
// need under mu before they detach.
//
// mu guards the documents, the settings (and the registry they choose),
// the lifecycle and the requests in flight; what else a session keeps has
// its own type and lock: resolve (completionItem/resolve's items, see
// resolveCache) and diagnostics (the queue, published diagnostics and the
// worker that publishes them, see diagnosticsWorker). mu is never held
// while calling the client or taking those types' locks, and no code
// under it loads a registry. pullMu and watchMu serialise calls to the
// client (workspace/configuration, watcher registration) and are taken
// before mu, never under it.
type session struct {
	srv  *Server
	id   int
	log  *zap.Logger
	conn jsonrpc2.Conn
	ctx  context.Context // session lifetime, carries the slog bridge
	// bg counts the session's background work (the registry preload), which
	// the session waits for when it ends: nothing of a session outlives it,
	// its log lines included.
	bg   sync.WaitGroup
	end  context.CancelFunc
	opts SessionOptions // what this session's client may do and see; set before it starts
	// history keeps the session's dry runs (command_history.go); set
	// before it starts.
	history history.Store

	mu          sync.Mutex
	state       lifecycle
	exited      bool
	docs        map[uri.URI]*document
	textBytes   int64 // the text of docs, for opts.MaxBytes
	settings    settings
	own         *workspace.Registry // nil: the server's shared registry
	root        string              // workspace root directory, for relative settings paths
	caps        clientCaps
	watching    bool // the client watches the config files for us
	toldRestart bool
	inflight    map[jsonrpc2.ID]context.CancelFunc
	// slow are the calls of each script's last dry run that came close
	// to their read timeout (command_history.go), by history key.
	slow map[string][]hints.SlowCall
	// explored is each open script's last fault exploration (faults.go).
	explored map[uri.URI]*explored

	pullMu  sync.Mutex // serialises workspace/configuration pulls
	watchMu sync.Mutex // serialises watcher (re)registrations

	apiCache    workspace.Attachments
	answerCache workspace.Attachments // its snapshots' answer store's (Snapshot.AnswerAPIs)
	fixtureMu   sync.Mutex
	fixtureSeen map[string]fixtureKey // publishFixtures' last, per fixture file
	fixtureActs map[fixtureActionKey][]protocol.CommandOrCodeAction
	recorded    workspace.Recorded
	resolve     resolveCache
	diagnostics *diagnosticsWorker
	// lenses and inlays ask the client to request its code lenses and
	// inlay hints again (refresh.go).
	lenses, inlays refresher
	// values asks for the inline values again after a dry run.
	values refresher
	// answers recycles completion answers; with this package's stream it
	// holds each until it is written.
	answers *answerRecycler
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
		d.path = hostPaths.fsPath(u)
	} else {
		d.path = u.Path()
	}
	return d
}

// unparsed returns d without its syntax tree. Only Diagnose needs the tree
// (about 1 MB per 1,000 lines, and pointer-dense, so it also slows every
// garbage collection); completion, hover and signature help work from the
// text and the answer types computed with the diagnostics (kept), and
// code actions from the cached diagnostics.
func (d *document) unparsed() *document {
	c := *d
	c.doc = d.doc.Unparsed()
	return &c
}

func newSession(srv *Server, id int, end context.CancelFunc) *session {
	s := &session{
		srv:      srv,
		id:       id,
		log:      srv.log.With(zap.Int("session", id)),
		end:      end,
		docs:     map[uri.URI]*document{},
		inflight: map[jsonrpc2.ID]context.CancelFunc{},
		lenses:   refresher{method: protocol.MethodWorkspaceCodeLensRefresh},
		inlays:   refresher{method: protocol.MethodWorkspaceInlayHintRefresh},
		values:   refresher{method: protocol.MethodWorkspaceInlineValueRefresh},
	}
	s.diagnostics = newDiagnosticsWorker(s, srv.opts.DiagnosticsDelay)
	return s
}

func (s *session) ended() (shutdown, exited bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == stateShutdown, s.exited
}

// isInitialized reports whether the session is between initialize and
// shutdown.
func (s *session) isInitialized() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == stateInitialized
}

// document returns open document u, or nil.
func (s *session) document(u uri.URI) *document {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[u]
}

// openURIs lists the open documents.
func (s *session) openURIs() []uri.URI {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]uri.URI, 0, len(s.docs))
	for u := range s.docs {
		out = append(out, u)
	}
	return out
}

// dropTree replaces document u by d without its syntax tree, if d is still
// u's document, and returns the replacement; else nil.
func (s *session) dropTree(u uri.URI, d *document) *document {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.docs[u] != d {
		return nil
	}
	c := d.unparsed()
	s.docs[u] = c
	return c
}

// dropDocument forgets document u.
func (s *session) dropDocument(u uri.URI) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deleteDocumentLocked(u)
}

// registryLocked returns the registry this session reads.
func (s *session) registryLocked() *workspace.Registry {
	if s.own != nil {
		return s.own
	}
	return s.srv.ws.Registry()
}

func (s *session) ownRegistry() *workspace.Registry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.own
}

// snapshot returns the session's current registry snapshot.
func (s *session) snapshot() *config.Snapshot {
	s.mu.Lock()
	r := s.registryLocked()
	s.mu.Unlock()
	return r.Get()
}

// view is what a read-only request needs, taken in arrival order.
type view struct {
	d    *document
	snap *config.Snapshot
	kind config.Kind
	// kindSource is why kind (config.KindMap.Decide): a chosen kind
	// (explicit) is not changed by a "// restls-kind:" line.
	kindSource config.KindSource
	reg        *config.Registry // nil when the registry failed to load
	caps       clientCaps
	apis       *openapi.Set // the descriptions of reg's services; nil: none
	// env is the project file's environment snap belongs to, taken under
	// the same lock: a run judged, run and audited in env uses snap.
	env string
	// ws is the workspace snapshot the rest was read from (its
	// Environment is env): what a run is given.
	ws workspace.Snapshot
}

// viewOf returns the document and the registry it sees; ok is false when
// the document is not open.
func (s *session) viewOf(u uri.URI) (view, bool) {
	s.mu.Lock()
	d := s.docs[u]
	caps := s.caps
	parts := s.snapshotPartsLocked()
	s.mu.Unlock()
	if d == nil {
		return view{}, false
	}
	ws := s.snapshotOf(parts)
	decided := ws.Kind(hostPaths.slash(d.path), d.doc.Text())
	kind := decided.Kind
	reg := ws.Registry(kind)
	apis := ws.APIsFor(d.path, reg)
	return view{d: d, snap: ws.Config, kind: kind, kindSource: decided.Source, reg: reg, caps: caps, apis: apis, env: ws.Environment, ws: ws}, true
}

// snapshotParts are the session's parts of its workspace snapshot, taken
// together under s.mu: the registry, kind map, descriptions and
// environment in force.
type snapshotParts struct {
	reg   *workspace.Registry
	kinds config.KindMap
	apis  []workspace.APISource
	env   string
}

func (s *session) snapshotPartsLocked() snapshotParts {
	return snapshotParts{reg: s.registryLocked(), kinds: s.settings.ScriptKinds, apis: s.openAPISourcesLocked(), env: s.environmentLocked()}
}

// workspaceSnapshot is the project as this session sees it now: its
// environment's configuration, its kind map and descriptions, and the
// server's time limits and engine level. Its views read it, and its runs
// and test runs are given it: one snapshot, made in one place.
func (s *session) workspaceSnapshot() workspace.Snapshot {
	s.mu.Lock()
	parts := s.snapshotPartsLocked()
	s.mu.Unlock()
	return s.snapshotOf(parts)
}

// snapshotOf makes the snapshot of p; its registry's first load happens
// here, outside s.mu.
func (s *session) snapshotOf(p snapshotParts) workspace.Snapshot {
	ws := workspace.NewSnapshot(p.reg.Get(), p.kinds, p.apis, s.srv.ws.Descriptions(), &s.apiCache, &s.recorded).
		WithAnswers(s.srv.ws.AnswerDescriptions(), &s.answerCache)
	ws.Environment = p.env
	ws.TimeLimits = s.srv.ws.TimeLimits()
	ws.EngineLevel = s.srv.ws.EngineLevel()
	return ws
}

// scriptViewOf is viewOf for the script features (completion, hover,
// signature help, definition, code actions): a test file is YAML, never
// read as a script.
func (s *session) scriptViewOf(u uri.URI) (view, bool) {
	if isTestDocument(hostPaths.fsPath(u)) {
		return view{}, false
	}
	return s.viewOf(u)
}

// markDirty queues documents (none: every open one) for diagnostics.
func (s *session) markDirty(uris ...uri.URI) {
	if len(uris) == 0 {
		uris = s.openURIs()
	}
	s.diagnostics.mark(false, uris...)
}

// markConfigDirty queues config diagnostics, status and every document.
func (s *session) markConfigDirty() {
	s.diagnostics.mark(true, s.openURIs()...)
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
	s.recorded.Forget()
	s.markConfigDirty()
}

// restartMessage is said once per session when configuration files change
// (docs/api.md#service-configuration: the platform reads its configuration
// only at startup).
const restartMessage = "restls reloaded the service configuration. The platform itself applies a configuration change only after webforms-rest is restarted (docs/api.md#service-configuration); until then scripts on the server still see the old services."

func isConfigFile(path string, files []string) bool {
	for _, f := range files {
		if sameFile(f, path) {
			return true
		}
	}
	return false
}

func sameFile(a, b string) bool {
	return hostPaths.same(cleanAbs(a), cleanAbs(b))
}
