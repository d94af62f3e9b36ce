package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/mcp"
	"github.com/restls/restls/workspace"
)

// DefaultAddr is where `restls serve --http` listens when the address names
// no host: loopback only.
const DefaultAddr = "127.0.0.1:7373"

// Runner runs a script for POST /v1/run: the run engine's Run
// (engine.RunFunc), which cmd/restls injects; the language server's and
// the MCP tool's runner is the same one.
type Runner = engine.RunFunc

// Options configure a Server.
type Options struct {
	// LSP serves /lsp; every socket is one session of it. Required.
	LSP *LSPServer
	// Session is the project every endpoint but /lsp asks (registries per
	// environment, descriptions, answer checks, reload); nil means the
	// one LSP serves.
	Session *workspace.Session
	// Snapshot returns the registry /v1/services and /v1/status report; nil
	// means the Session's default environment's.
	Snapshot func() *config.Snapshot
	// Token, when set, must be presented as "Authorization: Bearer <token>"
	// (or access_token=<token> in the query, for the page and its WebSocket,
	// which browsers cannot give headers) on every request but CORS
	// preflights. When empty, New makes a secret (PageURL carries it) that
	// guards only what runs or changes something: POST /v1/run, and
	// restls.runScript and restls.reload over /lsp.
	Token string
	// AllowHosts are host names (or addresses), with or without a port,
	// that requests may name in their Host header besides the loopback
	// names and the address the request arrived on. Anything else is
	// answered 421: a page on a name re-pointed at this server (DNS
	// rebinding) sends its own name.
	AllowHosts []string
	// ReadTimeout bounds reading one request, body included (not /lsp,
	// whose socket lives on); zero means 30s.
	ReadTimeout time.Duration
	// AllowOrigins are the origins (scheme://host[:port]) allowed to call the
	// API from another page, and to open /lsp. Nothing else gets CORS
	// headers.
	AllowOrigins []string
	// Runner runs dry runs for POST /v1/run; nil makes it answer 403. New
	// puts it behind Gate, so give it unwrapped (the language server's
	// runner is the same one, wrapped with Gate.Wrap). Wrap it with
	// Ops.WrapRunner for the dry-run metrics.
	Runner Runner
	// Debug starts the restls dap process of one designer debug session
	// on /dap (restls dap's protocol over a WebSocket), once its launch
	// is admitted: isolated as a dry run's child, with the serviceIds a
	// runner limited to some may call (nil: any), in snap's environment
	// with its sources, the server's decision, which the child must not
	// make again (and snap's registry when its services come from a
	// registryUrl: the child fetches nothing, it debugs against the
	// services a dry run would use). The launch it hears names the kind
	// the server decided. The process ends with ctx or Stop. nil
	// answers /dap 404.
	Debug func(ctx context.Context, snap workspace.Snapshot, allowServices []string) (*DebugChild, error)
	// DebugIdle closes a /dap socket that sends nothing for this long
	// before its launch (after it, the session's child has the same
	// limit: give it to Debug's process); zero means dap.DefaultIdle.
	DebugIdle time.Duration
	// TestRoot is the project directory whose test files (*.test.yaml)
	// POST /v1/test runs for the designer's Run tests: absolute and
	// clean (GET /v1/test/scripts lists the scripts they name). Empty, or
	// no Runner, answers both 404.
	TestRoot string
	// IndexPoll is how often POST /v1/test and GET /v1/test/scripts may
	// bring the project index, where they find the test files, current
	// with the disk (one walk that stats the files it holds, shared with
	// every surface polling that index); between polls they answer what
	// it holds, and what the session is told changed (FilesChanged).
	// Zero means 2s, the language server's interval; negative, never.
	IndexPoll time.Duration
	// Gate decides which runs may go (--allow-run, roles) and audits them;
	// nil means a gate that allows runs when Runner is set, with no audit.
	Gate *Gate
	// Auth says who a request comes from: the access key (the zero
	// value), an OpenID Connect token, or an authenticating proxy.
	Auth AuthOptions
	// Logger receives request and session logs; nil discards them.
	Logger *zap.Logger
	// Version is reported by /healthz and /v1/status.
	Version string
	// WriteTimeout bounds how long one WebSocket message may take to reach a
	// client before the session is dropped; zero means 10s.
	WriteTimeout time.Duration
	// SendQueue is how many messages may wait for a slow WebSocket client
	// before its session is dropped; zero means 1024.
	SendQueue int
	// PingInterval is how often an idle socket is pinged to detect a dead
	// client; zero means 30s, negative turns pings off.
	PingInterval time.Duration
	// MaxSessions caps concurrent /lsp sessions; zero means 1000.
	MaxSessions int
	// MaxMessage caps one incoming WebSocket message in bytes; zero means
	// 16 MiB.
	MaxMessage int64
	// SessionDocuments caps the documents one /lsp session may have open,
	// SessionBytes their text in all; zero means DefaultSessionDocuments
	// and DefaultSessionBytes (docs/http.md, "Security model").
	SessionDocuments int
	SessionBytes     int64
	// Admit takes one of the run engine's slots (engine.Engine.Admit,
	// --max-runs, the one admission limit of the process) before a POST
	// /v1/run's body is read: a request past it is answered 429 unread.
	// nil leaves admission to the runner alone.
	Admit func() (*engine.Slot, bool)
	// Ops serves /readyz and counts metrics; nil means readiness only.
	// Make it with NewOps before the language server (its WrapLoad).
	Ops *Ops
	// ServeMetrics mounts /metrics (Ops must have metrics) on this server,
	// behind the token like every endpoint; ServeOps serves it on a port
	// of its own instead.
	ServeMetrics bool
	// OpsAddr, when set, is a second listen address Serve answers
	// /metrics (when Ops has metrics), /healthz and /readyz on, without
	// the token: for a scraper and probes on an internal port.
	OpsAddr string
	// MCP serves /mcp (the Model Context Protocol for coding agents);
	// nil answers it 404. Its run tool's runner must be behind Gate
	// (Gate.WrapEngine).
	MCP *mcp.Server
	// StopDelay is how long a stopping server keeps its listener open,
	// not ready and refusing new sessions and runs, before it drains: the
	// time a load balancer's health checks take to stop sending it
	// requests (--shutdown-delay). Zero in Kubernetes, whose preStop does
	// it, and for one user.
	StopDelay time.Duration
}

