package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"syscall"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/restls/restls/config"
	"github.com/restls/restls/lsp"
	scriptrt "github.com/restls/restls/runtime"
	"github.com/restls/restls/runtime/isolate"
)

func init() {
	register(command{name: "serve", summary: "run the language server on stdio (what editors start)", run: runServe})
}

// serveMode is a way to serve other than stdio. Another file adds one in
// its init with addServeMode (serve_http.go adds --http): register adds its
// flags, selected reports whether the parsed flags chose it, and run serves
// until ctx ends and returns the exit status.
type serveMode struct {
	register func(fs *flag.FlagSet)
	selected func() bool
	run      func(ctx context.Context, env *cliEnv, srv *lsp.Server, log *zap.Logger) int
	// options, if set, may adjust the server's options after parsing
	// (every mode's, selected or not); an error is a usage error. start, if
	// set, runs in the background with the server until ctx ends, and is
	// waited for before runServe returns.
	options func(o *lsp.Options, log *zap.Logger) error
	start   func(ctx context.Context, srv *lsp.Server)
}

var serveModes []serveMode

// serveMemoryLimit is the Go runtime's soft memory limit in serve mode
// unless GOMEMLIMIT is set; see "serve's memory limit" in docs/decisions.md.
const serveMemoryLimit = 128 << 20

func addServeMode(m serveMode) { serveModes = append(serveModes, m) }

func runServe(env *cliEnv, args []string) int {
	fs := newFlagSet(env, "serve", "[--stdio] [--log-file F] [--log-level L] [--max-memory SIZE] [--run-timeout D] [--max-runs N] [config flags]", `
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
at most --max-runs go at once.

Exit status: 0 after the editor's shutdown and exit, 1 when the session
ended without shutdown, 2 for usage errors.`)
	fs.Bool("stdio", true, "speak LSP on stdin/stdout (the default; accepted because editors pass it)")
	logFile := fs.String("log-file", "", "append logs to this `file` instead of stderr")
	logLevel := fs.String("log-level", "info", "log `level`: debug, info, warn or error")
	logFormat := fs.String("log-format", "console", "log `format`: console (one readable line per entry) or json (one JSON object per line, for log collectors)")
	maxMemory := int64(scriptrt.DefaultMaxMemory)
	fs.Func("max-memory", "stop a dry run whose process has grown by this `size` (bytes, or with a unit: 512MiB, 1GiB) (default "+scriptrt.FormatSize(scriptrt.DefaultMaxMemory)+")", func(v string) error {
		n, err := scriptrt.ParseSize(v)
		maxMemory = n
		return err
	})
	runTimeout := fs.Duration("run-timeout", scriptrt.DefaultTimeout, "interrupt a dry run after this `duration`")
	maxRuns := fs.Int("max-runs", isolate.DefaultMaxRuns, "how many dry runs may go at once (`n`); more are refused as busy (HTTP 429)")
	cf := configFlags{env: env}
	cf.f.Register(fs)
	for _, m := range serveModes {
		m.register(fs)
	}
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
	log, closeLog, err := serveLogger(env, *logFile, *logLevel, *logFormat)
	if err != nil {
		fmt.Fprintf(env.stderr, "restls serve: %v\n", err)
		return 2
	}
	defer closeLog()
	if env.getenv("GOMEMLIMIT") == "" && env.stdout == os.Stdout { // the real process, not an in-process test
		// A sidecar next to the editor: a soft ceiling that returns the
		// memory of spikes (a registry load, a burst of parses); the runtime
		// exceeds it rather than thrash.
		debug.SetMemoryLimit(serveMemoryLimit)
	}

	// Runs end with serve: a shutdown kills their processes at once rather
	// than wait out the HTTP grace period.
	runsCtx, endRuns := context.WithCancel(context.Background())
	defer endRuns()
	iso := isolate.New(isolate.Options{MaxMemory: maxMemory, Timeout: *runTimeout, MaxRuns: *maxRuns, Logger: log.Named("isolate")})
	opts := lsp.Options{
		Sources: cf.sources(),
		Logger:  log,
		Runner:  scriptRunner(runsCtx, iso),
		Version: versionString(),
	}
	for _, m := range serveModes {
		if m.options == nil {
			continue
		}
		if err := m.options(&opts, log); err != nil {
			fmt.Fprintf(env.stderr, "restls serve: %v\n", err)
			return 2
		}
	}
	srv := lsp.NewServer(opts)

	// Background work of the modes ends with ctx and is waited for, so
	// nothing of this run outlives it (in-process tests run serve again).
	var bg sync.WaitGroup
	defer bg.Wait() // after stop, deferred below
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, endRuns)
	for _, m := range serveModes {
		if m.start != nil {
			bg.Go(func() { m.start(ctx, srv) })
		}
	}
	for _, m := range serveModes {
		if m.selected() {
			return m.run(ctx, env, srv, log)
		}
	}
	return serveStdio(ctx, env, srv, log)
}

// serveStdio serves one session on stdin/stdout.
func serveStdio(ctx context.Context, env *cliEnv, srv *lsp.Server, log *zap.Logger) int {
	if env.stdout == os.Stdout {
		// stdout belongs to the protocol: anything that prints to os.Stdout
		// by mistake (a dependency, a forgotten debug line) lands in stderr.
		os.Stdout = os.Stderr
	}
	rwc := stdio{r: env.stdin, w: env.stdout}
	err := srv.ServeStream(ctx, lsp.NewStream(rwc, log))
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

// scriptRunner adapts the isolate runner, which runs each dry run in a
// child process, to the language server's Runner. A run ends when its
// request does or when serving does (serveCtx).
func scriptRunner(serveCtx context.Context, iso *isolate.Runner) func(context.Context, lsp.RunRequest) (any, error) {
	return func(ctx context.Context, req lsp.RunRequest) (any, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(serveCtx, cancel)()
		name := req.Path
		if name == "" {
			name = req.URI
		}
		req.Progress("running " + name)
		var src config.Sources
		if req.Snapshot != nil {
			src = req.Snapshot.Sources
		}
		raw, err := iso.Run(ctx, isolate.Request{Text: req.Text, Kind: req.Kind, Input: req.Input, Mock: req.MockText, Sources: src})
		if errors.Is(err, isolate.ErrBusy) {
			return nil, fmt.Errorf("%w: %w", lsp.ErrRunnerBusy, err)
		}
		if err != nil && serveCtx.Err() != nil {
			return nil, errors.New("the server is shutting down; the run was stopped")
		}
		if err != nil {
			return nil, err
		}
		return raw, nil
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
