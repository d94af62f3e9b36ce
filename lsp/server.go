package lsp

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"
	"golang.org/x/sync/semaphore"

	"github.com/restls/restls/config"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/dryrun/history"
	"github.com/restls/restls/workspace"
)

// Options configure a Server.
type Options struct {
	// Sources are the configuration sources used when a session does not name
	// its own (command-line flags and RESTLS_* variables). Settings sent by
	// the editor override them field by field.
	Sources config.Sources
	// Logger receives the server's logs; nil discards them. It must never
	// write to the LSP stream (stdout in stdio mode).
	Logger *zap.Logger
	// Runner runs a script for the restls.runScript command. The lsp package
	// does not import the runtime; cmd/restls injects it. nil makes the
	// command answer that dry runs are not available.
	Runner func(ctx context.Context, req workspace.RunRequest) (*dryrun.Result, error)
	// History keeps the dry runs of sessions that keep theirs on disk
	// (cmd/restls gives editors a history.Dir under the user cache
	// directory); nil keeps every session's runs in memory, for that
	// session only.
	History history.Store
	// Tests serve the test files (*.test.yaml): lenses, diagnostics and
	// the restls.runTests, restls.updateTest and restls.listTests
	// commands. cmd/restls injects scripttest's (lsp runs no script);
	// the zero value leaves test files alone.
	Tests Tests
	// PollInterval is how often configuration files are checked for changes
	// when the editor does not watch them for us. Zero means 2s; a negative
	// value turns our own watching off.
	PollInterval time.Duration
	// DiagnosticsDelay is how long a burst of changes must pause before the
	// open scripts are diagnosed again (parsing a 10,000-line script takes
	// about 100 ms, so diagnosing at every keystroke would keep a core busy
	// while the user types). Zero means 50ms; negative means no delay.
	DiagnosticsDelay time.Duration
	// Version is reported in serverInfo.
	Version string
	// Load reads a configuration; nil means config.Load. lsp reads only
	// files; cmd/restls injects remote.Pool.Load, which also fetches the
	// sources that name a registryUrl. Sessions whose SessionOptions refuse
	// sources never call it with sources of their own.
	Load func(config.Sources) *config.Snapshot
	// OpenAPI are the API descriptions used when a session's settings name
	// none (--openapi). They load in the background.
	OpenAPI []workspace.APISource
	// Project is the project file (restls.yaml) whose keys Sources,
	// OpenAPI and ScriptKinds hold, under the flags; "" when there is
	// none. restls/status names it.
	Project string
	// ScriptKinds is the kind map used when a session's settings give no
	// scriptKinds (the project file's).
	ScriptKinds config.KindMap
	// Environments are the project file's environments, each its complete
	// sources under the flags; a session's "environment" setting picks one
	// in place of Sources. Environment names the one Sources is (the file's
	// default, or --env).
	Environments map[string]config.Sources
	Environment  string
}

// ErrNoShutdown is returned by ServeStream when the client ended the
// session without a shutdown request (exit without shutdown, or the stream
// closed). The LSP specification asks a stdio server to exit with status 1
// then.
var ErrNoShutdown = errors.New("lsp: session ended without a shutdown request")

// Server is the state every session shares: options and the default
// registry. It is safe for concurrent use; one Server serves any number of
// sessions.
type Server struct {
	opts   Options
	log    *zap.Logger
	slog   *slog.Logger
	shared *workspace.Registry
	apis   *workspace.Descriptions
	// answerAPIs keep the answers' schemas, for the fixture checks.
	answerAPIs *workspace.Descriptions
	// apiSets attaches Options.OpenAPI for APIServices; answerSets attaches
	// them from answerAPIs for CheckRunAnswers (an Attachments caches the
	// sets of one store).
	apiSets, answerSets workspace.Attachments

	mu       sync.Mutex
	sessions map[*session]struct{}
	nextID   int
	// envs are the registries of the project file's other environments,
	// made by EnvironmentSnapshot.
	envs map[string]*workspace.Registry

	// nav holds the project indexes (project_index.go); issue 26.
	nav navIndexes

	// parses bounds the script text the sessions parse at once
	// (parseBudget).
	parses *semaphore.Weighted
}

// NewServer returns a Server. It reads no configuration until a session
// needs it.
func NewServer(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Load == nil {
		opts.Load = config.Load
	}
	if opts.PollInterval == 0 {
		opts.PollInterval = 2 * time.Second
	}
	if opts.DiagnosticsDelay == 0 {
		opts.DiagnosticsDelay = 50 * time.Millisecond
	}
	s := &Server{
		parses: semaphore.NewWeighted(parseBudget),
		opts:   opts,
		log:    opts.Logger,
		slog:   slog.New(zapslog.NewHandler(opts.Logger.Core(), zapslog.WithName("protocol"))),
		shared: workspace.NewRegistry(opts.Sources, opts.Load, opts.Logger),
		apis:   workspace.NewDescriptions(opts.Logger, workspace.FirstLoadDelay),
		// answerAPIs: the descriptions with their answers' schemas, for
		// the fixture files beside open scripts (publishFixtures).
		answerAPIs: workspace.NewAnswerDescriptions(opts.Logger, workspace.FirstLoadDelay),
		sessions:   map[*session]struct{}{},
	}
	s.apis.OnLoaded(func() {
		for _, ses := range s.sessionList() {
			ses.markConfigDirty()
		}
	})
	s.answerAPIs.OnLoaded(func() {
		for _, ses := range s.sessionList() {
			ses.markDirty()
		}
	})
	return s
}

