package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"go.uber.org/zap"

	"github.com/restls/restls/dap"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/workspace"
)

func runDAP(env *cliEnv, args []string) int {
	fs := newFlagSet(env, "dap", "[--idle D] [--max-debug-run D] [--max-memory SIZE] [--log-file F] [--log-level L] [config flags]", `
Serves the Debug Adapter Protocol on stdin and stdout, for an editor's
debugger (VS Code, nvim-dap, dape): launch a script with its fixtures,
input, kind and environment, as restls run takes them; stop at line
breakpoints, step in, over and out, pause, read the stack of the script's
own functions. Every api.rest.v1 call shows in the debug console as it
happens, its credentials masked as the preview masks them. Nothing but
protocol is written to stdout; logs go to stderr or --log-file.

The project is the one the other commands find: the nearest restls.yaml
(or --project) and its environment (the launch configuration's "env", else
--env), the config flags and RESTLS_* variables. A debug run runs in this
process. See docs/debugging.md.

Exit status: 0 when the client disconnects or closes stdin, 1 when the
session broke, 2 for usage errors.`)
	idle := fs.Duration("idle", dap.DefaultIdle, "end a session whose client sends nothing for this `duration`, its run with it")
	wall := fs.Duration("max-debug-run", dap.DefaultWall, "stop a debug run after this `duration` from its start, paused time included")
	logFile := fs.String("log-file", "", "append logs to this `file` instead of stderr")
	logLevel := fs.String("log-level", "info", "log `level`: debug, info, warn or error")
	maxMemory := memoryFlag(fs, "stop a debug run whose process has grown by this `size`")
	cf := configFlags{env: env}
	cf.register(fs)
	if rc := parseFlags(env, fs, args); rc >= 0 {
		return rc
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.stderr, "restls dap: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *idle <= 0 || *wall <= 0 {
		fmt.Fprintf(env.stderr, "restls dap: --idle and --max-debug-run must be positive, got %v and %v\n", *idle, *wall)
		return 2
	}
	if cf.rootMissing("dap") {
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
	sess := workspace.NewSession(workspace.SessionOptions{Sources: cf.sources(), Environments: cf.envs, Kinds: cf.projectKinds(),
		Recorded: true, Logger: log.Named("workspace")})
	// A paused run waits in this process: its goroutine blocks in the
	// observer (docs/decisions.md, "Debugging").
	eng := engine.New(engine.Options{Isolation: engine.InProcess, MaxRuns: 1, Limits: engine.Limits{Timeout: *wall, MaxMemory: *maxMemory}, Logger: log.Named("engine")})
	snapshot := func(ctx context.Context, name string) (workspace.Snapshot, error) {
		sess.ReloadIfChanged()
		return sess.SnapshotIn(name)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = dap.Serve(ctx, env.stdin, env.stdout, dap.Options{Snapshot: snapshot, Run: eng.Run, Idle: *idle, Wall: *wall, Logger: log.Named("dap")})
	if err != nil && ctx.Err() == nil {
		log.Error("the debug session ended: the client must send Debug Adapter Protocol messages (Content-Length framed, each at most 4 MiB)", zap.Error(err))
		return 1
	}
	return 0
}
