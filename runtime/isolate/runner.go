package isolate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
	scriptrt "github.com/restls/restls/runtime"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
)

// ErrBusy is returned by Runner.Run when MaxRuns runs are already going.
// Callers answer it as "try again shortly" (HTTP 429 with Retry-After).
var ErrBusy = errors.New("the server is already running its maximum number of dry runs; try again in a few seconds")

// ErrRemoteRegistry is returned for a snapshot read from a registryUrl that
// has given no serviceIds (the backend has not answered): there is nothing
// to run the script against.
var ErrRemoteRegistry = errors.New("the registry backend (registryUrl) has given no serviceIds yet, so there is nothing to run the script against: check that it answers (restls/status says why not) and run again")

// CodeRunnerCrashed is the error code of a run whose child process ended
// without a result; CodeRunnerFailed of one whose child could not start
// the script (no configuration found, for example) and said why.
const (
	CodeRunnerCrashed = "runner-crashed"
	CodeRunnerFailed  = "runner-failed"
)

// DefaultMaxRuns is how many dry runs may go at once unless told otherwise.
const DefaultMaxRuns = 2

// RetryAfter is what a busy caller is told to wait.
const RetryAfter = 2 * time.Second

// grace is how long past its own --timeout a child may take (to convert
// its result and exit) before it is killed.
const grace = 5 * time.Second

// MaxResult bounds what the server keeps of a child's output (its result,
// calls and logs as JSON): a run that prints more ends with
// CodeResultTooLarge instead. The server holds each run's output while it
// answers, so --max-runs runs hold at most that many times this (a
// buffer may grow to twice it): two runs returning 100 MB each held
// 530 MiB before (issue 23). A designer cannot show more usefully anyway.
const MaxResult = 16 << 20

// CodeResultTooLarge is the error code of a run whose output passed
// MaxResult.
const CodeResultTooLarge = "result-too-large"

// Options configure a Runner.
type Options struct {
	// Executable is the restls binary; empty means os.Executable().
	Executable string
	// MaxMemory is each child's memory limit; 0 means DefaultMaxMemory.
	MaxMemory int64
	// Timeout is each run's time limit; 0 means runtime.DefaultTimeout.
	Timeout time.Duration
	// MaxRuns is how many runs may go at once; 0 means DefaultMaxRuns.
	MaxRuns int
	// Logger gets a line per run; nil discards.
	Logger *zap.Logger
	// Sweep removes, in New, the run directories that servers of earlier
	// versions, killed before cleaning up, left in the temporary
	// directory (cleanStale). Only a server sets it (serve, mcp): it
	// reads the whole temporary directory, tens of thousands of entries
	// on a shared machine, which a one-shot command (run, test) need not
	// pay at every start.
	Sweep bool
}

