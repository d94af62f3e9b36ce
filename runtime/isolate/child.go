package isolate

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
	scriptrt "github.com/restls/restls/runtime"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
)

// ChildArg, as the first and only argument of the restls binary, makes
// the process a dry run's child: cmd/restls hands it to ChildMain before
// it parses any command line. It is no command of the CLI (help does not
// list it) and takes no flags: everything comes in the ChildRequest.
const ChildArg = "__restls-dry-run-child"

// ChildRequest is what a dry run's child reads on its stdin, as one JSON
// object: everything the run needs, as the parent's snapshot has it.
// Nothing of it is on a command line or on disk.
type ChildRequest struct {
	// Sources are the configuration files of the snapshot the script is
	// run against, which the child loads; or, when they name a
	// registryUrl, Services are the registry.
	Sources  config.Sources `json:"sources"`
	Services []Service      `json:"services,omitempty"`
	Kind     config.Kind    `json:"kind"`
	// Text is the script, unsaved edits included.
	Text string `json:"text"`
	// Input is context.input as JSON; empty means {}.
	Input json.RawMessage `json:"input,omitempty"`
	// Mock is a pasted fixture document (YAML or JSON), answering calls
	// as restclient.PastedMocks; nil for none.
	Mock *string `json:"mock,omitempty"`
	// MockFile and RecordFile are fixture files to answer calls from and
	// to write live answers to (Request's).
	MockFile   string `json:"mockFile,omitempty"`
	RecordFile string `json:"recordFile,omitempty"`
	Limits     Limits `json:"limits"`
	// AllowServices, when not nil, are the only serviceIds the script may
	// call (Request's).
	AllowServices []string `json:"allowServices,omitempty"`
	// Script names the script in positions and messages (restls run's
	// SCRIPT, the editor's shown path); "" is "-".
	Script string `json:"script,omitempty"`
	// MockName names the fixtures (Mock or MockFile) in answers and
	// messages; "" is PastedMocks for Mock and the path for MockFile.
	// MockAdvice ends a no-fixture message (restclient.Mock.Advice).
	MockName   string `json:"mockName,omitempty"`
	MockAdvice string `json:"mockAdvice,omitempty"`
	// NoFixtures answers every call with no-fixture, from no file (restls
	// run --curl without --mock: the commands are written, nothing sent).
	NoFixtures bool `json:"noFixtures,omitempty"`
	// Live, with fixtures, sends the calls no fixture answers to the
	// services (restls run --mock F --live).
	Live bool `json:"live,omitempty"`
	// RecordHeaders are the response headers RecordFile keeps
	// (restclient.RecordOptions.Headers); nil: the default set.
	RecordHeaders []string `json:"recordHeaders,omitempty"`
	// Trace keeps each call's timing phases and header blocks.
	Trace bool `json:"trace,omitempty"`
	// LogLevel is the lowest level of the log lines the child writes to
	// its stderr ("debug" for restls run -v); "" is warn.
	LogLevel string `json:"logLevel,omitempty"`
	// Observe asks for the run's events (Event) on stdout before the
	// result; Statements for the statements reached among them.
	Observe    bool `json:"observe,omitempty"`
	Statements bool `json:"statements,omitempty"`
	// Values asks for the values the script's variables were given
	// (runtime.Options.Values).
	Values bool `json:"values,omitempty"`
	// Coverage, with Statements, asks for the run's counts in place of
	// its statements, and the calls' sites (dryrun.CoverageObserver).
	Coverage bool `json:"coverage,omitempty"`

	// Fixtures are fixtures the parent already parsed (Request.Parsed),
	// used in place of Mock and MockFile as they are: their file, each
	// fixture's index and line, the advice and the script's name
	// (restclient.Mock's JSON).
	Fixtures *restclient.Mock `json:"fixtures,omitempty"`

	// loaded is the registry an in-process run already has (InProcess).
	loaded *config.Registry
}

// Service is one service of a registry read from a registryUrl, as the
// registry backend serves it: no credentials.
type Service struct {
	ID          string `json:"serviceId"`
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
}