// DefaultSessionDocuments and DefaultSessionBytes are the budgets of one
// /lsp session: a designer tab has a handful of scripts open, and 64 MiB
// is four of the largest message (MaxMessage) a socket may send.
const (
	DefaultSessionDocuments = 200
	DefaultSessionBytes     = 64 << 20
)

// Server is the HTTP handler of `restls serve --http`. It is safe for
// concurrent use.
type Server struct {
	opts Options
	log  *zap.Logger
	mux  *http.ServeMux
	cors map[string]bool
	// hosts are the --allow-host values (host or host:port).
	hosts map[string]bool
	// key is what hasKey compares with: the token, or the secret made at
	// start when there is none.
	key string
	// auth identifies requests; gate and run (Runner behind it) decide
	// dry runs.
	auth *authenticator
	gate *Gate
	run  Runner

	services etagCache

	// ctx ends every /lsp session when the server shuts down: hijacked
	// WebSocket connections are not waited for by http.Server.Shutdown.
	ctx      context.Context
	cancel   context.CancelFunc
	sessions sync.WaitGroup
	mu       sync.Mutex // orders sessions.Add before a shutdown's Wait
	closing  bool
	// draining: the server is stopping; /readyz fails, new /lsp sessions
	// and runs are refused.
	draining atomic.Bool
	slots    chan struct{}

	endHook  func(error) // tests: called when an /lsp session has ended
	stopping func()      // tests: called once a stop has begun
	// opsListening: tests: the operators' port's address.
	opsListening func(net.Addr)
}

