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

	"golang.org/x/term"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/input"
	scriptrt "github.com/restls/restls/runtime"
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
	var f runFlags
	f.register(fs)
	cf := configFlags{env: env}
	cf.register(fs)
	// Flags may also follow SCRIPT.
	positional, rc := parseInterleaved(env, fs, args)
	if rc >= 0 {
		return rc
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(env.stderr, "restls run: "+format+"\n", a...)
		return 2
	}
	if len(positional) != 1 {
		return usageErr("expected exactly one SCRIPT file, got %d arguments; see restls run -h", len(positional))
	}
	f.script = positional[0]
	out, err := f.check(env)
	if err != nil {
		return usageErr("%v", err)
	}
	req, err := f.request(env)
	if err != nil {
		return usageErr("%v", err)
	}
	if f.script != "-" {
		cf.start = f.script
	}
	if cf.rootMissing("run") {
		return 2
	}
	snap := cf.session(cf.openAPI(f.openAPI)).Snapshot()
	req.Decided = func(kind config.Kind, reg *config.Registry) {
		if n := countErrors(reg.Diagnostics); n > 0 {
			fmt.Fprintf(env.stderr, "restls run: the configuration has %s; affected serviceIds are unusable (restls services --kind %s lists them)\n", count(n, "error", "errors"), kind)
		}
	}
	recordFailed := false
	req.Notice = func(msg string) { fmt.Fprintf(env.stderr, "restls run: %s\n", msg) }
	req.Recorded = func(err error) { recordFailed = err != nil }
	// The real process runs the script in a child that it watches from
	// outside (runtime/isolate): a script that makes it grow past
	// --max-memory is killed however fast it allocates. An in-process
	// test runs it here.
	iso := engine.Child
	if env.stdout != os.Stdout {
		iso = engine.InProcess
	}
	eng := engine.New(engine.Options{Isolation: iso, MaxRuns: 1})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := eng.Run(ctx, snap, req)
	if err != nil {
		return runFailed(env, err)
	}
	out.input = req.Input
	rc = writeRunResult(env, res, out)
	if recordFailed {
		rc = max(rc, 1) // after the output, whatever the script did
	}
	return rc
}

// runFailed reports a run that did not start and returns its exit
// status (2: what the user gave cannot be run).
func runFailed(env *cliEnv, err error) int {
	var fe *engine.FixturesError
	var ce *engine.ConfigError
	switch {
	case errors.As(err, &fe) && fe.Record:
		fmt.Fprintf(env.stderr, "restls run: --record: %v\n", err)
	case errors.As(err, &fe):
		fmt.Fprintf(env.stderr, "restls run: --mock: %v\n", err)
	case errors.As(err, &ce):
		if ce.Registry != nil {
			for _, d := range ce.Registry.Diagnostics {
				fmt.Fprintln(env.stderr, d.String())
			}
		}
		fmt.Fprintf(env.stderr, "restls run: %s\n", errNoConfiguration)
	default:
		fmt.Fprintf(env.stderr, "restls run: start the run: %v\n", err)
	}
	return 2
}