// Snapshot returns the current snapshot of the default sources.
func (s *Server) Snapshot() *config.Snapshot { return s.shared.Get() }

// Environments are the project file's environments, sorted, and the one
// the default sources are; nil and "" when the file defines none.
func (s *Server) Environments() (names []string, current string) {
	if len(s.opts.Environments) == 0 {
		return nil, s.opts.Environment
	}
	return slices.Sorted(maps.Keys(s.opts.Environments)), s.opts.Environment
}

// EnvironmentSnapshot is the current snapshot of the project file's
// environment name (the server's own registry for the default one),
// read on first use and kept; false when the file defines no such
// environment. A designer session's run in another environment uses it.
func (s *Server) EnvironmentSnapshot(name string) (*config.Snapshot, bool) {
	if name == "" || name == s.opts.Environment {
		return s.shared.Get(), true
	}
	src, ok := s.opts.Environments[name]
	if !ok {
		return nil, false
	}
	s.mu.Lock()
	if s.envs == nil {
		s.envs = map[string]*workspace.Registry{}
	}
	reg := s.envs[name]
	if reg == nil {
		reg = workspace.NewRegistry(src, s.opts.Load, s.log)
		s.envs[name] = reg
	}
	s.mu.Unlock()
	// Runs are rare next to keystrokes: a run sees the files as they are
	// now, without a watcher of its own.
	reg.ReloadIfChanged()
	return reg.Get(), true
}

// Reload reads the default sources and every session's own sources again;
// then every open script in every session is diagnosed again and the
// diagnostics and status are re-published.
func (s *Server) Reload() { s.reload(false) }

// reload reloads; fromFiles says a configuration file change caused it
// (sessions then tell the user about the platform restart once).
func (s *Server) reload(fromFiles bool) {
	s.shared.Reload()
	s.apis.Reload()
	s.mu.Lock()
	envs := slices.Collect(maps.Values(s.envs))
	s.mu.Unlock()
	for _, reg := range envs {
		reg.Reload()
	}
	for _, ses := range s.sessionList() {
		if own := ses.ownRegistry(); own != nil {
			own.Reload()
		}
		ses.registryReloaded(fromFiles)
	}
}

// sharedChanged is called by a session's watcher: when the default sources
// changed on disk, reload once and tell every session that uses them.
func (s *Server) sharedChanged() {
	if !s.shared.ReloadIfChanged() {
		return
	}
	s.log.Info("configuration files changed; reloaded", zap.Strings("files", s.shared.Files()))
	s.sharedReloaded()
}

// sharedReloaded tells the sessions that read the shared registry.
func (s *Server) sharedReloaded() {
	for _, ses := range s.sessionList() {
		if ses.ownRegistry() == nil {
			ses.registryReloaded(true)
		}
	}
}

func (s *Server) sessionList() []*session {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*session, 0, len(s.sessions))
	for ses := range s.sessions {
		out = append(out, ses)
	}
	return out
}

// ServeSession serves one LSP session on stream, limited by o, and returns
// when the client exits or the stream closes. It returns nil after a
// shutdown request followed by exit (or the end of the stream),
// ErrNoShutdown when the session ended without shutdown, and ctx.Err() when
// ctx was cancelled.
func (s *Server) ServeSession(ctx context.Context, stream jsonrpc2.Stream, o SessionOptions) error {
	s.mu.Lock()
	s.nextID++
	id := s.nextID
	s.mu.Unlock()

	outer := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ses := newSession(s, id, cancel)
	ses.opts = o
	ses.recorded.Allowed = o.MayAttachAPIs
	ses.history = s.historyStore(o)
	ses.answers = answersOf(stream)
	watched := &endStream{Stream: stream, onEnd: cancel}
	conn := jsonrpc2.NewConn(watched, jsonrpc2.WithCodec(codec{}))
	ses.conn = conn

	s.mu.Lock()
	s.sessions[ses] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.sessions, ses)
		s.mu.Unlock()
	}()

	ses.log.Info("session started")
	hctx := protocol.WithLogger(ctx, s.slog.With("session", id))
	ses.ctx = hctx
	var wg sync.WaitGroup
	wg.Go(func() { ses.diagnostics.run(hctx) })
	wg.Go(func() { ses.watchLoop(hctx) })
	conn.Go(hctx, ses.handle)

	select {
	case <-conn.Done():
	case <-ctx.Done():
		// Cancelled from outside, by exit, or the stream ended: unblock a
		// reader parked mid-frame and let in-flight handlers see ctx.
		_ = stream.Close()
		<-conn.Done()
	}
	cancel()
	_ = conn.Close()
	wg.Wait()
	ses.bg.Wait()

	shutdown, exited := ses.ended()
	ses.log.Info("session ended", zap.Bool("shutdown", shutdown), zap.Bool("exit", exited))
	switch {
	case shutdown:
		return nil
	case !exited && outer.Err() != nil:
		return outer.Err()
	default:
		return ErrNoShutdown
	}
}

// endStream reports the end of the input side so in-flight handlers (a dry
// run waiting on a slow service) are cancelled when the editor goes away;
// jsonrpc2 itself waits for them to drain.
type endStream struct {
	jsonrpc2.Stream
	onEnd func()
}

func (e *endStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	m, n, err := e.Stream.Read(ctx)
	if err != nil {
		e.onEnd()
	}
	return m, n, err
}