// Request is one dry run.
type Request struct {
	// Text is the script.
	Text string
	Kind config.Kind
	// Input is context.input as JSON, or nil.
	Input []byte
	// Mock is a fixture document (the --mock format, YAML or JSON) that
	// answers the calls instead of the network, or nil for a live run.
	// Answers and messages call it restclient.PastedMocks, with the
	// lines of this text, never by the server's temporary copy.
	Mock []byte
	// Sources is where the child reads the configuration: the sources the
	// caller's snapshot was loaded from.
	Sources config.Sources
	// MockFile, when set, is the fixture file the child answers calls from
	// (--mock); RecordFile the one it writes the live answers to
	// (--record; with MockFile, only the calls no fixture answers). The
	// caller decides which files a client may name: the child reads and
	// writes them as the server's user.
	MockFile   string
	RecordFile string
	// Registry is the registry of req.Kind when Sources name a
	// registryUrl: such a snapshot has no files for the child to load, so
	// its services travel in the child's request instead (serviceId, URL
	// and description only: a registry backend serves no credentials, and
	// none would be copied). Ignored for file sources.
	Registry *config.Registry
	// AllowServices, when not nil, are the only serviceIds the script may
	// call; any other call fails with code service-not-allowed and never
	// reaches the network (serve --http's runner role limited to some
	// services).
	AllowServices []string

	// Script names the script in positions and messages; MockName the
	// fixtures (Mock or MockFile), MockAdvice ends a no-fixture message,
	// NoFixtures answers every call with no-fixture from no file, Live
	// sends the calls no fixture answers, RecordHeaders are what
	// RecordFile keeps, Trace keeps timing phases and header blocks,
	// LogLevel is the child's log level ("" is warn): ChildRequest's.
	Script        string
	MockName      string
	MockAdvice    string
	NoFixtures    bool
	Live          bool
	RecordHeaders []string
	Trace         bool
	LogLevel      string
	// Timeout, MaxMemory and MaxResponseBytes bound this run; 0 is the
	// Runner's (Options) or the default.
	Timeout          time.Duration
	MaxMemory        int64
	MaxResponseBytes int64
	// EvalTimeout bounds one evaluation in a paused frame (a debug run's;
	// runtime.Options.EvalTimeout); 0 is the runtime's.
	EvalTimeout time.Duration
	// Observer, when set, sees the run's events as the child streams
	// them, and its result; Statements asks for the statements reached.
	Observer   dryrun.Observer
	Statements bool
	// Values keeps the values the script's variables were given
	// (runtime.Options.Values).
	Values bool
	// Stderr, when set, receives the child's stderr as it is written
	// (restls run relays its -v lines); it is still kept for the log.
	Stderr io.Writer
	// Interrupt: when ctx ends, the child is interrupted (as by Ctrl-C)
	// and its result, a canceled run, is returned, instead of killing it
	// and returning ctx's error (restls run).
	Interrupt bool
	// Parsed are fixtures already parsed, used as they are in place of
	// Mock and MockFile (restls test's, whose case's and file's fixtures
	// keep their own file and line): a child reads them as JSON
	// (ChildRequest.Fixtures), an in-process run uses them as given.
	Parsed *restclient.Mock
}

// Child is the request a child reads for req, with lim for the limits req
// leaves at 0.
func (req Request) Child(lim Limits) (ChildRequest, error) {
	var services []Service
	if req.Sources.RegistryURL != "" {
		if req.Registry == nil || !req.Registry.Loaded {
			return ChildRequest{}, ErrRemoteRegistry
		}
		services = remoteServices(req.Registry)
	}
	if req.Timeout > 0 {
		lim.Timeout = req.Timeout
	}
	if req.MaxMemory > 0 {
		lim.MaxMemory = req.MaxMemory
	}
	if req.MaxResponseBytes > 0 {
		lim.MaxResponseBytes = req.MaxResponseBytes
	}
	if req.EvalTimeout > 0 {
		lim.Eval = req.EvalTimeout
	}
	if lim.MaxResult <= 0 {
		lim.MaxResult = MaxResult
	}
	creq := ChildRequest{Sources: req.Sources, Services: services, Kind: req.Kind, Text: req.Text, Input: req.Input,
		MockFile: req.MockFile, RecordFile: req.RecordFile, AllowServices: req.AllowServices, Limits: lim,
		Script: req.Script, MockName: req.MockName, MockAdvice: req.MockAdvice, NoFixtures: req.NoFixtures, Live: req.Live,
		RecordHeaders: req.RecordHeaders, Trace: req.Trace, LogLevel: req.LogLevel,
		Observe: req.Observer != nil, Statements: req.Observer != nil && req.Statements, Values: req.Values}
	if _, ok := req.Observer.(dryrun.CoverageObserver); ok && creq.Statements {
		creq.Coverage = true
	}
	if req.Mock != nil {
		mock := string(req.Mock)
		creq.Mock = &mock
	}
	creq.Fixtures = req.Parsed
	return creq, nil
}

// Modes of a run, in its result's Mode.
const (
	ModeLive   = dryrun.ModeLive
	ModeMock   = dryrun.ModeMock
	ModeRecord = dryrun.ModeRecord
)

// Mode is how req's calls are answered: record when it writes a fixture
// file (whether or not fixtures answer some calls first), mock when
// fixtures (a file, a document or parsed ones) answer them, live otherwise.
func (req Request) Mode() string {
	return modeOf(req.Mock != nil || req.NoFixtures || req.Parsed != nil, req.MockFile, req.RecordFile)
}