// runFlags are restls run's own flags.
type runFlags struct {
	script                          string
	kind, input, mockFile, mockName string
	recordFile, recordHeaders       string
	asJSON, verbose, asCurl, live   bool
	save, full                      bool
	diffWith, color                 string
	timeout                         time.Duration
	maxMemory                       *int64
	maxBytes                        int64
	openAPI                         openAPIFlags
}

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.kind, "kind", "", "script `kind`: scriptService, scriptTask (reads the handlers' file) or validationScript (default: the script's first-line \"// restls-kind: K\" comment, else scriptService)")
	fs.StringVar(&f.input, "input", "", "JSON `file` whose value becomes context.input (default {})")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object: result, error, calls, logs, kind, mode")
	fs.DurationVar(&f.timeout, "timeout", scriptrt.DefaultTimeout, "interrupt the script after this `duration`")
	fs.StringVar(&f.mockFile, "mock", "", "answer calls from the fixtures in this YAML or JSON `file` instead of the network")
	fs.StringVar(&f.mockName, "mock-name", "", "the `name` shown for the --mock file in answers and messages (X-Restls-Mock, no-fixture, NAME:LINE) (default its path)")
	f.maxMemory = memoryFlag(fs, "stop the script when the process has grown by this `size`")
	fs.StringVar(&f.recordFile, "record", "", "write every call's answer as a fixture to this YAML (or .json) `file`, updated in place, for --mock to replay; with --mock only the calls no fixture answers go to the network and are recorded")
	fs.StringVar(&f.recordHeaders, "record-headers", "", "comma-separated response header `names` to record, volatile ones included (default: all but hop-by-hop ones and the volatile date, server, age, expires, traceparent, x-request-id, x-correlation-id and content-length; never Set-Cookie, Cookie or Authorization)")
	fs.Int64Var(&f.maxBytes, "max-response-bytes", restclient.DefaultMaxResponseBytes, "fail a call whose response body is larger than this many `bytes` after decompression")
	fs.BoolVar(&f.verbose, "v", false, "show the request and response header blocks as sent and received and the timing phases of each call, and log debug lines (per call, tokens) to stderr")
	fs.BoolVar(&f.asCurl, "curl", false, "print a curl command per call (credentials as shell variables) instead of the preview; no call reaches a service unless --live is given (the --mock fixtures answer them)")
	fs.BoolVar(&f.live, "live", false, "send calls to the services: with --curl, which otherwise sends none; with --mock, the calls no fixture answers")
	fs.Var(&f.openAPI, "openapi", "check each call's answer against an OpenAPI description (a file or http(s) URL): `ID=PATH_OR_URL`; PATH_OR_URL alone serves every service whose url starts with one of its servers (repeatable; after the project file's openapi)")
	fs.BoolVar(&f.save, "save", false, "keep this run in the run history ($"+envHistory+" or the user cache directory's restls/history), as the editor keeps its runs")
	fs.StringVar(&f.diffWith, "diff-with", "", "after the preview, print what changed from an earlier run: a `file` (a history entry or restls run --json output) or \"last\", the last run of SCRIPT kept in the history")
	fs.StringVar(&f.color, "color", "auto", "colour the preview: `when` is auto (when stdout is a terminal and NO_COLOR is not set), always or never")
	fs.BoolVar(&f.full, "full", false, "print whole bodies in the preview instead of cutting them at 40 lines or 8 KiB")
}

// check refuses flags that do not go together and returns how the result
// is shown.
func (f *runFlags) check(env *cliEnv) (runOutput, error) {
	color, err := scriptrt.ColorFor(f.color, isTerminal(env.stdout), env.getenv("NO_COLOR"))
	if f.kind != "" {
		if _, err := config.ParseKind(f.kind); err != nil {
			return runOutput{}, err
		}
	}
	switch {
	case f.timeout <= 0:
		return runOutput{}, fmt.Errorf("--timeout must be positive, got %v", f.timeout)
	case f.maxBytes <= 0:
		return runOutput{}, fmt.Errorf("--max-response-bytes must be positive, got %d", f.maxBytes)
	case err != nil:
		return runOutput{}, err
	case f.asJSON && f.asCurl:
		return runOutput{}, errors.New("--json and --curl are two outputs; pick one (--json holds each call's curl command too)")
	case f.mockName != "" && f.mockFile == "":
		return runOutput{}, errors.New("--mock-name needs --mock FILE")
	case f.asCurl && !f.live && f.recordFile != "":
		return runOutput{}, errors.New("--record keeps what the services answer, and --curl sends no call to a service unless --live is given: add --live to send the calls and record them, or leave out --record")
	case (f.save || f.diffWith != "") && f.script == "-":
		return runOutput{}, errors.New("--save and --diff-with keep and find runs by the script's file: give a SCRIPT file, not -")
	case f.diffWith != "" && (f.asJSON || f.asCurl):
		return runOutput{}, errors.New("--diff-with prints after the preview; with --json or --curl, compare two --json outputs with --diff-with FILE in a run without them")
	}
	return runOutput{asJSON: f.asJSON, asCurl: f.asCurl, script: f.script, mockFile: restclient.MockName(f.mockFile, f.mockName),
		preview: scriptrt.PreviewOptions{Color: color, Full: f.full, Verbose: f.verbose}, save: f.save, diffWith: f.diffWith}, nil
}

