package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/dap"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/input"
	"github.com/restls/restls/lsp"
	"github.com/restls/restls/mcp"
	scriptrt "github.com/restls/restls/runtime"
	"github.com/restls/restls/web"
	"github.com/restls/restls/workspace"
)

// envHTTPToken holds the bearer token, so it need not appear in the process
// list.
const envHTTPToken = "RESTLS_HTTP_TOKEN"

// httpFlags are the flags of serve's HTTP mode (docs/http.md). runServe
// registers them with its own and calls serve when --http is given.
type httpFlags struct {
	addr        string
	token       string
	origins     stringList
	hosts       stringList
	readTimeout time.Duration
	// debugIdle ends a designer debug session whose page sends nothing
	// for so long: the /dap socket before its launch, the child after.
	debugIdle   time.Duration
	allowRun    bool
	grace       time.Duration
	stopDelay   time.Duration
	metrics     bool
	metricsAddr string
	// sessionDocs and sessionBytes are each /lsp session's budgets.
	sessionDocs  int
	sessionBytes int64
	// admit takes one of the run engine's --max-runs slots, which POST
	// /v1/run does before reading its body.
	admit func() (*engine.Slot, bool)
	// pageURLFile receives the page address with the access key made at
	// start (--page-url-file); jsonLog is --log-format json, where no
	// plain line and no key may reach stderr.
	pageURLFile string
	jsonLog     bool
	// ops watches the server for /metrics and /readyz; runServe makes it
	// when --http is given, before the language server, so every load is
	// seen. gate decides, audits and counts every dry run (made with ops);
	// runner is the dry-run runner POST /v1/run gets (New puts it behind
	// gate; the language server's is already behind it).
	ops    *web.Ops
	gate   *web.Gate
	runner web.Runner
	// debug starts the restls dap child of a designer debug session
	// (/dap).
	debug func(ctx context.Context, snap workspace.Snapshot, allowServices []string) (*web.DebugChild, error)
	// The identity and role flags (docs/http.md, "Identity and roles").
	auth, oidcIssuer, oidcAudience, roleClaim, userHeader, groupsHeader string
	oidcSkew                                                            time.Duration
	trustedProxies                                                      stringList
	// audit is --audit FILE|-, rotated at auditMaxSize MB keeping
	// auditBackups files; auditLog is it opened (by watch), setupErr what
	// went wrong there, reported when serve starts.
	audit                      string
	auditMaxSize, auditBackups int
	auditLog                   *web.Audit
	setupErr                   error
	// project is the project file in force (its roles key), environment
	// the environment served.
	project     *workspace.Project
	environment string
	// mcp serves /mcp (mcpServer).
	mcp *mcp.Server
	// root is the project's directory (mcpServer): /mcp's paths, and the
	// test files the designer's Run tests looks through (POST /v1/test).
	root string
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func (h *httpFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&h.addr, "http", "", "serve the hints API, the designer page and the language server over WebSocket on this `address` (\":7373\" and \"\" mean "+web.DefaultAddr+"); stdin is not read unless --stdio is also given")
	fs.StringVar(&h.token, "token", "", "bearer `token` required on every HTTP request (or set "+envHTTPToken+"); required when --http binds a non-loopback address. "+
		"Without it, reading is open on loopback and a secret made at start (in the page address printed on stderr) is needed to run scripts or reload")
	fs.Var(&h.origins, "allow-origin", "allow this `origin` (scheme://host[:port]) to call the API and open /lsp from another page (repeatable); no CORS otherwise")
	fs.Var(&h.hosts, "allow-host", "also answer requests whose Host header is this `host[:port]` (repeatable; without a port, any port), e.g. the name a reverse proxy or your DNS gives this server; "+
		"otherwise only the loopback names and the address it listens on are answered (421 for any other, which is what a DNS rebinding attack sends)")
	fs.DurationVar(&h.readTimeout, "read-timeout", 30*time.Second, "how long one HTTP request, body included, may take to arrive (not /lsp WebSockets)")
	fs.DurationVar(&h.debugIdle, "debug-idle", dap.DefaultIdle, "end a designer debug session (/dap) whose page sends nothing for this `duration`, before its launch or after it (its run with it, paused or running)")
	fs.BoolVar(&h.allowRun, "allow-run", false, "enable POST /v1/run and restls.runScript over WebSocket: dry runs execute the script and call the configured services")
	fs.DurationVar(&h.grace, "shutdown-grace", 5*time.Second, "on SIGINT/SIGTERM, how long dry runs and HTTP requests in flight may take to finish (/readyz fails and new sessions and runs are refused at once; runs still going after it are stopped)")
	fs.DurationVar(&h.stopDelay, "shutdown-delay", 0, "on SIGINT/SIGTERM, how long to keep answering, not ready and refusing new sessions and runs, before draining: the time a load balancer's health checks take to notice (not needed in Kubernetes, whose preStop does it)")
	fs.BoolVar(&h.metrics, "metrics", false, "serve Prometheus metrics at /metrics on the --http address (behind --token like every endpoint)")
	fs.IntVar(&h.sessionDocs, "session-documents", web.DefaultSessionDocuments, "how many documents one /lsp session may have open (`n`); past it a document gets a session-limit diagnostic and is not checked")
	h.sessionBytes = web.DefaultSessionBytes
	fs.Func("session-bytes", "how much text the documents of one /lsp session may hold in all (bytes, or with a unit: 64MiB) (default 64MiB)", func(v string) error {
		n, err := scriptrt.ParseSize(v)
		h.sessionBytes = n
		return err
	})
	fs.StringVar(&h.pageURLFile, "page-url-file", "", "write the designer page address, with the access key made at start, to this `file` (created with mode 0600, removed when serve stops) instead of stderr; "+
		"the way to get the key with --log-format json, which never logs it (docs/http.md)")
	fs.StringVar(&h.auth, "auth", string(web.AuthKey), "who a request comes from: `mode` key (one access key: --token or the secret made at start), "+
		"oidc (an OpenID Connect token from --oidc-issuer, with roles from --role-claim and restls.yaml's roles), or proxy (the user an authenticating proxy at --trusted-proxy names)")
	fs.StringVar(&h.oidcIssuer, "oidc-issuer", "", "--auth oidc: the identity provider's issuer `URL` (its /.well-known/openid-configuration is read at start)")
	fs.StringVar(&h.oidcAudience, "oidc-audience", "", "--auth oidc: the audience (`client ID`) tokens must be issued for")
	fs.DurationVar(&h.oidcSkew, "oidc-skew", web.DefaultSkew, "--auth oidc: how long past its expiry a token is still taken (clock skew)")
	fs.StringVar(&h.roleClaim, "role-claim", web.DefaultRoleClaim, "--auth oidc: the token `claim` whose values are the user's groups, mapped to roles by restls.yaml's roles key")
	fs.StringVar(&h.userHeader, "auth-header", web.DefaultUserHeader, "--auth proxy: the `header` the proxy names the user in")
	fs.StringVar(&h.groupsHeader, "auth-groups-header", web.DefaultGroupsHeader, "--auth proxy: the `header` the proxy lists the user's groups in (comma-separated)")
	fs.Var(&h.trustedProxies, "trusted-proxy", "--auth proxy: the `CIDR` (or address) the authenticating proxy connects from (repeatable); requests from anywhere else are refused")
	fs.StringVar(&h.audit, "audit", "", "append one JSON line per dry run and per reload to this `file` (- for stderr): who, role, script hash, mode, calls, outcome; never a credential or body")
	fs.IntVar(&h.auditMaxSize, "audit-max-size", 100, "rotate the --audit file when it reaches this many `MB`")
	fs.IntVar(&h.auditBackups, "audit-max-backups", 10, "keep this many rotated --audit files (`n`)")
	fs.StringVar(&h.metricsAddr, "metrics-addr", "", "also serve /metrics, /healthz and /readyz, without the token, on this `address` (an internal port for a scraper and probes)")
}

