package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/lsp"
	"github.com/restls/restls/remote"
	"github.com/restls/restls/web"
)

// httpServe is serve's HTTP mode; a variable so tests can watch it bind.
var httpServe = &httpFlags{}

func init() {
	h := httpServe
	addServeMode(serveMode{
		register: h.register,
		selected: func() bool { return h.fs != nil && flagGiven(h.fs, "http") },
		options:  h.options,
		start:    h.start,
		run:      h.run,
	})
}

// envHTTPToken holds the bearer token, so it need not appear in the process
// list.
const envHTTPToken = "RESTLS_HTTP_TOKEN"

// httpFlags are the flags of serve's HTTP mode (docs/http.md) and of
// registryUrl. serve.go registers them and hands over when --http is given.
type httpFlags struct {
	addr          string
	token         string
	origins       stringList
	hosts         stringList
	readTimeout   time.Duration
	allowRun      bool
	registryURL   string
	registryToken string
	refresh       time.Duration
	grace         time.Duration
	metrics       bool
	metricsAddr   string
	ops           *web.Ops

	fs      *flag.FlagSet
	remotes *remotes
	runner  web.Runner // serve's dry-run runner, shared with /lsp sessions

	onListen func(net.Addr) // tests: the bound address
}

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func (h *httpFlags) register(fs *flag.FlagSet) {
	*h = httpFlags{fs: fs, onListen: h.onListen}
	fs.StringVar(&h.addr, "http", "", "serve the hints API, the designer page and the language server over WebSocket on this `address` (\":7373\" and \"\" mean "+web.DefaultAddr+"); stdin is not read unless --stdio is also given")
	fs.StringVar(&h.token, "token", "", "bearer `token` required on every HTTP request (or set "+envHTTPToken+"); required when --http binds a non-loopback address. "+
		"Without it, reading is open on loopback and a secret made at start (in the page address printed on stderr) is needed to run scripts or reload")
	fs.Var(&h.origins, "allow-origin", "allow this `origin` (scheme://host[:port]) to call the API and open /lsp from another page (repeatable); no CORS otherwise")
	fs.Var(&h.hosts, "allow-host", "also answer requests whose Host header is this `host[:port]` (repeatable; without a port, any port), e.g. the name a reverse proxy or your DNS gives this server; "+
		"otherwise only the loopback names and the address it listens on are answered (421 for any other, which is what a DNS rebinding attack sends)")
	fs.DurationVar(&h.readTimeout, "read-timeout", 30*time.Second, "how long one HTTP request, body included, may take to arrive (not /lsp WebSockets)")
	fs.BoolVar(&h.allowRun, "allow-run", false, "enable POST /v1/run and restls.runScript over WebSocket: dry runs execute the script and call the configured services")
	fs.StringVar(&h.registryURL, "registry-url", "", "load the serviceId hints from another restls backend at this `url` (its /v1/services) instead of local configuration files")
	fs.StringVar(&h.registryToken, "registry-token", "", "bearer `token` for --registry-url")
	fs.DurationVar(&h.refresh, "registry-refresh", 30*time.Second, "how often --registry-url is fetched again")
	fs.DurationVar(&h.grace, "shutdown-grace", 5*time.Second, "on SIGINT/SIGTERM, how long in-flight HTTP requests may take to finish")
	fs.BoolVar(&h.metrics, "metrics", false, "serve Prometheus metrics at /metrics on the --http address (behind --token like every endpoint)")
	fs.StringVar(&h.metricsAddr, "metrics-addr", "", "also serve /metrics, /healthz and /readyz, without the token, on this `address` (an internal port for a scraper and probes)")
}

// flagGiven reports whether the command line set the flag (even to its
// default, as in --http "").
func flagGiven(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// options applies registryUrl (the --registry-url flag and the editor's
// registryUrl setting, in every mode, stdio too) and keeps dry runs off
// the network unless --allow-run.
func (h *httpFlags) options(o *lsp.Options, log *zap.Logger) error {
	if h.refresh <= 0 {
		return fmt.Errorf("--registry-refresh must be positive, got %v", h.refresh)
	}
	if h.readTimeout <= 0 {
		return fmt.Errorf("--read-timeout must be positive, got %v", h.readTimeout)
	}
	h.remotes = &remotes{byURL: map[string]*remote.Loader{}, log: log.Named("remote")}
	if h.registryURL != "" {
		l, err := remote.New(h.registryURL, remote.Options{Token: h.registryToken, Logger: h.remotes.log})
		if err != nil {
			return fmt.Errorf("--registry-url: %v", err)
		}
		h.remotes.byURL[h.registryURL] = l
		o.Sources.RegistryURL = h.registryURL
	}
	files := o.Load
	if files == nil {
		files = config.Load
	}
	// Locals, not h: Load runs on the server's goroutines.
	httpMode, rs := flagGiven(h.fs, "http"), h.remotes
	defaults := o.Sources
	o.Load = func(src config.Sources) *config.Snapshot {
		if httpMode && !src.Equal(defaults) {
			// Over HTTP, settings come from any client that can open /lsp:
			// honouring their sources would let them make this server read
			// other files (and send back what the parser says about them)
			// or fetch any address.
			return notLoaded(src, codeSourcesRefused, "configuration sources in editor settings (configRoot, properties, serviceXml, handlerXml, "+
				"platformConfig, registryUrl) are not honoured by restls serve --http, since any designer client could "+
				"make the server read other files or fetch any address; start it with the config flags or --registry-url instead")
		}
		if src.RegistryURL == "" {
			return files(src)
		}
		l, err := rs.get(src.RegistryURL)
		if err != nil {
			return notLoaded(src, remote.CodeUnreachable, err.Error())
		}
		return l.Load(src)
	}
	if httpMode {
		// Before the language server: readiness and metrics see every load.
		h.ops = web.NewOps(web.OpsOptions{Metrics: h.metrics || h.metricsAddr != "", Version: versionString()})
		o.Load = h.ops.WrapLoad(o.Load)
		o.Runner = h.ops.WrapRunner(o.Runner)
	}
	h.runner = o.Runner
	if httpMode && !h.allowRun {
		// Over WebSocket restls.runScript would run code for any client.
		o.Runner = nil
	}
	return nil
}

// remotes are the registry backends in use: the flag's, and those named by
// editors' registryUrl settings. Only the flag's gets --registry-token: a
// URL from an editor's settings must not receive it.
type remotes struct {
	mu    sync.Mutex
	byURL map[string]*remote.Loader
	log   *zap.Logger
}

func (r *remotes) get(url string) (*remote.Loader, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if l := r.byURL[url]; l != nil {
		return l, nil
	}
	l, err := remote.New(url, remote.Options{Logger: r.log})
	if err != nil {
		return nil, err
	}
	r.byURL[url] = l
	return l, nil
}

func (r *remotes) list() []*remote.Loader {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*remote.Loader, 0, len(r.byURL))
	for _, l := range r.byURL {
		out = append(out, l)
	}
	return out
}