// New returns a Server.
func New(opts Options) (*Server, error) {
	if opts.LSP == nil {
		return nil, errors.New("web: Options.LSP is required")
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Session == nil {
		opts.Session = opts.LSP.Session()
	}
	if opts.Snapshot == nil {
		opts.Snapshot = opts.Session.Registry().Get
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = 10 * time.Second
	}
	if opts.SendQueue <= 0 {
		opts.SendQueue = 1024
	}
	if opts.PingInterval == 0 {
		opts.PingInterval = 30 * time.Second
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = 1000
	}
	if opts.MaxMessage <= 0 {
		opts.MaxMessage = 16 << 20
	}
	if opts.SessionDocuments <= 0 {
		opts.SessionDocuments = DefaultSessionDocuments
	}
	if opts.SessionBytes <= 0 {
		opts.SessionBytes = DefaultSessionBytes
	}
	if opts.ReadTimeout <= 0 {
		opts.ReadTimeout = 30 * time.Second
	}
	if opts.DebugIdle <= 0 {
		opts.DebugIdle = defaultDebugIdle
	}
	if opts.Ops == nil {
		opts.Ops = NewOps(OpsOptions{})
	}
	if opts.ServeMetrics && !opts.Ops.Metrics() {
		return nil, errors.New("web: ServeMetrics needs Options.Ops made with metrics on")
	}
	cors, err := parseOrigins(opts.AllowOrigins)
	if err != nil {
		return nil, err
	}
	hosts, err := parseHosts(opts.AllowHosts)
	if err != nil {
		return nil, err
	}
	if opts.Auth.Mode != "" && opts.Auth.Mode != AuthKey && opts.Token != "" {
		return nil, fmt.Errorf("--token (or RESTLS_HTTP_TOKEN) is the access key of --auth key; with --auth %s every request is identified by %s instead: drop it", opts.Auth.Mode,
			map[AuthMode]string{AuthOIDC: "its OpenID Connect token", AuthProxy: "the proxy's user header"}[opts.Auth.Mode])
	}
	auth, err := newAuthenticator(opts.Auth)
	if err != nil {
		return nil, err
	}
	key := opts.Token
	if key == "" {
		key = newSecret()
	}
	gate := opts.Gate
	if gate == nil {
		gate = NewGate(GateOptions{AllowRun: opts.Runner != nil, Ops: opts.Ops})
	}
	s := &Server{opts: opts, log: opts.Logger, cors: cors, hosts: hosts, key: key, slots: make(chan struct{}, opts.MaxSessions),
		auth: auth, gate: gate, run: gate.Wrap(opts.Runner)}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET /healthz", s.handleHealth)
	s.mux.HandleFunc("GET /readyz", s.handleReady)
	if opts.ServeMetrics {
		s.mux.Handle("GET /metrics", opts.Ops.MetricsHandler())
	}
	s.mux.HandleFunc("GET /v1/services", s.handleServices)
	s.mux.HandleFunc("GET /v1/calls", s.handleCalls)
	s.mux.HandleFunc("GET /v1/status", s.handleStatus)
	s.mux.HandleFunc("GET /v1/schema/mock.json", s.handleMockSchema)
	s.mux.HandleFunc("GET /v1/schema/restls.json", s.handleProjectSchema)
	s.mux.Handle("POST /v1/run", s.mayRun(http.HandlerFunc(s.handleRun)))
	s.mux.HandleFunc("GET /v1/run", s.handleRun) // 405 with a hint, not the page's 404
	s.mux.Handle("POST /v1/run/plan", s.mayRun(http.HandlerFunc(s.handleRunPlan)))
	s.mux.Handle("POST /v1/mock/check", s.mayRun(http.HandlerFunc(s.handleMockCheck)))
	if opts.TestRoot != "" && opts.Runner != nil {
		s.mux.Handle("POST /v1/test", s.mayRun(http.HandlerFunc(s.handleTest)))
		s.mux.HandleFunc("GET /v1/test/scripts", s.handleTestScripts)
	}
	s.mux.HandleFunc("GET /lsp", s.handleLSP)
	if opts.Debug != nil {
		s.mux.HandleFunc("GET /dap", s.handleDAP)
	}
	if opts.MCP != nil {
		h := s.mayUseMCP(opts.MCP.Handler())
		// Stateless: POST carries every message; GET and DELETE are
		// answered 405 by the transport, not the page's 404.
		for _, m := range []string{"POST", "GET", "DELETE"} {
			s.mux.Handle(m+" /mcp", h)
		}
	}
	s.mux.Handle("GET /", pageHandler())
	return s, nil
}

// PageURL is the address of the designer page on a server listening on
// addr: with the secret in it when no token was given (restls prints it
// once at start, as notebook servers do), without it otherwise (the
// operator has the token).
func (s *Server) PageURL(addr net.Addr) string {
	u := "http://" + addr.String() + "/"
	if s.opts.Token == "" && s.auth.opts.Mode == AuthKey {
		u += "?access_token=" + s.key
	}
	return u
}

// CheckListen refuses a listen address the options must not serve: a
// non-loopback one with the access key mode and no --token, where anyone
// who can reach it could read the service configuration (and, with
// --allow-run, run scripts). cmd calls it before listening; Serve checks
// the listener's address again.
func CheckListen(addr string, o Options) error {
	if IsLoopback(addr) || o.Token != "" || (o.Auth.Mode != "" && o.Auth.Mode != AuthKey) {
		return nil
	}
	runs := ""
	if o.Gate != nil && o.Gate.opts.AllowRun || o.Gate == nil && o.Runner != nil {
		runs = " and run scripts"
	}
	return fmt.Errorf("--http %s binds a non-loopback address: anyone who can reach it could read the service configuration%s; give --token (or RESTLS_HTTP_TOKEN), "+
		"--auth oidc or --auth proxy, or bind 127.0.0.1", addr, runs)
}

// ServeHTTP implements http.Handler: Host, Origin, CORS and authentication
// first (guard.go), then the endpoints.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ce := s.log.Check(zap.DebugLevel, "request")
	if ce != nil && r.URL.Path != "/lsp" || s.opts.Ops.Metrics() {
		start, rec := time.Now(), &statusWriter{ResponseWriter: w, status: http.StatusOK}
		defer func() {
			took := time.Since(start)
			if ce != nil && r.URL.Path != "/lsp" {
				// The path only: a query may hold access_token.
				ce.Write(zap.String("method", r.Method), zap.String("path", r.URL.Path), zap.Int("status", rec.status), zap.Duration("took", took))
			}
			// The route is the endpoint's pattern, set by the mux; a request
			// refused before it (Host, Origin, key) has none.
			route := r.Pattern
			if route == "" {
				route = "refused"
			}
			s.opts.Ops.request(route, rec.status, took)
		}()
		w = rec
	}
	if !s.hostAllowed(r, r.Host) {
		s.hostRefused(w, r)
		return
	}
	if !s.originAllowed(r) {
		originRefused(w)
		return
	}
	if r.URL.Path != "/lsp" && r.Body != nil && r.Body != http.NoBody {
		s.boundBody(w)
	}
	if s.draining.Load() {
		// A proxy must not send another request on this connection: the
		// server is about to close it.
		w.Header().Set("Connection", "close")
	}
	if s.corsHeaders(w, r) {
		return // preflight answered
	}
	id, ok := s.identify(w, r)
	if !ok {
		return
	}
	// r itself is replaced: the deferred metrics read the route the mux
	// sets on the request it serves.
	r = r.WithContext(withIdentity(r.Context(), id))
	s.mux.ServeHTTP(w, r)
}

