package lsp

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"
	"golang.org/x/sync/semaphore"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/dryrun/history"
	"github.com/restls/restls/workspace"
)

// Options configure a Server.
type Options struct {
	// Session is the project the server serves: its registries per
	// environment, descriptions and open documents' texts (one per
	// process; cmd/restls makes it). nil: one made of Sources, Load,
	// OpenAPI and ScriptKinds, with no environments.
	Session *workspace.Session
	// Sources are the configuration sources used when a session does not name
	// its own (command-line flags and RESTLS_* variables). Settings sent by
	// the editor override them field by field. Only for a Session made
	// here.
	Sources config.Sources
	// Logger receives the server's logs; nil discards them. It must never
	// write to the LSP stream (stdout in stdio mode).
	Logger *zap.Logger
	// Runner runs a script for the restls.runScript command: the run
	// engine's Run (engine.RunFunc), which decides the kind, the
	// fixtures, the isolation, the answer checks and the history, behind
	// web's gate over HTTP. cmd/restls injects it. nil makes the command
	// answer that dry runs are not available.
	Runner engine.RunFunc
	// Faults are what restls.exploreFaults needs of cmd/restls; without
	// Faults.Run the command answers that exploration is not available.
	Faults FaultOptions
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
}

// ErrNoShutdown is returned by ServeStream when the client ended the
// session without a shutdown request (exit without shutdown, or the stream
// closed). The LSP specification asks a stdio server to exit with status 1
// then.
var ErrNoShutdown = errors.New("lsp: session ended without a shutdown request")

// Server is the language server's protocol state every session shares:
// its sessions and the project indexes they navigate. Every workspace
// question goes to its workspace.Session (ws). It is safe for concurrent
// use; one Server serves any number of sessions.
type Server struct {
	opts Options
	log  *zap.Logger
	slog *slog.Logger
	ws   *workspace.Session

	mu       sync.Mutex
	sessions map[*session]struct{}
	nextID   int

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
	if opts.PollInterval == 0 {
		opts.PollInterval = 2 * time.Second
	}
	if opts.DiagnosticsDelay == 0 {
		opts.DiagnosticsDelay = 50 * time.Millisecond
	}
	ws := opts.Session
	if ws == nil {
		ws = workspace.NewSession(workspace.SessionOptions{Sources: opts.Sources, Load: opts.Load, Kinds: opts.ScriptKinds, APIs: opts.OpenAPI,
			DescriptionDelay: workspace.FirstLoadDelay, Logger: opts.Logger})
	}
	s := &Server{
		parses:   semaphore.NewWeighted(parseBudget),
		opts:     opts,
		log:      opts.Logger,
		slog:     slog.New(zapslog.NewHandler(opts.Logger.Core(), zapslog.WithName("protocol"))),
		ws:       ws,
		sessions: map[*session]struct{}{},
	}
	ws.OnDescriptionsLoaded(func() {
		for _, ses := range s.sessionList() {
			ses.markConfigDirty()
		}
	})
	// The answers' schemas: for the fixture files beside open scripts
	// (publishFixtures).
	ws.OnAnswersLoaded(func() {
		for _, ses := range s.sessionList() {
			ses.markDirty()
		}
	})
	ws.OnReload(s.reloaded)
	return s
}

// Session is the workspace session the server serves.
func (s *Server) Session() *workspace.Session { return s.ws }

// reloaded tells the sessions that the workspace read a registry again:
// after Reload, every session's own registry is read again too and every
// open script diagnosed again; after a file change of the default
// environment, the sessions that read it hear of it.
func (s *Server) reloaded(r workspace.Reload) {
	for _, ses := range s.sessionList() {
		own := ses.ownRegistry()
		switch {
		case !r.FromFiles:
			if own != nil {
				own.Reload()
			}
			ses.registryReloaded(false)
		case own == nil:
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
	defer s.ws.DropOverlays(id)

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
	// Out of the list before waiting: the workspace's hooks (a
	// description loaded, a reload) start no more work in it.
	s.mu.Lock()
	delete(s.sessions, ses)
	s.mu.Unlock()
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