func modeOf(pasted bool, mockFile, recordFile string) string {
	switch {
	case recordFile != "":
		return ModeRecord
	case mockFile != "" || pasted:
		return ModeMock
	}
	return ModeLive
}

// Runner runs each dry run in a child process of the restls binary
// (ChildArg, ChildMain).
type Runner struct {
	opts Options
	sem  chan struct{}
	log  *zap.Logger
	// grace is the package's grace; a test shortens it rather than
	// waiting 5 s for a child that never ends.
	grace time.Duration
}

// New returns a Runner. With Options.Sweep it removes the run
// directories that servers killed before cleaning up left in the
// temporary directory (cleanStale).
func New(opts Options) *Runner {
	if opts.MaxMemory <= 0 {
		opts.MaxMemory = scriptrt.DefaultMaxMemory
	}
	if opts.Timeout <= 0 {
		opts.Timeout = scriptrt.DefaultTimeout
	}
	if opts.MaxRuns <= 0 {
		opts.MaxRuns = DefaultMaxRuns
	}
	log := opts.Logger
	if log == nil {
		log = zap.NewNop()
	}
	if opts.Sweep {
		if n := cleanStale(os.TempDir()); n > 0 {
			log.Info("removed the run directories a killed server left behind", zap.Int("count", n), zap.String("dir", os.TempDir()))
		}
	}
	return &Runner{opts: opts, sem: make(chan struct{}, opts.MaxRuns), log: log, grace: grace}
}