// remoteServices are reg's usable services as the child's request holds
// them: serviceId, URL and description, never their credentials.
func remoteServices(reg *config.Registry) []Service {
	out := make([]Service, 0, len(reg.IDs()))
	for _, id := range reg.IDs() {
		s, _ := reg.Service(id)
		out = append(out, Service{ID: id, URL: s.URL, Description: s.Description})
	}
	return out
}

// registry is the registry req names: its Services for a registryUrl
// snapshot (as remote builds one: default timeouts), else its Sources
// loaded.
func (req *ChildRequest) registry(kind config.Kind) *config.Registry {
	if req.loaded != nil && req.loaded.Kind == kind {
		return req.loaded
	}
	if req.Sources.RegistryURL == "" {
		return config.Load(req.Sources).For(kind)
	}
	services := make([]config.Service, len(req.Services))
	for i, s := range req.Services {
		services[i] = config.Service{ID: s.ID, URL: s.URL, RawURL: s.URL, Description: s.Description}
	}
	return config.NewRegistry(kind, services, config.DefaultTimeouts, nil)
}

// Limits bound one child's run.
type Limits struct {
	// Timeout is the script's time limit (the parent kills the child
	// after it and a grace period).
	Timeout time.Duration `json:"timeout"`
	// MaxMemory is how much the child may grow while the script runs.
	MaxMemory int64 `json:"maxMemory"`
	// MaxResult bounds the result's JSON; a larger one is replaced by a
	// CodeResultTooLarge result.
	MaxResult int `json:"maxResult"`
	// MaxResponseBytes bounds each call's response body; 0 is
	// restclient.DefaultMaxResponseBytes.
	MaxResponseBytes int64 `json:"maxResponseBytes,omitempty"`
	// Eval bounds one evaluation in a paused frame
	// (runtime.Options.EvalTimeout); 0 is the runtime's.
	Eval time.Duration `json:"eval,omitempty"`
}

// mode is how req's calls are answered (Request.Mode).
func (req *ChildRequest) mode() string {
	return modeOf(req.Mock != nil || req.NoFixtures || req.Fixtures != nil, req.MockFile, req.RecordFile)
}

// maxRequest bounds what a child reads as its request: a script, an input
// and fixtures of 16 MiB each (input.Script, input.Input, input.Fixtures)
// and room for the rest.
const maxRequest = 3*16<<20 + 1<<20

// Messages of a run that cannot start name the file and the line (the
// fixtures' own errors do), never a restls run flag: the user is in an
// editor or on the designer page.

// ChildResult is the last line a child writes on its stdout: the run's
// result and what its JSON leaves out.
type ChildResult struct {
	Result *dryrun.Result `json:"result"`
	// DurationMs is the run's wall time (dryrun.Result.DurationMs, which
	// its JSON leaves out).
	DurationMs float64 `json:"durationMs"`
	// RecordError says why RecordFile could not be written; the run
	// happened (its logs say it too).
	RecordError string `json:"recordError,omitempty"`
	// AfterCalls are the logs' AfterCalls (dryrun.LogEntry), which their
	// JSON leaves out: where the terminal preview shows each line.
	AfterCalls []int `json:"afterCalls,omitempty"`
}

// carry fills what the result's JSON leaves out, before it is written.
func (c *ChildResult) carry() {
	c.AfterCalls = nil
	for _, l := range c.Result.Logs {
		c.AfterCalls = append(c.AfterCalls, l.AfterCalls)
	}
}

// restore puts back what carry kept, once read.
func (c *ChildResult) restore() {
	c.Result.DurationMs = c.DurationMs
	if len(c.AfterCalls) == len(c.Result.Logs) {
		for i, n := range c.AfterCalls {
			c.Result.Logs[i].AfterCalls = n
		}
	}
}

