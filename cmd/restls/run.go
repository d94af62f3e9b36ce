package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"golang.org/x/term"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
	scriptrt "github.com/restls/restls/runtime"
	"github.com/restls/restls/runtime/isolate"
	"github.com/restls/restls/runtime/restclient"
)

func runRun(env *cliEnv, args []string) (rc int) {
	fs := newFlagSet(env, "run", "[--kind K] [--input F] [--json] [--curl [--live]] [--color WHEN] [--full] [--timeout D] [--max-memory SIZE] [--mock F [--mock-name NAME]] [--record F [--record-headers LIST]] [--max-response-bytes N] [--openapi ID=PATH_OR_URL] [--save] [--diff-with FILE|last] [-v] [config flags] SCRIPT", `
Runs a platform script (a function body: top-level return gives the result)
against the configured services, as the platform would, and shows every
api.rest.v1 call: method, serviceId, final URL, request headers with
credentials masked, body, token events, status, response headers and body,
duration; then the returned value or the uncaught error with its position.
console output appears where it happened.

--mock answers calls from fixtures instead of the network (see
docs/runtime.md), so a script can be previewed with no service running.
--record writes the answers of a live run as such fixtures; with --mock
it records only the calls the fixtures did not answer.

SCRIPT - reads the script from stdin. A script that makes the process grow
by more than --max-memory is stopped with the error code memory-limit.

--openapi (and the project file's openapi) checks each call's answer
against the operation's documented answers: an undocumented status, a
JSON body that breaks the schema (with its JSON path), shown beside the
call ("? contract") and in --json's "contract"; it never fails the run.

Without --mock every call goes to its service; with --mock the fixtures
answer and no call leaves the machine (--live: the calls no fixture
answers go to the service).

--curl prints, instead of the preview, a shell script with one curl
command per call that sends the same request; credentials are shell
variables the script names (RESTLS_BASIC_<SERVICEID>,
RESTLS_TOKEN_<SERVICEID>). --curl sends no call to any service: the
--mock fixtures answer the calls, and without --mock the first call
fails after its command is written (no fixture answers it). --curl --live
sends the calls for real, as a run without --curl does, to export what
the services answered. --json holds the same command in each call's
"curl" (a --json run is a run: live unless --mock).

--save keeps the run in the run history, beside the editor's runs of the
same script (the user cache directory's restls/history, or $RESTLS_HISTORY;
the last 50 runs per script, credentials masked). --diff-with prints,
after the preview, what changed from an earlier run to this one: calls
added, missing or changed (URL, status, response headers, body by JSON
path) and the result. FILE is a history entry or the output of restls run
--json; "last" is the last run of SCRIPT kept in the history (before this
one). A diff never changes the exit status.

Exit status: 0 when the script returns, 1 when it throws (or cannot be
compiled, or runs past --timeout or --max-memory), 2 for usage errors or
when the script, input, fixtures or configuration cannot be loaded.`)
	kindName := fs.String("kind", "", "script `kind`: scriptService, scriptTask (reads the handlers' file) or validationScript (default: the script's first-line \"// restls-kind: K\" comment, else scriptService)")
	inputFile := fs.String("input", "", "JSON `file` whose value becomes context.input (default {})")
	asJSON := fs.Bool("json", false, "print one JSON object: result, error, calls, logs")
	timeout := fs.Duration("timeout", scriptrt.DefaultTimeout, "interrupt the script after this `duration`")
	mockFile := fs.String("mock", "", "answer calls from the fixtures in this YAML or JSON `file` instead of the network")
	mockName := fs.String("mock-name", "", "the `name` shown for the --mock file in answers and messages (X-Restls-Mock, no-fixture, NAME:LINE) (default its path)")
	maxMemoryFlag := memoryFlag(fs, "stop the script when the process has grown by this `size`")
	recordFile := fs.String("record", "", "write every call's answer as a fixture to this YAML (or .json) `file`, updated in place, for --mock to replay; with --mock only the calls no fixture answers go to the network and are recorded")
	recordHeaders := fs.String("record-headers", "", "comma-separated response header `names` to record, volatile ones included (default: all but hop-by-hop ones and the volatile date, server, age, expires, traceparent, x-request-id, x-correlation-id and content-length; never Set-Cookie, Cookie or Authorization)")
	maxBytes := fs.Int64("max-response-bytes", restclient.DefaultMaxResponseBytes, "fail a call whose response body is larger than this many `bytes` after decompression")
	verbose := fs.Bool("v", false, "show the request and response header blocks as sent and received and the timing phases of each call, and log debug lines (per call, tokens) to stderr")
	asCurl := fs.Bool("curl", false, "print a curl command per call (credentials as shell variables) instead of the preview; no call reaches a service unless --live is given (the --mock fixtures answer them)")
	live := fs.Bool("live", false, "send calls to the services: with --curl, which otherwise sends none; with --mock, the calls no fixture answers")
	var openAPI openAPIFlags
	fs.Var(&openAPI, "openapi", "check each call's answer against an OpenAPI description (a file or http(s) URL): `ID=PATH_OR_URL`; PATH_OR_URL alone serves every service whose url starts with one of its servers (repeatable; after the project file's openapi)")
	save := fs.Bool("save", false, "keep this run in the run history ($"+envHistory+" or the user cache directory's restls/history), as the editor keeps its runs")
	diffWith := fs.String("diff-with", "", "after the preview, print what changed from an earlier run: a `file` (a history entry or restls run --json output) or \"last\", the last run of SCRIPT kept in the history")
	colorMode := fs.String("color", "auto", "colour the preview: `when` is auto (when stdout is a terminal and NO_COLOR is not set), always or never")
	full := fs.Bool("full", false, "print whole bodies in the preview instead of cutting them at 40 lines or 8 KiB")
	cf := configFlags{env: env}
	cf.register(fs)
	// Flags may also follow SCRIPT.
	positional, rc := parseInterleaved(env, fs, args)
	if rc >= 0 {
		return rc
	}
	maxMemory := *maxMemoryFlag
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(env.stderr, "restls run: "+format+"\n", a...)
		return 2
	}
	if len(positional) != 1 {
		return usageErr("expected exactly one SCRIPT file, got %d arguments; see restls run -h", len(positional))
	}
	script := positional[0]
	// --kind overrides; otherwise the kind rule of check, test and the
	// editor decides (config.KindMap.Decide), once the script is read.
	kind := config.ScriptService
	if *kindName != "" {
		k, err := config.ParseKind(*kindName)
		if err != nil {
			return usageErr("%v", err)
		}
		kind = k
	}
	if *timeout <= 0 {
		return usageErr("--timeout must be positive, got %v", *timeout)
	}
	if *maxBytes <= 0 {
		return usageErr("--max-response-bytes must be positive, got %d", *maxBytes)
	}
	color, err := scriptrt.ColorFor(*colorMode, isTerminal(env.stdout), env.getenv("NO_COLOR"))
	if err != nil {
		return usageErr("%v", err)
	}
	if *asJSON && *asCurl {
		return usageErr("--json and --curl are two outputs; pick one (--json holds each call's curl command too)")
	}
	if *mockName != "" && *mockFile == "" {
		return usageErr("--mock-name needs --mock FILE")
	}
	if *asCurl && !*live && *recordFile != "" {
		return usageErr("--record keeps what the services answer, and --curl sends no call to a service unless --live is given: add --live to send the calls and record them, or leave out --record")
	}
	if (*save || *diffWith != "") && script == "-" {
		return usageErr("--save and --diff-with keep and find runs by the script's file: give a SCRIPT file, not -")
	}
	if *diffWith != "" && (*asJSON || *asCurl) {
		return usageErr("--diff-with prints after the preview; with --json or --curl, compare two --json outputs with --diff-with FILE in a run without them")
	}
	if *kindName == "" && script != "-" {
		// The supervisor names the kind too (the memory-limit header); an
		// unreadable script is the child's to report.
		if src, err := input.ReadFile(script, input.Script); err == nil {
			kind = config.KindMap(nil).KindOf(script, string(src))
		}
	}
	out := runOutput{asJSON: *asJSON, asCurl: *asCurl, script: script, kind: kind, mockFile: restclient.MockName(*mockFile, *mockName),
		preview: scriptrt.PreviewOptions{Color: color, Full: *full, Verbose: *verbose}, save: *save, diffWith: *diffWith}
	if env.stdout == os.Stdout && env.getenv(isolate.EnvSupervised) == "" {
		return superviseRun(env, args, maxMemory, out)
	}
	var src []byte
	if script == "-" {
		src, err = input.ReadFrom(env.stdin, "standard input", input.Script)
	} else {
		src, err = input.ReadFile(script, input.Script)
	}
	if err != nil {
		return usageErr("cannot read the script: %s", readErr(script, err))
	}
	var inputJSON json.RawMessage
	if *inputFile != "" {
		data, err := input.ReadFile(*inputFile, input.Input)
		if err != nil {
			return usageErr("cannot read --input: %s", readErr(*inputFile, err))
		}
		if !json.Valid(data) {
			return usageErr("--input %s is not valid JSON", *inputFile)
		}
		inputJSON = data
	}
	var mock *restclient.Mock
	if *mockFile != "" {
		if mock, err = restclient.LoadMockAs(*mockFile, *mockName); err != nil {
			return usageErr("--mock: %v", err)
		}
		mock.Script = script
		if *asCurl && !*live {
			mock.Advice = ", or add --live to send the calls no fixture answers (restls run --curl sends none by itself)"
		}
	} else if *asCurl && !*live {
		// Export only: every call fails after its command is written.
		mock = &restclient.Mock{File: noMockFile, Script: script,
			Advice: " to a fixtures file and give it with --mock FILE, or add --live to send the calls (restls run --curl sends none by itself)"}
	}
	var rec *restclient.Recorder
	if *recordFile != "" {
		if rec, err = restclient.NewRecorder(restclient.RecordOptions{File: *recordFile, Headers: restclient.HeaderNames(*recordHeaders)}); err != nil {
			return usageErr("--record: %v", err)
		}
	} else if *recordHeaders != "" {
		return usageErr("--record-headers needs --record FILE")
	}
	if script != "-" {
		cf.start = script
	}
	if cf.rootMissing("run") {
		return 2
	}
	if *kindName == "" {
		// restls.yaml's scriptKinds too, as check and the editor decide
		// (the directive still comes first).
		file := script
		if abs, err := filepath.Abs(script); err == nil && script != "-" {
			file = abs // check and the editor match kind globs on absolute paths
		}
		kind = cf.projectKinds().KindOf(file, string(src))
		out.kind = kind
	}
	reg := config.Load(cf.sources()).For(kind)
	if !reg.Loaded {
		for _, d := range reg.Diagnostics {
			fmt.Fprintln(env.stderr, d.String())
		}
		return usageErr("%s", errNoConfiguration)
	}
	if n := countErrors(reg.Diagnostics); n > 0 {
		fmt.Fprintf(env.stderr, "restls run: the configuration has %s; affected serviceIds are unusable (restls services --kind %s lists them)\n", count(n, "error", "errors"), kind)
	}

	level := zapcore.WarnLevel
	if *verbose {
		level = zapcore.DebugLevel
	}
	logger := zap.New(zapcore.NewCore(zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig()), zapcore.AddSync(env.stderr), level))
	defer func() { _ = logger.Sync() }()

	// The memory limit and its hard stop are the process's: only the real
	// one sets them, never an in-process test.
	var hardStop func(string)
	if env.stdout == os.Stdout {
		if err := scriptrt.LimitProcessMemory(maxMemory); err != nil {
			logger.Warn("no OS memory limit for this run; the watchdog still applies", zap.Error(err))
		}
		hardStop = func(msg string) {
			writeRunResult(env, scriptrt.MemoryLimitResult(msg), out)
			os.Exit(1)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res := scriptrt.Run(ctx, scriptrt.Options{
		Source:           string(src),
		Filename:         script,
		Kind:             kind,
		Registry:         reg,
		MaxResponseBytes: *maxBytes,
		Mock:             mock,
		Trace:            *asJSON || *verbose, // what shows timing phases and wire blocks
		Record:           rec,
		Live:             *live,
		Input:            inputJSON,
		Timeout:          *timeout,
		Logger:           logger,
		MaxMemory:        maxMemory,
		MemoryHardStop:   hardStop,
	})
	checkAnswers(ctx, env.stderr, reg, cf.openAPI(openAPI), res.Calls)
	if rec != nil {
		if err := rec.Save(); err != nil {
			fmt.Fprintf(env.stderr, "restls run: %v\n", err)
			defer func() { rc = 1 }() // after the output, whatever the script did
		}
	}
	return writeRunResult(env, res, out)
}

// noMockFile names the fixtures of restls run --curl without --mock
// (there are none) in its no-fixture message.
const noMockFile = "(no --mock file)"

// readErr is why a file named on the command line was not read, naming
// it: input's refusals leave the path out, the system's errors hold it.
func readErr(path string, err error) string {
	var fe *input.FileError
	if errors.As(err, &fe) {
		return path + ": " + err.Error()
	}
	return err.Error()
}

// runOutput is how restls run shows its result.
type runOutput struct {
	asJSON, asCurl bool
	preview        scriptrt.PreviewOptions
	script         string
	kind           config.Kind
	mockFile       string // as shown: --mock-name or the --mock path
	save           bool   // --save
	diffWith       string // --diff-with
}

// writeRunResult prints a run's result and returns the exit status.
func writeRunResult(env *cliEnv, res *scriptrt.Result, out runOutput) int {
	script := out.script
	if res.Kind == "" {
		res.Kind = out.kind // a memory-limit result, made without the run
	}
	if out.asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			fmt.Fprintf(env.stderr, "restls run: %v\n", err)
			return 1
		}
	} else if out.asCurl {
		if err := scriptrt.WriteCurls(env.stdout, res, script); err != nil {
			return 1
		}
	} else {
		header := fmt.Sprintf("restls run %s (%s", input.Printable(script), out.kind)
		if out.mockFile != "" {
			header += ", answers from " + input.Printable(out.mockFile)
		}
		fmt.Fprintf(env.stdout, "%s, %s)\n\n", header, time.Duration(res.DurationMs*float64(time.Millisecond)).Round(time.Millisecond))
		if err := scriptrt.WritePreview(env.stdout, res, script, out.preview); err != nil {
			return 1
		}
	}
	rc := res.ExitCode()
	if out.save || out.diffWith != "" {
		if !runHistory(env, res, out) {
			rc = max(rc, 1)
		}
	}
	return rc
}

