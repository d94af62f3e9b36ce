package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/lsp"
	"github.com/restls/restls/remote"
	scriptrt "github.com/restls/restls/runtime"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/dryrun/history"
	"github.com/restls/restls/runtime/isolate"
	"github.com/restls/restls/workspace"
)

// serveMemoryLimit is the Go runtime's soft memory limit in serve mode
// unless GOMEMLIMIT is set, raised with a larger live heap (serveLimit);
// see "serve's memory limit" in docs/decisions.md.
const serveMemoryLimit = 128 << 20

// runServe wires one language server for every mode: the configuration
// (files, or registry backends through remote.Pool), the dry-run runner
// (runtime/isolate), and then stdio, or HTTP with --http (serve_http.go).
func runServe(env *cliEnv, args []string) int {
	fs := newFlagSet(env, "serve", "[--stdio] [--http ADDR [--token T | --auth oidc|proxy ...] [--allow-run] [--audit FILE] ...] [--openapi ID=PATH_OR_URL] [--log-file F] [--log-level L] [--log-format F] [--max-memory SIZE] [--run-timeout D] [--max-runs N] [config flags]", `
Runs the language server for api.rest.v1 scripts. Editors start it and speak
the Language Server Protocol on its stdin and stdout (--stdio, the default;
VS Code passes the flag explicitly). Nothing but protocol is ever written to
stdout: logs go to stderr or to --log-file.

The config flags (and RESTLS_* variables) are the defaults; the editor's
"restls" settings (initializationOptions or workspace/configuration:
configRoot, properties, serviceXml, handlerXml, platformConfig,
scriptKinds) override them. Configuration files are watched and reloaded.
See docs/lsp.md.

Dry runs (restls.runScript, and POST /v1/run with --http --allow-run) each
run in a child restls process, bounded by --max-memory and --run-timeout;
at most --max-runs go at once. A designer debug session (/dap) runs in a
child restls dap bounded by --max-memory, and holds one of the --max-runs
slots until it ends, paused or not.

Exit status: 0 after the editor's shutdown and exit, 1 when the session
ended without shutdown, 2 for usage errors.`)
	fs.Bool("stdio", true, "speak LSP on stdin/stdout (the default; accepted because editors pass it)")
	logFile := fs.String("log-file", "", "append logs to this `file` instead of stderr")
	logLevel := fs.String("log-level", "info", "log `level`: debug, info, warn or error")
	logFormat := fs.String("log-format", "console", "log `format`: console (one readable line per entry) or json (one JSON object per line, for log collectors)")
	maxMemory := memoryFlag(fs, "stop a dry run whose process has grown by this `size`")
	runTimeout := fs.Duration("run-timeout", scriptrt.DefaultTimeout, "interrupt a dry run after this `duration`")
	maxRuns := fs.Int("max-runs", isolate.DefaultMaxRuns, "how many dry runs may go at once (`n`); more are refused as busy (HTTP 429)")
	var openAPI openAPIFlags
	fs.Var(&openAPI, "openapi", openAPIFlagHelp)
	cf := configFlags{env: env}
	cf.register(fs)
	var rf registryFlags
	rf.register(fs)
	var hf httpFlags
	hf.register(fs)
	if rc := parseFlags(env, fs, args); rc >= 0 {
		return rc
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.stderr, "restls serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *runTimeout <= 0 || *maxRuns <= 0 {
		fmt.Fprintf(env.stderr, "restls serve: --run-timeout and --max-runs must be positive, got %v and %d\n", *runTimeout, *maxRuns)
		return 2
	}
	if cf.rootMissing("serve") {
		return 2
	}
	openAPI = cf.openAPI(openAPI)
	log, closeLog, err := serveLogger(env, *logFile, *logLevel, *logFormat)
	if err != nil {
		fmt.Fprintf(env.stderr, "restls serve: %v\n", err)
		return 2
	}
	defer closeLog()
	hf.jsonLog = *logFormat == "json"
	err = rf.check()
	if err == nil {
		err = hf.check()
	}
	if err != nil {
		fmt.Fprintf(env.stderr, "restls serve: %v\n", err)
		return 2
	}
	pool, err := remote.NewPool(remote.PoolOptions{URL: rf.url, Token: rf.token, Files: config.Load, Logger: log.Named("remote")})
	if err != nil {
		fmt.Fprintf(env.stderr, "restls serve: --registry-url: %v\n", err)
		return 2
	}
	sources := cf.sources()
	if rf.url != "" {
		sources.RegistryURL = rf.url
	}
	httpMode, withStdio := flagGiven(fs, "http"), flagGiven(fs, "stdio")
	if env.getenv("GOMEMLIMIT") == "" && env.stdout == os.Stdout { // the real process, not an in-process test
		// A sidecar next to the editor: a soft ceiling that returns the
		// memory of spikes (a registry load, a burst of parses), raised
		// with a live heap above it rather than thrash (memlimit.go).
		defer followLiveHeap()()
	}

	// Runs end with serve: a shutdown kills their processes at once rather
	// than wait out the HTTP grace period.
	runsCtx, endRuns := context.WithCancel(context.Background())
	defer endRuns()
	// The one run engine of this process: the language server's sessions
	// and POST /v1/run share it (and its --max-runs slots).
	// Its children, the dry runs' (childEngine) and the debug sessions',
	// log at this server's level.
	childLevel := *logLevel
	eng := childEngine(*maxRuns, *runTimeout, *maxMemory, childLevel, log)
	runner := scriptRunner(runsCtx, eng)
	hf.admit = eng.Admit
	load := pool.Load
	if httpMode {
		// Over HTTP, web's gate decides every run (--allow-run, roles) for
		// /v1/run and restls.runScript alike.
		load, runner = hf.watch(load, runner, env, &cf)
		// The designer's debugger (/dap): each session a restls dap
		// child, isolated as a dry run's and holding one of the engine's
		// slots while it lasts (docs/decisions.md, "Debugging").
		if hf.allowRun {
			hf.debug = debugChildren(&cf, *maxMemory, childLevel, hf.debugIdle, log.Named("debug"))
		}
	}
	// Fault explorations (restls.exploreFaults) rerun a script once per
	// call site and outcome, every rerun answered by parsed fixtures: runs
	// of the same engine (a child each, its slots), over HTTP behind the
	// same gate (a mock run: a mocker may explore), audited as the
	// exploration's.
	explore := lsp.FaultOptions{Run: scriptRunner(runsCtx, eng)}
	if httpMode {
		explore.Run = hf.gate.WrapFaults(hf.ops.WrapRunner(explore.Run))
	}
	explore.Fail, _ = cf.faultsFail("") // the file's, checked when it was read
	// The one workspace session of this process: the editor's sessions,
	// /lsp and /v1 all ask it.
	so := cf.sessionOptions(openAPI)
	so.Sources, so.Load, so.DescriptionDelay, so.Logger = sources, load, workspace.FirstLoadDelay, log
	ws := workspace.NewSession(so)
	// Closed last, after the sessions and the background work: no
	// description load outlives serve (its log lines included).
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), sessionCloseWait)
		defer cancel()
		if err := ws.Close(cctx); err != nil {
			log.Warn("workspace session not closed", zap.Error(err))
		}
	}()
	srv := lsp.NewServer(lsp.Options{
		Session: ws,
		Logger:  log,
		Runner:  runner,
		Faults:  explore,
		History: editorHistory(env, log),
		Tests:   editorTests(*runTimeout),
		Version: versionString(),
		Project: cf.projectFile(),
	})

	if httpMode {
		// /mcp: the MCP server over the same project, its runs through
		// the same engine behind the same gate.
		if err := hf.mcpServer(&cf, ws, eng, log); err != nil {
			fmt.Fprintf(env.stderr, "restls serve: %v\n", err)
			return 2
		}
	}

	// Background work ends with ctx and is waited for, so nothing of this
	// run outlives it (in-process tests run serve again).
	var bg sync.WaitGroup
	defer bg.Wait() // after stop, deferred below
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if !httpMode {
		context.AfterFunc(ctx, endRuns)
	}
	// Over HTTP, web lets the runs in flight finish within
	// --shutdown-grace, then stops them (web.Gate); endRuns, deferred,
	// ends whatever is left when serve returns.

	// Registry backends in use (--registry-url, editors' registryUrl) are
	// fetched again periodically; a change re-diagnoses every open script.
	bg.Go(func() { pool.Run(ctx, rf.refresh, ws.Reload) })
	if httpMode {
		return hf.serve(ctx, env, srv, withStdio, log)
	}
	return serveStdio(ctx, env, srv, nil, log)
}