// codeSourcesRefused: over HTTP, editor settings may not choose sources.
const codeSourcesRefused = "http-settings-sources-refused"

// notLoaded is a snapshot with no serviceId hints and the reason.
func notLoaded(src config.Sources, code, why string) *config.Snapshot {
	return config.FailedSnapshot(src, config.Diagnostic{Severity: config.SeverityError, Code: code, Message: why})
}

// start refreshes every remote registry in use until ctx ends, and reloads
// srv (re-diagnosing every open script) when one of them changed.
func (h *httpFlags) start(ctx context.Context, srv *lsp.Server) {
	refreshRemotes(ctx, h.refresh, h.remotes, srv)
}

func refreshRemotes(ctx context.Context, every time.Duration, rs *remotes, srv *lsp.Server) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			changed := false
			for _, l := range rs.list() {
				if l.Refresh(ctx) {
					rs.log.Info("registry backend answer changed; reloading", zap.String("registryUrl", l.String()))
					changed = true
				}
			}
			if changed {
				srv.Reload()
			}
		}
	}
}

// run serves HTTP until ctx ends; with an explicit --stdio it also serves
// the editor on stdin/stdout and stops when that session ends.
func (h *httpFlags) run(ctx context.Context, env *cliEnv, srv *lsp.Server, log *zap.Logger) int {
	addr, err := h.checkHTTP(env.getenv)
	if err != nil {
		fmt.Fprintf(env.stderr, "restls serve: %v\n", err)
		return 2
	}
	runner := web.Runner(nil)
	if h.allowRun {
		runner = h.runner
	}
	if !flagGiven(h.fs, "stdio") {
		return serveHTTP(ctx, env, h, addr, srv, runner, versionString(), log)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stdioDone := make(chan int, 1)
	go func() {
		stdioDone <- serveStdio(ctx, env, srv, log)
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
	addr = web.NormalizeAddr(h.addr)
	if !web.IsLoopback(addr) && h.token == "" {
		return "", fmt.Errorf("--http %s binds a non-loopback address: anyone who can reach it could read the service configuration%s; give --token (or %s), or bind 127.0.0.1",
			addr, map[bool]string{true: " and run scripts", false: ""}[h.allowRun], envHTTPToken)
	}
	return addr, nil
}

// serveHTTP runs the HTTP backend on srv until ctx ends (SIGINT/SIGTERM in
// serve), then shuts down gracefully. It returns the exit status.
func serveHTTP(ctx context.Context, env *cliEnv, h *httpFlags, addr string, srv *lsp.Server, runner web.Runner, version string, log *zap.Logger) int {
	if !h.allowRun {
		runner = nil
	}
	ws, err := web.New(web.Options{LSP: srv, Token: h.token, AllowOrigins: h.origins, AllowHosts: h.hosts, ReadTimeout: h.readTimeout,
		Runner: runner, Logger: log.Named("http"), Version: version,
		Ops: h.ops, ServeMetrics: h.metrics, OpsAddr: h.metricsAddr, ReloadOnHangup: true})
	if err != nil {
		fmt.Fprintf(env.stderr, "restls serve: %v\n", err)
		return 2
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(env.stderr, "restls serve: cannot listen on %s: %v\n", addr, err)
		return 1
	}
	if !web.IsLoopback(addr) {
		log.Warn("serving on a non-loopback address: every request needs the bearer token; prefer TLS in front (a reverse proxy)", zap.String("addr", addr))
	}
	if h.allowRun {
		log.Warn("dry runs enabled over HTTP (--allow-run): clients can execute scripts that call the configured services")
	}
	log.Info("serving HTTP", zap.String("url", "http://"+ln.Addr().String()+"/"), zap.Bool("token", h.token != ""),
		zap.Strings("allowOrigins", h.origins), zap.Strings("allowHosts", h.hosts), zap.Bool("allowRun", h.allowRun))
	// Once, on stderr, never in the log: the page address carries the
	// secret that lets the page run scripts (none when --token is given).
	fmt.Fprintf(env.stderr, "restls serve: designer and hints API on %s\n", ws.PageURL(ln.Addr()))
	if h.onListen != nil {
		h.onListen(ln.Addr())
	}
	if err := ws.Serve(ctx, ln, h.grace); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(env.stderr, "restls serve: %v\n", err)
		return 1
	}
	log.Info("HTTP server stopped")
	return 0
}