// statusWriter remembers the status for the request log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

// Unwrap lets http.ResponseController reach the connection (read
// deadlines) through the log wrapper.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// Serve serves HTTP on ln until ctx is cancelled, then shuts down
// gracefully: no new connections, open /lsp sessions are ended, in-flight
// requests get up to grace to finish.
func (s *Server) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	if err := CheckListen(ln.Addr().String(), s.opts); err != nil {
		return err
	}
	if s.opts.OpsAddr != "" {
		oln, err := net.Listen("tcp", s.opts.OpsAddr)
		if err != nil {
			return fmt.Errorf("cannot listen on the operators' address %s: %w", s.opts.OpsAddr, err)
		}
		s.log.Info("serving /metrics, /healthz and /readyz", zap.String("addr", oln.Addr().String()))
		if s.opsListening != nil {
			s.opsListening(oln.Addr())
		}
		// The operators' port outlives ctx until Serve returns: /readyz
		// answers 503 while the server drains.
		octx, stop := context.WithCancel(context.Background())
		defer stop()
		go func() {
			if err := s.ServeOps(octx, oln); err != nil {
				s.log.Warn("operators' port stopped", zap.Error(err))
			}
		}()
	}
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          zap.NewStdLog(s.log.Named("http")),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	// The first load now, not at the first request: /readyz turns ready
	// without a client, and the first designer does not wait.
	go s.opts.Snapshot()
	select {
	case err := <-errc:
		s.Close()
		return err
	case <-ctx.Done():
	}
	// Stopping (docs/http.md, "Stopping"): not ready at once, no new
	// session or run; the runs in flight get the grace period, then are
	// stopped with ErrStopped; sockets close with 1012 (service restart),
	// which the designer module answers by reconnecting.
	s.draining.Store(true)
	s.opts.Ops.stopping.Store(true)
	s.log.Info("stopping: not ready, refusing new sessions and runs; runs in flight get the grace period", zap.Duration("grace", grace),
		zap.Duration("delay", s.opts.StopDelay))
	if s.stopping != nil {
		s.stopping()
	}
	if s.opts.StopDelay > 0 {
		t := time.NewTimer(s.opts.StopDelay)
		<-t.C
	}
	deadline := time.Now().Add(grace)
	if !s.gate.drain(grace) {
		s.log.Warn("dry runs still going after the grace period: stopping them")
	}
	s.gate.halt()
	// What is left of the grace, and a moment for the answers of the runs
	// just stopped.
	sctx, cancel := context.WithDeadline(context.Background(), deadline.Add(time.Second))
	defer cancel()
	s.stopSessions()
	err := hs.Shutdown(sctx)
	done := make(chan struct{})
	go func() { s.sessions.Wait(); close(done) }()
	select {
	case <-done:
	case <-sctx.Done():
		s.log.Warn("WebSocket sessions still open after the grace period")
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// Close ends every /lsp session; for tests that serve with httptest.
func (s *Server) Close() {
	s.stopSessions()
	s.sessions.Wait()
}

// stopSessions ends every session and refuses new ones.
func (s *Server) stopSessions() {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.cancel()
}

// addSession counts a session unless the server is shutting down.
func (s *Server) addSession() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.sessions.Add(1)
	return true
}

// IsLoopback reports whether a listen address binds only loopback
// interfaces. An empty host means all interfaces.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// NormalizeAddr fills a listen address: "" or ":port" binds loopback, a
// missing port is 7373.
func NormalizeAddr(addr string) string {
	if addr == "" {
		return DefaultAddr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		// No port: the whole thing is a host.
		return net.JoinHostPort(addr, "7373")
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = "7373"
	}
	return net.JoinHostPort(host, port)
}