func countErrors(diags []config.Diagnostic) int {
	n := 0
	for _, d := range diags {
		if d.Severity == config.SeverityError {
			n++
		}
	}
	return n
}

// superviseRun runs this same command line again in a child process that
// is watched from outside (runtime/isolate): a script that makes the child
// grow past --max-memory is killed however fast it allocates, and this
// process reports memory-limit for it. Otherwise the child's output is
// the run's.
func superviseRun(env *cliEnv, args []string, maxMemory int64, out runOutput) int {
	code, memory, err := isolate.RunSupervised(append([]string{"run"}, args...), maxMemory)
	if err != nil {
		fmt.Fprintf(env.stderr, "restls run: start the run: %v\n", err)
		return 2
	}
	if memory {
		return writeRunResult(env, scriptrt.MemoryLimitResult(scriptrt.MemoryLimitMessage(maxMemory)), out)
	}
	return code
}

// isTerminal reports whether w is a terminal (for --color auto).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// memoryFlag registers --max-memory (run and serve): bytes, or a number
// with a unit (512MiB, 1GiB); the default is scriptrt.DefaultMaxMemory.
func memoryFlag(fs *flag.FlagSet, what string) *int64 {
	n := int64(scriptrt.DefaultMaxMemory)
	fs.Func("max-memory", what+" (bytes, or with a unit: 512MiB, 1GiB) (default "+scriptrt.FormatSize(scriptrt.DefaultMaxMemory)+")", func(v string) error {
		m, err := scriptrt.ParseSize(v)
		n = m
		return err
	})
	return &n
}