// watch makes the operators' view of the server (metrics, readiness) and
// the gate of dry runs (--allow-run, roles, audit), and wraps load and
// runner so they see every registry load and dry run. The runner it
// returns is the language server's, behind the gate.
func (h *httpFlags) watch(load func(config.Sources) *config.Snapshot, runner web.Runner, env *cliEnv, cf *configFlags) (func(config.Sources) *config.Snapshot, web.Runner) {
	h.ops = web.NewOps(web.OpsOptions{Metrics: h.metrics || h.metricsAddr != "", Version: versionString()})
	h.project, h.environment = cf.project, cf.envs.Default()
	if h.audit != "" {
		h.auditLog, h.setupErr = web.OpenAudit(web.AuditOptions{File: h.audit, Stderr: env.stderr, MaxSizeMB: h.auditMaxSize, MaxBackups: h.auditBackups})
	}
	h.gate = web.NewGate(web.GateOptions{AllowRun: h.allowRun, Environment: h.environment, Audit: h.auditLog, Ops: h.ops})
	h.runner = h.ops.WrapRunner(runner)
	return h.ops.WrapLoad(load), h.gate.Wrap(h.runner)
}

// mcpServer makes the server of /mcp: the MCP server over sess, the
// session the language server reads, its dry runs eng's behind the gate,
// which decides by role whether one may go live: the run tool's, and the
// test and faults tools' (each case, each rerun: one run in a child,
// admitted and audited as any other).
func (h *httpFlags) mcpServer(cf *configFlags, sess *workspace.Session, eng *engine.Engine, log *zap.Logger) error {
	root, err := projectRoot("", cf.projectFile())
	if err != nil {
		return err
	}
	h.root = root
	o, err := newMCP(cf, sess, root)
	if err != nil {
		return err
	}
	o.Run, o.AllowLive, o.Logger, o.Remote = mcp.Runner(h.gate.WrapEngine(eng.Run)), true, log.Named("mcp"), true
	o.Tests = o.Run
	h.mcp, err = mcp.New(o)
	return err
}