// RunChild runs req in a child process and returns its result: the
// child's own, or one made here when the child ended without one (code
// memory-limit, script-timeout, result-too-large or runner-crashed); its
// Mode is req's. The error is ErrBusy, ErrRemoteRegistry, ctx's error
// when ctx ended (the child is killed and waited for; with
// req.Interrupt, interrupted and its result returned), or a failure to
// start the child. The run's slot is taken here unless the caller holds
// one (TryAcquire) and says so in ctx (WithSlot).
func (r *Runner) RunChild(ctx context.Context, req Request) (*ChildResult, error) {
	creq, err := req.Child(Limits{Timeout: r.opts.Timeout, MaxMemory: r.opts.MaxMemory, MaxResult: MaxResult})
	if err != nil {
		return nil, err
	}
	if !hasSlot(ctx) {
		release, ok := r.TryAcquire()
		if !ok {
			return nil, ErrBusy
		}
		defer release()
	}

	exe, err := executable(r.opts.Executable)
	if err != nil {
		return nil, fmt.Errorf("find the restls executable for the dry run: %w", err)
	}
	body, err := input.TextJSON(&creq) // pasted fixtures' bodies as written
	if err != nil {
		return nil, fmt.Errorf("start the dry run: %w", err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(exe, ChildArg)
	cmd.Stdin = bytes.NewReader(body)
	// A child writes at most MaxResult itself; this bound holds for one
	// that does not (a crash in the middle of printing, a different build).
	outCap := &capped{b: &stdout, max: MaxResult}
	cmd.Stdout = outCap
	var events *eventReader
	if req.Observer != nil {
		events = &eventReader{obs: req.Observer, rest: outCap}
		cmd.Stdout = events
	}
	var errOut io.Writer = &capped{b: &stderr, max: 64 << 10}
	if req.Stderr != nil {
		errOut = io.MultiWriter(req.Stderr, errOut)
	}
	cmd.Stderr = errOut
	cmd.SysProcAttr = ChildAttr(true)

	start := time.Now()
	out, err := supervise(ctx, cmd, creq.Limits.MaxMemory, creq.Limits.Timeout+r.grace, req.Interrupt)
	if err != nil {
		return nil, fmt.Errorf("start the dry run: %w", err)
	}
	if events != nil {
		events.endLine()
	}
	r.log.Debug("dry run child ended", zap.Duration("duration", time.Since(start)), zap.Int64("peakRSS", out.PeakRSS),
		zap.Stringer("state", out.State), zap.Bool("memoryKilled", out.MemoryKilled), zap.Bool("timeKilled", out.TimeKilled))
	if out.Canceled {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, context.Canceled
	}
	var res *ChildResult
	if outCap.over && out.State != nil && out.State.Exited() {
		res = &ChildResult{Result: tooLarge(MaxResult)}
	} else {
		res = r.result(out, creq.Limits, stdout.Bytes(), stderr.Bytes())
	}
	res.Result.Mode = req.Mode()
	if req.Observer != nil {
		req.Observer.Done(res.Result)
	}
	return res, nil
}

// executable is exe, the restls binary a child runs, or this process's
// when exe is empty: a run's child and a debug session's alike.
func executable(exe string) (string, error) {
	if exe != "" {
		return exe, nil
	}
	return os.Executable()
}

// TryAcquire takes one of the MaxRuns slots, without waiting: ok is false
// when every slot is taken. release gives it back.
func (r *Runner) TryAcquire() (release func(), ok bool) {
	select {
	case r.sem <- struct{}{}:
		var once sync.Once
		return func() { once.Do(func() { <-r.sem }) }, true
	default:
		return nil, false
	}
}

type slotKey struct{}

// WithSlot marks ctx as holding a slot taken with TryAcquire, so the runs
// under it take none of their own.
func WithSlot(ctx context.Context) context.Context { return context.WithValue(ctx, slotKey{}, true) }

func hasSlot(ctx context.Context) bool { v, _ := ctx.Value(slotKey{}).(bool); return v }

func (r *Runner) result(out Outcome, lim Limits, stdout, stderr []byte) *ChildResult {
	code, how := -1, ""
	if out.State != nil {
		code = out.State.ExitCode()
		if !out.State.Exited() {
			how = out.State.String()
		}
	}
	return r.resultFor(out, lim, code, how, stdout, stderr)
}

// resultFor is result for a child that ended with exit status code, or
// (how, when not empty) was ended by a signal.
func (r *Runner) resultFor(out Outcome, lim Limits, code int, how string, stdout, stderr []byte) *ChildResult {
	switch {
	case out.MemoryKilled || outOfMemory(stderr):
		return &ChildResult{Result: scriptrt.MemoryLimitResult(scriptrt.MemoryLimitMessage(lim.MaxMemory))}
	case out.TimeKilled:
		return &ChildResult{Result: crashed(scriptrt.CodeScriptTimeout, "TimeoutError", fmt.Sprintf("the script ran longer than its time limit of %v and its process was stopped: look for a loop that never ends", lim.Timeout))}
	case code == 0:
		var res ChildResult
		err := json.Unmarshal(stdout, &res)
		if err == nil && res.Result != nil {
			res.restore()
			return &res
		}
		if err == nil {
			err = errors.New("no result")
		}
		r.log.Warn("dry run process wrote a result that does not decode", zap.Error(err), zap.Int("bytes", len(stdout)))
	}
	r.log.Warn("dry run process ended without a result", zap.Stringer("state", out.State), zap.ByteString("stderr", tail(stderr, 4<<10)))
	what := "exit status " + strconv.Itoa(code)
	if how != "" {
		what = how
	}
	return &ChildResult{Result: crashed(CodeRunnerCrashed, "InternalError", "the dry run's process ended without a result ("+what+"); the server log has its last output. Please report it if the script does nothing unusual")}
}

func crashed(code, name, msg string) *dryrun.Result {
	res := scriptrt.MemoryLimitResult("")
	res.Error = &scriptrt.ScriptError{Name: name, Code: code, Message: msg}
	return res
}

func tail(s []byte, n int) []byte {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// capped keeps the first max bytes written and drops the rest, so a child
// cannot grow the server's memory through its output.
type capped struct {
	b   *bytes.Buffer
	max int
	// over: more than max was written.
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if len(p) > c.max-c.b.Len() {
		c.over = true
	}
	if room := c.max - c.b.Len(); room > 0 {
		if len(p) > room {
			c.b.Write(p[:room])
		} else {
			c.b.Write(p)
		}
	}
	return len(p), nil
}