// sessionCloseWait bounds serve's wait for the workspace session's
// description loads when it ends (a fetch is cancelled, a file read
// ends by its size bound).
const sessionCloseWait = 5 * time.Second

// registryFlags choose a registry backend instead of configuration files,
// in every mode (docs/http.md, "registryUrl").
type registryFlags struct {
	url, token string
	refresh    time.Duration
}

func (r *registryFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.url, "registry-url", "", "load the serviceId hints from another restls backend at this `url` (its /v1/services) instead of local configuration files")
	fs.StringVar(&r.token, "registry-token", "", "bearer `token` for --registry-url")
	fs.DurationVar(&r.refresh, "registry-refresh", 30*time.Second, "how often --registry-url is fetched again")
}

func (r *registryFlags) check() error {
	if r.refresh <= 0 {
		return fmt.Errorf("--registry-refresh must be positive, got %v", r.refresh)
	}
	return nil
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

// serveStdio serves one session on stdin/stdout, with every permission
// unless session says otherwise.
func serveStdio(ctx context.Context, env *cliEnv, srv *lsp.Server, session *lsp.SessionOptions, log *zap.Logger) int {
	if env.stdout == os.Stdout {
		// stdout belongs to the protocol: anything that prints to os.Stdout
		// by mistake (a dependency, a forgotten debug line) lands in stderr.
		os.Stdout = os.Stderr
	}
	rwc := stdio{r: env.stdin, w: env.stdout}
	var err error
	if session != nil {
		err = srv.ServeSession(ctx, lsp.NewStream(rwc, log), *session)
	} else {
		err = srv.ServeStream(ctx, lsp.NewStream(rwc, log))
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, lsp.ErrNoShutdown):
		log.Info("the editor ended the session without shutdown")
		return 1
	default:
		log.Info("serve ended", zap.Error(err))
		return 1
	}
}