// authOptions are the identity flags as web takes them.
func (h *httpFlags) authOptions() web.AuthOptions {
	o := web.AuthOptions{Mode: web.AuthMode(h.auth), Issuer: h.oidcIssuer, Audience: h.oidcAudience, Skew: h.oidcSkew, RoleClaim: h.roleClaim,
		UserHeader: h.userHeader, GroupsHeader: h.groupsHeader, TrustedProxies: h.trustedProxies}
	if h.project != nil {
		o.Roles = h.project.Roles
	}
	return o
}

// check validates the flags whose values alone can be wrong, --http given
// or not.
func (h *httpFlags) check() error {
	if h.readTimeout <= 0 || h.debugIdle <= 0 {
		return fmt.Errorf("--read-timeout and --debug-idle must be positive, got %v and %v", h.readTimeout, h.debugIdle)
	}
	if h.sessionDocs <= 0 || h.sessionBytes <= 0 {
		return fmt.Errorf("--session-documents and --session-bytes must be positive, got %d and %d", h.sessionDocs, h.sessionBytes)
	}
	if !slices.Contains(web.AuthModes, web.AuthMode(h.auth)) {
		return fmt.Errorf("--auth %q: give key, oidc or proxy", h.auth)
	}
	if h.stopDelay < 0 || h.grace < 0 {
		return fmt.Errorf("--shutdown-delay and --shutdown-grace must not be negative, got %v and %v", h.stopDelay, h.grace)
	}
	if h.auditMaxSize <= 0 || h.auditBackups <= 0 {
		return fmt.Errorf("--audit-max-size and --audit-max-backups must be positive, got %d and %d", h.auditMaxSize, h.auditBackups)
	}
	return nil
}

