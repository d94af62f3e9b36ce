package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"go.uber.org/zap"

	"github.com/restls/restls/check"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/input"
	"github.com/restls/restls/mcp"
	scriptrt "github.com/restls/restls/runtime"
	"github.com/restls/restls/runtime/isolate"
	"github.com/restls/restls/workspace"
)

func runMCP(env *cliEnv, args []string) int {
	fs := newFlagSet(env, "mcp", "[--root DIR] [--allow-live] [--run-timeout D] [--max-runs N] [--openapi ID=PATH_OR_URL] [--log-file F] [--log-level L] [config flags]", `
Serves the Model Context Protocol on stdin and stdout, for a coding agent
(Claude Code, VS Code's agent mode, Cursor) on the author's machine: the
configured services without credentials, their operations' contracts, the
editor's checks with quick fixes as edits, completion, references, the
impact of a configuration change, fixtures from the descriptions, curl
conversion, dry runs with fixtures, test files (as restls test) and the
failure-path exploration (as restls faults), over the same project restls
check reads. Nothing but protocol is written to stdout; logs go to stderr or
--log-file.

The project is the one the other commands find: the nearest restls.yaml
(or --project) and its environment (--env), the config flags and RESTLS_*
variables. Every path a tool is given must lead, its links followed, to a
file below the project root: --root, else the project file's directory,
else the repository around the working directory, else the working
directory. The tools write nothing. A dry run answers its calls from
fixtures only, unless --allow-live lets the agent send them to the
services. See docs/mcp.md.

Exit status: 0 when the agent closes stdin, 2 for usage errors.`)
	rootFlag := fs.String("root", "", "the project root `dir` every path argument must stay below (default: the project file's directory, else the git repository's top, else the working directory)")
	logFile := fs.String("log-file", "", "append logs to this `file` instead of stderr")
	logLevel := fs.String("log-level", "info", "log `level`: debug (one line per call), info, warn or error")
	allowLive := fs.Bool("allow-live", false, "let the run tool send the calls no fixture answers to the configured services (off: an agent's dry runs use fixtures only)")
	runTimeout := fs.Duration("run-timeout", scriptrt.DefaultTimeout, "interrupt a dry run after this `duration`")
	maxRuns := fs.Int("max-runs", isolate.DefaultMaxRuns, "how many dry runs may go at once (`n`); more are refused as busy")
	maxMemory := memoryFlag(fs, "stop a dry run whose process has grown by this `size`")
	var apis openAPIFlags
	fs.Var(&apis, "openapi", openAPIFlagHelp)
	cf := configFlags{env: env}
	cf.register(fs)
	if rc := parseFlags(env, fs, args); rc >= 0 {
		return rc
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.stderr, "restls mcp: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *runTimeout <= 0 || *maxRuns <= 0 {
		fmt.Fprintf(env.stderr, "restls mcp: --run-timeout and --max-runs must be positive, got %v and %d\n", *runTimeout, *maxRuns)
		return 2
	}
	if cf.rootMissing("mcp") {
		return 2
	}
	log, closeLog, err := serveLogger(env, *logFile, *logLevel, "console")
	if err != nil {
		fmt.Fprintf(env.stderr, "restls mcp: %v\n", err)
		return 2
	}
	defer closeLog()
	root, err := projectRoot(*rootFlag, cf.projectFile())
	if err != nil {
		fmt.Fprintf(env.stderr, "restls mcp: %v\n", err)
		return 2
	}
	// The one workspace session of this process, as restls check reads
	// the project.
	so := cf.sessionOptions(cf.openAPI(apis))
	so.Recorded, so.Logger = true, log.Named("workspace")
	sess := workspace.NewSession(so)
	srv, err := newMCP(&cf, sess, root)
	if err != nil {
		fmt.Fprintf(env.stderr, "restls mcp: %v\n", err)
		return 2
	}
	srv.Logger = log.Named("mcp")
	// The run engine of this process, each run in a child restls that
	// logs at --log-level, as restls serve's.
	eng := childEngine(*maxRuns, *runTimeout, *maxMemory, *logLevel, log)
	// Test files run as restls test runs them: their cases in this
	// process, bounded by the memory watchdog and the time limit.
	tests := engine.New(engine.Options{Isolation: engine.InProcess, MaxRuns: 1, Limits: engine.Limits{Timeout: *runTimeout, MaxMemory: *maxMemory}, Logger: log.Named("engine")})
	srv.Run, srv.Tests, srv.AllowLive = eng.Run, tests.Run, *allowLive
	s, err := mcp.New(srv)
	if err != nil {
		fmt.Fprintf(env.stderr, "restls mcp: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := s.ServeStdio(ctx, io.NopCloser(env.stdin), nopWriteCloser{env.stdout}); err != nil {
		log.Error("the MCP session ended: the client must send one JSON-RPC message per line, each at most 8 MiB", zap.Error(err))
		return 1
	}
	return 0
}

// newMCP is the MCP server's options over sess, the process's session
// of cf's project, with the project file's check settings for impact.
func newMCP(cf *configFlags, sess *workspace.Session, root string) (mcp.Options, error) {
	var include, exclude []string
	if p := cf.project; p != nil {
		include, exclude = p.Check.Include, p.Check.Exclude
	}
	fail, _ := cf.faultsFail("") // the file's, checked when it was read
	impact := func(ctx context.Context, ref string) (*check.Report, error) {
		base, err := sinceSnapshot(ref, sess.Sources())
		if err != nil {
			return nil, err
		}
		return check.Run(check.Options{Paths: []string{root}, Include: include, Exclude: exclude, Workspace: sess, Context: ctx,
			Since: &check.Since{Ref: ref, Config: base}})
	}
	return mcp.Options{Session: sess, Root: root, ProjectFile: cf.projectFile(), Impact: impact, FaultsFail: fail, Version: versionString()}, nil
}

// projectRoot is the directory path arguments must stay below: flag,
// else the project file's directory, else the repository around the
// working directory, else the working directory.
func projectRoot(flag, projectFile string) (string, error) {
	dir := flag
	switch {
	case dir != "":
	case projectFile != "":
		dir = filepath.Dir(projectFile)
	default:
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		dir = wd
		if top := input.RepoRoot(wd); top != "" {
			dir = top
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("--root %s is not a directory", dir)
	}
	return abs, nil
}

// nopWriteCloser is stdout for the MCP transport: closing the session
// does not close the process's stdout.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