// request reads the script and the input and builds the run's request.
func (f *runFlags) request(env *cliEnv) (engine.Request, error) {
	var src []byte
	var err error
	if f.script == "-" {
		src, err = input.ReadFrom(env.stdin, "standard input", input.Script)
	} else {
		src, err = input.ReadFile(f.script, input.Script)
	}
	if err != nil {
		return engine.Request{}, fmt.Errorf("cannot read the script: %s", readErr(f.script, err))
	}
	req := engine.Request{Name: f.script, Text: string(src), Trace: f.asJSON || f.verbose,
		Limits: engine.Limits{Timeout: f.timeout, MaxMemory: *f.maxMemory, MaxResponseBytes: f.maxBytes},
		Stderr: env.stderr, Interrupt: true}
	if f.kind != "" {
		req.Kind, _ = config.ParseKind(f.kind) // checked (check)
	}
	if f.script != "-" {
		if abs, err := filepath.Abs(f.script); err == nil {
			req.Path = abs // check and the editor match kind globs on absolute paths
		}
	}
	if f.verbose {
		req.LogLevel = "debug"
	}
	if f.input != "" {
		data, err := input.ReadFile(f.input, input.Input)
		if err != nil {
			return engine.Request{}, fmt.Errorf("cannot read --input: %s", readErr(f.input, err))
		}
		if !json.Valid(data) {
			return engine.Request{}, fmt.Errorf("--input %s is not valid JSON", f.input)
		}
		req.Input = data
	}
	fx := engine.Fixtures{File: f.mockFile, Name: restclient.MockName(f.mockFile, f.mockName), Live: f.live, Record: f.recordFile}
	switch {
	case f.mockFile != "" && f.asCurl && !f.live:
		fx.Advice = ", or add --live to send the calls no fixture answers (restls run --curl sends none by itself)"
	case f.mockFile == "" && f.asCurl && !f.live:
		// Export only: every call fails after its command is written.
		fx.None, fx.Name = true, noMockFile
		fx.Advice = " to a fixtures file and give it with --mock FILE, or add --live to send the calls (restls run --curl sends none by itself)"
	}
	if f.recordHeaders != "" {
		if f.recordFile == "" {
			return engine.Request{}, errors.New("--record-headers needs --record FILE")
		}
		fx.RecordHeaders = restclient.HeaderNames(f.recordHeaders)
	}
	req.Fixtures = fx
	return req, nil
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
	mockFile       string          // as shown: --mock-name or the --mock path
	save           bool            // --save
	diffWith       string          // --diff-with
	input          json.RawMessage // kept with the run (--save), for a replay
}

// writeRunResult prints a run's result and returns the exit status.
func writeRunResult(env *cliEnv, res *scriptrt.Result, out runOutput) int {
	script := out.script
	if out.asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false) // bodies and the result as sent: "a=1&b=2", not "a=1\u0026b=2"
		if err := enc.Encode(res); err != nil {
			fmt.Fprintf(env.stderr, "restls run: %v\n", err)
			return 1
		}
	} else if out.asCurl {
		if err := scriptrt.WriteCurls(env.stdout, res, script); err != nil {
			return 1
		}
	} else {
		header := fmt.Sprintf("restls run %s (%s", input.Printable(script), res.Kind)
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