// serve serves HTTP on srv until ctx ends; with withStdio (an explicit
// --stdio) it also serves the editor on stdin/stdout and stops when that
// session ends. The dry runs are watch's runner, behind its gate.
func (h *httpFlags) serve(ctx context.Context, env *cliEnv, srv *lsp.Server, withStdio bool, log *zap.Logger) int {
	defer h.auditLog.Close()
	if h.setupErr != nil {
		h.fail(env, log, h.setupErr.Error())
		return 2
	}
	addr, err := h.checkHTTP(env.getenv)
	if err != nil {
		h.fail(env, log, err.Error())
		return 2
	}
	runner := h.runner
	if !withStdio {
		return serveHTTP(ctx, env, h, addr, srv, runner, versionString(), log)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stdioDone := make(chan int, 1)
	go func() {
		session := web.StdioSession()
		stdioDone <- serveStdio(ctx, env, srv, &session, log)
		cancel()
	}()
	if rc := serveHTTP(ctx, env, h, addr, srv, runner, versionString(), log); rc != 0 {
		return rc
	}
	return <-stdioDone
}

// checkHTTP validates the HTTP flags before anything starts; the error is
// a usage error (exit 2).
func (h *httpFlags) checkHTTP(getenv func(string) string) (addr string, err error) {
	if h.token == "" {
		h.token = getenv(envHTTPToken)
	}
	// The access key, once read, leaves the environment, so that no
	// process serve starts (a dry run's child, a debug session's restls
	// dap) inherits it: neither needs it.
	_ = os.Unsetenv(envHTTPToken)
	addr = web.NormalizeAddr(h.addr)
	if err := web.CheckListen(addr, h.webOptions(nil, nil, nil)); err != nil {
		return "", err
	}
	return addr, nil
}

// serveHTTP runs the HTTP backend on srv until ctx ends (SIGINT/SIGTERM in
// serve), then shuts down gracefully. It returns the exit status.
func serveHTTP(ctx context.Context, env *cliEnv, h *httpFlags, addr string, srv *lsp.Server, runner web.Runner, version string, log *zap.Logger) int {
	ws, err := web.New(h.webOptions(srv, runner, log))
	if err != nil {
		h.fail(env, log, err.Error())
		return 2
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		h.fail(env, log, fmt.Sprintf("cannot listen on %s: %v", addr, err))
		return 1
	}
	if !web.IsLoopback(addr) && h.auth == string(web.AuthKey) {
		log.Warn("serving on a non-loopback address: every request needs the bearer token; prefer TLS in front (a reverse proxy)", zap.String("addr", addr))
	}
	if h.auth != string(web.AuthKey) && (h.project == nil || h.project.Roles == nil) {
		log.Warn("no roles key in the project file: every signed-in user has the role viewer (hints, no dry runs); map groups to roles in restls.yaml (docs/http.md)", zap.String("auth", h.auth))
	}
	if h.allowRun {
		log.Warn("dry runs enabled over HTTP (--allow-run): clients can execute scripts that call the configured services")
	}
	log.Info("serving HTTP", zap.String("url", "http://"+ln.Addr().String()+"/"), zap.Bool("token", h.token != ""),
		zap.Strings("allowOrigins", h.origins), zap.Strings("allowHosts", h.hosts), zap.Bool("allowRun", h.allowRun), zap.String("auth", h.auth),
		zap.Bool("audit", h.auditLog != nil))
	remove, err := h.announce(env, ws.PageURL(ln.Addr()), "http://"+ln.Addr().String()+"/", log)
	if err != nil {
		h.fail(env, log, fmt.Sprintf("--page-url-file: %v", err))
		_ = ln.Close()
		return 1
	}
	defer remove()
	onHangup(ctx, ws.ReloadBySignal)
	if err := ws.Serve(ctx, ln, h.grace); err != nil && !errors.Is(err, context.Canceled) {
		h.fail(env, log, err.Error())
		return 1
	}
	log.Info("HTTP server stopped")
	return 0
}

// webOptions are the flags as web.New takes them (log may be nil for a
// check before anything starts).
func (h *httpFlags) webOptions(srv *lsp.Server, runner web.Runner, log *zap.Logger) web.Options {
	if log == nil {
		log = zap.NewNop()
	}
	var ws *workspace.Session
	if srv != nil {
		ws = srv.Session()
	}
	return web.Options{LSP: srv, Session: ws, Token: h.token, AllowOrigins: h.origins, AllowHosts: h.hosts, ReadTimeout: h.readTimeout,
		SessionDocuments: h.sessionDocs, SessionBytes: h.sessionBytes, Admit: h.admit, DebugIdle: h.debugIdle,
		Runner: runner, Debug: h.debug, Gate: h.gate, Auth: h.authOptions(), Logger: log.Named("http"), Version: versionString(),
		Ops: h.ops, ServeMetrics: h.metrics, OpsAddr: h.metricsAddr, StopDelay: h.stopDelay, MCP: h.mcp,
		TestRoot: h.root}
}

// announce tells the person who started the server where the page is.
// The page address (pageURL) carries the secret made at start that lets
// the page run scripts (none when --token is given, then it is plain), so
// it never enters the log: with --page-url-file it goes to that file alone
// (mode 0600); otherwise, in console format, to one plain line on stderr
// (a person at a terminal); in JSON format, where every line is a log
// entry a collector stores, nowhere, and the log says how to get it. The
// returned func removes the file when serve stops.
func (h *httpFlags) announce(env *cliEnv, pageURL, plain string, log *zap.Logger) (remove func(), err error) {
	remove = func() {}
	hasKey := pageURL != plain
	if h.pageURLFile != "" {
		if err := input.WritePrivate(h.pageURLFile, []byte(pageURL+"\n")); err != nil {
			return remove, fmt.Errorf("%s: %w; name a regular file, or a path where one can be created", h.pageURLFile, err)
		}
		remove = func() { _ = os.Remove(h.pageURLFile) }
		if h.jsonLog {
			log.Info("designer and hints API", zap.String("url", plain), zap.String("pageURLFile", h.pageURLFile))
		} else {
			fmt.Fprintf(env.stderr, "restls serve: designer and hints API on %s (the page address with its access key is in %s)\n", plain, h.pageURLFile)
		}
		return remove, nil
	}
	switch {
	case !h.jsonLog:
		fmt.Fprintf(env.stderr, "restls serve: designer and hints API on %s\n", pageURL)
	case hasKey:
		log.Warn("designer and hints API; the page's access key (needed to run scripts and reload) is not logged: give --page-url-file FILE to receive the page address with it, or --token",
			zap.String("url", plain))
	default:
		log.Info("designer and hints API", zap.String("url", plain))
	}
	return remove, nil
}

// fail reports an error that ends serve: a log entry in JSON format
// (every line on stderr is JSON there), the usual "restls serve:" line
// otherwise.
func (h *httpFlags) fail(env *cliEnv, log *zap.Logger, msg string) {
	if h.jsonLog {
		log.Error(msg)
		return
	}
	fmt.Fprintf(env.stderr, "restls serve: %s\n", msg)
}