// ChildMain runs the one dry run its ChildRequest on stdin asks for and
// writes one ChildResult to stdout as a line of JSON (after the run's
// events, when the request asked for them); it returns the exit status
// (0 whenever it wrote a result). A run it cannot start (no configuration,
// fixtures that do not parse) is a result too, with the error code
// CodeRunnerFailed and a message saying why. Its log lines (warnings: a
// token refused, a configuration error; debug lines with LogLevel debug)
// go to stderr, which the parent keeps for its log when the child ends
// without a result, or relays (restls run). An interrupt (the parent's
// forwarded Ctrl-C) cancels the run, which still ends with a result.
func ChildMain(stdin io.Reader, stdout, stderr io.Writer) int {
	var req ChildRequest
	dec := json.NewDecoder(io.LimitReader(stdin, maxRequest))
	if err := dec.Decode(&req); err != nil {
		fmt.Fprintf(stderr, "restls: this process is a dry run's child, started by restls with a request on stdin: %v\n", err)
		return 2
	}
	if req.Limits.MaxResult <= 0 {
		req.Limits.MaxResult = MaxResult
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	out := &eventWriter{w: stdout}
	res := childRun(ctx, &req, consoleLog(stderr, req.LogLevel), out.observer(&req), func(res *dryrun.Result) {
		// The hard stop: memory reached its limit before the interrupt
		// took effect. The result is written here and the process ends.
		out.mu.Lock() // no event after the result
		_ = writeResult(stdout, &ChildResult{Result: res}, &req)
		os.Exit(0)
	})
	out.mu.Lock()
	defer out.mu.Unlock()
	if err := writeResult(stdout, res, &req); err != nil {
		fmt.Fprintf(stderr, "restls: write the dry run's result: %v\n", err)
		return 2
	}
	return 0
}

// InProcess runs req in this process, as a child would, and returns its
// result; obs (nil: none) sees the run's events as they happen, in this
// process. reg, when not nil, is the registry of req's kind, already
// loaded (else req's sources are loaded). It applies the memory watchdog
// (Limits.MaxMemory) but no OS limit and no hard stop: restls test runs
// its cases this way, and an in-process test of restls run. Its log lines
// (a token refused, each call at debug) go to stderr, at req.LogLevel, as
// a child writes them, when stderr is not nil (restls run -v relays
// them); else to log, at log's own level: the process's log, as the lines
// of a run in a child join its parent's (nil: none).
func InProcess(ctx context.Context, req ChildRequest, reg *config.Registry, stderr io.Writer, log *zap.Logger, obs dryrun.Observer) *ChildResult {
	if stderr != nil {
		log = consoleLog(stderr, req.LogLevel)
	} else if log == nil {
		log = zap.NewNop()
	}
	if req.Limits.MaxResult <= 0 {
		req.Limits.MaxResult = MaxResult
	}
	req.loaded = reg
	res := childRun(ctx, &req, log, obs, nil)
	res.Result.Mode = req.mode()
	return res
}

// consoleLog is the log of a run whose lines go to w, as a child writes
// them on its stderr: console lines at level ("" is warn).
func consoleLog(w io.Writer, level string) *zap.Logger {
	l := zapcore.WarnLevel
	if level != "" {
		if pl, err := zapcore.ParseLevel(level); err == nil {
			l = pl
		}
	}
	return zap.New(zapcore.NewCore(zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig()), zapcore.AddSync(w), l))
}