// scriptRunner is the run engine's Run for the language server and POST
// /v1/run: a run ends when its request does or when serving does
// (serveCtx).
func scriptRunner(serveCtx context.Context, eng *engine.Engine) engine.RunFunc {
	return func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(serveCtx, cancel)()
		res, err := eng.Run(ctx, snap, req)
		if err != nil && serveCtx.Err() != nil {
			return nil, errors.New("the server is shutting down; the run was stopped")
		}
		return res, err
	}
}

// stdio joins stdin and stdout into the connection the protocol runs on.
type stdio struct {
	r io.Reader
	w io.Writer
}

func (s stdio) Read(p []byte) (int, error)  { return s.r.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.w.Write(p) }

// Close closes stdin so a read parked on it returns; stdout stays open for
// whatever the process still has to say on it (nothing, in practice).
func (s stdio) Close() error {
	if c, ok := s.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// childEngine is the run engine of a process that serves (restls serve,
// restls mcp), each dry run in a child restls: at most maxRuns at once,
// each bounded by timeout and maxMemory, the run directories of killed
// servers swept; the children log at level, the process's --log-level,
// decided here for both (it was warn whatever the flag said).
func childEngine(maxRuns int, timeout time.Duration, maxMemory int64, level string, log *zap.Logger) *engine.Engine {
	return engine.New(engine.Options{MaxRuns: maxRuns, Limits: engine.Limits{Timeout: timeout, MaxMemory: maxMemory}, Logger: log.Named("engine"), Sweep: true, LogLevel: level})
}

// serveLogger logs to file (appending) or stderr, never stdout.
func serveLogger(env *cliEnv, file, level, format string) (*zap.Logger, func(), error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, nil, fmt.Errorf("--log-level: %v (use debug, info, warn or error)", err)
	}
	if format != "console" && format != "json" {
		return nil, nil, fmt.Errorf("--log-format: unknown format %q (use console or json)", format)
	}
	w := zapcore.AddSync(env.stderr)
	closeFn := func() {}
	if file != "" {
		f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("--log-file: %v", err)
		}
		w = zapcore.AddSync(f)
		closeFn = func() { _ = f.Close() }
	}
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	encoder := zapcore.NewConsoleEncoder(enc)
	if format == "json" {
		// zap's production encoder, as collectors expect it.
		encoder = zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	}
	core := zapcore.NewCore(encoder, zapcore.Lock(w), lvl)
	return zap.New(core).Named("restls"), closeFn, nil
}

// editorHistory is where editors' dry runs are kept (docs/lsp.md, "Run
// history"); nil (each session keeps its runs in memory) when
// RESTLS_HISTORY is "off" or there is no cache directory.
func editorHistory(env *cliEnv, log *zap.Logger) history.Store {
	dir, err := historyDir(env)
	if err != nil {
		log.Info("dry runs are kept in memory only", zap.Error(err))
		return nil
	}
	return &history.Dir{Root: dir}
}

// envHistory names the run history's directory, or "off".
const envHistory = "RESTLS_HISTORY"

// historyDir is the run history's directory: $RESTLS_HISTORY, else the
// user cache directory's restls/history.
func historyDir(env *cliEnv) (string, error) {
	switch v := env.getenv(envHistory); v {
	case "off":
		return "", errors.New(envHistory + "=off")
	case "":
		return history.DefaultDir()
	default:
		return filepath.Abs(v)
	}
}
