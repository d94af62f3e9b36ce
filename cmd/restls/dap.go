package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/dap"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/dryrun/history"
	"github.com/restls/restls/runtime/isolate"
	"github.com/restls/restls/workspace"
)

func runDAP(env *cliEnv, args []string) int {
	fs := newFlagSet(env, "dap", "[--listen ADDR [--max-sessions N] [--allow-remote]] [--idle D] [--max-debug-run D] [--max-eval D] [--max-memory SIZE] [--allow-services ID] [--report-runs] [--request-stdin] [--openapi ID=PATH_OR_URL] [--log-file F] [--log-level L] [config flags]", `
Serves the Debug Adapter Protocol on stdin and stdout (or, with --listen,
to each client that connects), for an editor's debugger (VS Code,
nvim-dap, dape): launch a script with its fixtures, input, kind and
environment, as restls run takes them, one case of a test file, or a
replay of a recorded run (the run history, a fixtures file), offline;
stop at line breakpoints (with conditions, hit counts, logpoints) and at
exceptions (all, uncaught, api.rest.v1 errors, RestClientError); step in,
over and out, pause, read the stack of the script's own functions, its
scopes and values. Every api.rest.v1 call shows in the debug console as
it happens, its credentials masked as the preview masks them, and after
the run how each answer breaks its API description (--openapi and the
project file's openapi), as restls run says it. Nothing but
protocol is written to stdout; logs go to stderr or --log-file.

The project is the one the other commands find: the nearest restls.yaml
(or --project) and its environment (the launch configuration's "env", else
--env), the config flags and RESTLS_* variables. A debug run runs in this
process, itself started by the editor (restls serve starts one restls dap
per designer debug session, as it starts a dry run's child). See
docs/debugging.md.

Exit status: 0 when the client disconnects or closes stdin, 1 when the
session broke, 2 for usage errors.`)
	listen := fs.String("listen", "", "serve clients that connect to this loopback `address` (127.0.0.1:4711) instead of stdin and stdout, a session each")
	maxSessions := fs.Int("max-sessions", dap.DefaultMaxSessions, "with --listen, serve at most this `number` of sessions at once")
	allowRemote := fs.Bool("allow-remote", false, "let --listen take an address that is not loopback: anyone who reaches it runs scripts with this project's credentials")
	idle := fs.Duration("idle", dap.DefaultIdle, "end a session whose client sends nothing for this `duration`, its run with it")
	wall := fs.Duration("max-debug-run", dap.DefaultWall, "stop a debug run after this `duration` from its start, paused time included")
	eval := fs.Duration("max-eval", dap.DefaultEval, "stop one evaluation in a paused frame (a watch, a breakpoint's condition, the debug console) after this `duration`; the run goes on")
	logFile := fs.String("log-file", "", "append logs to this `file` instead of stderr")
	logLevel := fs.String("log-level", "info", "log `level`: debug, info, warn or error")
	maxMemory := memoryFlag(fs, "stop a debug run whose process has grown by this `size`")
	var allowServices stringList
	fs.Var(&allowServices, "allow-services", "let a debug run call only this `serviceId` (repeatable; each value one exact serviceId, a comma part of it); any other call fails with service-not-allowed (restls serve gives a runner limited to some services)")
	reportRuns := fs.Bool("report-runs", false, "send a restlsRun event after each debug run with what an audit keeps of it (restls serve reads it from the restls dap it starts for the designer)")
	requestStdin := fs.Bool("request-stdin", false, "read one line of JSON on stdin before the protocol: the environment, sources (a registryUrl's services with them), time limits, engine level and API descriptions restls serve decided for the designer debug session it starts this process for; no project file is read (--project, --env, --openapi and the source flags are refused with it)")
	var apis openAPIFlags
	fs.Var(&apis, "openapi", openAPIFlagHelp)
	cf := configFlags{env: env}
	cf.register(fs)
	if rc := parseFlags(env, fs, args); rc >= 0 {
		return rc
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.stderr, "restls dap: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *requestStdin && *listen != "" {
		fmt.Fprintln(env.stderr, "restls dap: --request-stdin reads stdin, which --listen does not serve: give one of them")
		return 2
	}
	if *idle <= 0 || *wall <= 0 || *eval <= 0 {
		fmt.Fprintf(env.stderr, "restls dap: --idle, --max-debug-run and --max-eval must be positive, got %v, %v and %v\n", *idle, *wall, *eval)
		return 2
	}
	if slices.Contains(allowServices, "") {
		fmt.Fprintln(env.stderr, "restls dap: --allow-services needs a serviceId; give the flag once per serviceId a debug run may call")
		return 2
	}
	if *maxSessions <= 0 {
		fmt.Fprintf(env.stderr, "restls dap: --max-sessions must be positive, got %d\n", *maxSessions)
		return 2
	}
	if *listen != "" && !*allowRemote {
		if err := loopbackOnly(*listen); err != nil {
			fmt.Fprintf(env.stderr, "restls dap: --listen %s: %v\n", *listen, err)
			return 2
		}
	}
	if *requestStdin {
		if cf.file != "" || cf.envName != "" || len(cf.args) > 0 || len(apis) > 0 {
			fmt.Fprintln(env.stderr, "restls dap: --request-stdin takes the project from restls serve's request, and reads no project file: leave out --project, --env, --openapi and the source flags, or leave out --request-stdin")
			return 2
		}
	} else if cf.rootMissing("dap") {
		return 2
	}
	log, closeLog, err := serveLogger(env, *logFile, *logLevel, "console")
	if err != nil {
		fmt.Fprintf(env.stderr, "restls dap: %v\n", err)
		return 2
	}
	defer closeLog()
	// The one workspace session of this process, as restls mcp reads the
	// project.
	var so workspace.SessionOptions
	stdin := bufio.NewReader(env.stdin)
	var decided *isolate.DebugRequest
	if *requestStdin {
		// What restls serve decided for this session, in place of a
		// project file (which may have changed since the server read
		// it): its environment and sources, the file's time limits and
		// engine level; a registryUrl's services as a dry run's child
		// receives them: this process neither fetches them nor holds the
		// backend's token. The launch names the kind the server decided.
		req, err := isolate.ReadDebugRequest(stdin)
		if err != nil {
			fmt.Fprintf(env.stderr, "restls dap: --request-stdin: %v: it is for the restls dap that restls serve starts for a designer debug session, which writes it; leave the flag out to read the project's files\n", err)
			return 2
		}
		decided = &req
		// The configuration is read here, once, as a dry run's child
		// reads its request's, and never reloaded (docs/decisions.md,
		// "Debugging").
		fixed := req.Snapshot()
		so = workspace.SessionOptions{Sources: req.Sources, TimeLimits: req.TimeLimits, EngineLevel: req.EngineLevel,
			Load: func(config.Sources) *config.Snapshot { return fixed }}
		for _, a := range req.APIs {
			so.APIs = append(so.APIs, workspace.APISource{ServiceID: a.ServiceID, Location: a.Location})
		}
	} else {
		// The project's descriptions, as restls run reads them: a debug
		// run's answers are checked as a dry run's are.
		so = cf.sessionOptions(cf.openAPI(apis))
	}
	so.Recorded, so.Logger = true, log.Named("workspace")
	sess := workspace.NewSession(so)
	// A paused run waits in this process: its goroutine blocks in the
	// observer (docs/decisions.md, "Debugging").
	runs := 1
	if *listen != "" {
		runs = *maxSessions
	}
	eng := engine.New(engine.Options{Isolation: engine.InProcess, MaxRuns: runs, Limits: engine.Limits{Timeout: *wall, MaxMemory: *maxMemory}, Logger: log.Named("engine")})
	snapshot := func(ctx context.Context, name string) (workspace.Snapshot, error) {
		if decided == nil {
			sess.ReloadIfChanged()
			return sess.SnapshotIn(name)
		}
		// The server's environment, never one this process picks.
		if name != "" && name != decided.Environment {
			return workspace.Snapshot{}, fmt.Errorf("this debug session runs in the environment restls serve decided (%q), not %q", decided.Environment, name)
		}
		snap := sess.Snapshot()
		snap.Environment = decided.Environment
		return snap, nil
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := dap.Options{Snapshot: snapshot, Run: eng.Run, Idle: *idle, Wall: *wall, Eval: *eval, ReportRuns: *reportRuns, Logger: log.Named("dap")}
	if len(allowServices) > 0 {
		opts.AllowServices = allowServices
	}
	if decided != nil {
		// A description that did not load is named by its path on the
		// server, which a designer page is never shown (as POST /v1/run
		// shows no notice): the session's log has it ("OpenAPI
		// description not loaded"), which joins the server's.
		opts.Notice = func(string) {}
		// What the run says of a configuration file (a call to a service
		// the configuration leaves unusable) names it as a web client sees
		// it, relative to the configuration root: the page is never shown
		// where the server keeps its files.
		opts.Display = workspace.NewPathDisplay(workspace.RelativeTo(decided.Sources.ConfigRoot), decided.Sources)
	}
	if dir, err := historyDir(env); err == nil {
		opts.History = &history.Dir{Root: dir}
	}
	if *listen != "" {
		ln, err := net.Listen("tcp", *listen)
		if err != nil {
			fmt.Fprintf(env.stderr, "restls dap: --listen: %v\n", err)
			return 1
		}
		// The address taken, for a client (or a test) that asked for port 0.
		fmt.Fprintf(env.stderr, "restls dap: listening on %s\n", ln.Addr())
		if err := dap.Listen(ctx, ln, *maxSessions, opts); err != nil {
			log.Error("restls dap stopped listening", zap.Error(err))
			return 1
		}
		return 0
	}
	err = dap.Serve(ctx, stdin, env.stdout, opts)
	if err != nil && ctx.Err() == nil {
		log.Error("the debug session ended: the client must send Debug Adapter Protocol messages (Content-Length framed, each at most 4 MiB)", zap.Error(err))
		return 1
	}
	return 0
}

// loopbackOnly refuses an address that is not a loopback one: a debug
// session runs scripts with the project's credentials.
func loopbackOnly(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return errors.New("not a loopback address (127.0.0.1, ::1, localhost): anyone who reaches it would run scripts with this project's credentials; add --allow-remote if that is what you want")
}