// childRun runs req in this process, its log lines to logger; hardStop
// (nil in tests) ends the process at the memory limit.
func childRun(ctx context.Context, req *ChildRequest, logger *zap.Logger, obs dryrun.Observer, hardStop func(*dryrun.Result)) *ChildResult {
	start := time.Now()
	kind, err := config.ParseKind(string(req.Kind))
	if err != nil {
		return failed(err.Error())
	}
	mock, err := req.fixtures()
	if err != nil {
		return failed(err.Error())
	}
	var rec *restclient.Recorder
	if req.RecordFile != "" {
		if rec, err = restclient.NewRecorder(restclient.RecordOptions{File: req.RecordFile, Headers: req.RecordHeaders}); err != nil {
			return failed(err.Error())
		}
	}
	reg := req.registry(kind)
	if !reg.Loaded {
		return failed(noConfiguration)
	}
	defer func() { _ = logger.Sync() }()
	var stop func(string)
	if hardStop != nil {
		if err := scriptrt.LimitProcessMemory(req.Limits.MaxMemory); err != nil {
			logger.Warn("no OS memory limit for this run; the watchdog still applies", zap.Error(err))
		}
		stop = func(msg string) { hardStop(scriptrt.MemoryLimitResult(msg)) }
	}
	name := req.Script
	if name == "" {
		name = "-"
	}
	res := scriptrt.Run(ctx, scriptrt.Options{
		Source:           req.Text,
		Filename:         name,
		Kind:             kind,
		Registry:         reg,
		MaxResponseBytes: req.Limits.MaxResponseBytes,
		Mock:             mock,
		Trace:            req.Trace,
		Record:           rec,
		Live:             req.Live,
		Input:            req.Input,
		Timeout:          req.Limits.Timeout,
		EvalTimeout:      req.Limits.Eval,
		Logger:           logger,
		MaxMemory:        req.Limits.MaxMemory,
		MemoryHardStop:   stop,
		AllowServices:    req.AllowServices,
		Observer:         obs,
		Statements:       req.Statements,
		Values:           req.Values,
	})
	out := &ChildResult{Result: res, DurationMs: res.DurationMs}
	if out.DurationMs == 0 {
		out.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	}
	if rec != nil {
		if err := rec.Save(); err != nil {
			// The run happened; only its fixtures are not written. The
			// user reads it with the result, as a console error would be.
			out.RecordError = err.Error()
			res.Logs = append(res.Logs, dryrun.LogEntry{Level: "error", Message: "restls: " + err.Error(), AfterCalls: len(res.Calls)})
		}
	}
	return out
}

// fixtures is the Mock answering req's calls, nil for a live run.
func (req *ChildRequest) fixtures() (*restclient.Mock, error) {
	var mock *restclient.Mock
	var err error
	switch {
	case req.Fixtures != nil:
		return req.Fixtures, nil // as the caller made them, its advice included
	case req.Mock != nil:
		name := req.MockName
		if name == "" {
			name = restclient.PastedMocks
		}
		mock, err = restclient.ParseMock(name, []byte(*req.Mock))
	case req.MockFile != "":
		mock, err = restclient.LoadMockAs(req.MockFile, req.MockName)
	case req.NoFixtures:
		mock = &restclient.Mock{File: req.MockName}
	default:
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	mock.Script = req.Script
	mock.Advice = req.MockAdvice
	return mock, nil
}

// noConfiguration is the message of a run with no configuration to load.
const noConfiguration = config.NoConfiguration

// failed is the result of a run that could not start, saying why.
func failed(msg string) *ChildResult {
	return &ChildResult{Result: crashed(CodeRunnerFailed, "Error", msg)}
}

// writeResult writes res with req's mode as one line of JSON, or a
// CodeResultTooLarge result when that is more than req's MaxResult.
func writeResult(w io.Writer, res *ChildResult, req *ChildRequest) error {
	res.Result.Mode = req.mode()
	res.carry()
	raw, err := input.TextJSON(res) // bodies as they were sent, not HTML-escaped
	if err != nil {
		return err
	}
	if len(raw) > req.Limits.MaxResult {
		big := tooLarge(req.Limits.MaxResult)
		big.Mode = res.Result.Mode
		if raw, err = input.TextJSON(&ChildResult{Result: big, DurationMs: res.DurationMs}); err != nil {
			return err
		}
	}
	_, err = w.Write(append(raw, '\n'))
	return err
}

// tooLarge is the result of a run whose result passed MaxResult.
func tooLarge(limit int) *dryrun.Result {
	return crashed(CodeResultTooLarge, "RangeError", fmt.Sprintf("the run's result, calls and logs came to more than %s "+
		"of JSON, more than the server keeps of a run: return a smaller value or log less (restls run on the command line prints it whole)",
		scriptrt.FormatSize(int64(limit))))
}
