package isolate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/restls/restls/config"
	scriptrt "github.com/restls/restls/runtime"
	"github.com/restls/restls/runtime/restclient"
)

// ErrBusy is returned by Runner.Run when MaxRuns runs are already going.
// Callers answer it as "try again shortly" (HTTP 429 with Retry-After).
var ErrBusy = errors.New("the server is already running its maximum number of dry runs; try again in a few seconds")

// ErrRemoteRegistry is returned for a snapshot read from a registryUrl: the
// child reads configuration files, and a remote hints map has none.
var ErrRemoteRegistry = errors.New("dry runs need the service configuration files, and this configuration comes from registryUrl: run the script on the backend that owns the files (POST /v1/run there)")

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
}

// Modes of a run, reported in its result's "mode" field.
const (
	ModeLive   = "live"
	ModeMock   = "mock"
	ModeRecord = "record"
)

// Mode is how req's calls are answered: record when it writes a fixture
// file (whether or not fixtures answer some calls first), mock when
// fixtures (a file or a document) answer them, live otherwise.
func (req Request) Mode() string {
	switch {
	case req.RecordFile != "":
		return ModeRecord
	case req.MockFile != "" || req.Mock != nil:
		return ModeMock
	}
	return ModeLive
}

// Runner runs each dry run in a child `restls run --json` process.
type Runner struct {
	opts Options
	sem  chan struct{}
	log  *zap.Logger
}

// New returns a Runner. It removes the run directories that servers
// killed before cleaning up left in the temporary directory (cleanStale).
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
	if n := cleanStale(os.TempDir()); n > 0 {
		log.Info("removed the run directories a killed server left behind", zap.Int("count", n), zap.String("dir", os.TempDir()))
	}
	return &Runner{opts: opts, sem: make(chan struct{}, opts.MaxRuns), log: log}
}

// Run runs req in a child process and returns what `restls run --json`
// prints: the child's own object, or one made here when the child ended
// without one (code memory-limit, script-timeout or runner-crashed). The
// error is ErrBusy, ErrRemoteRegistry, ctx's error when ctx ended (the
// child is killed and waited for), or a failure to start the child.
func (r *Runner) Run(ctx context.Context, req Request) (json.RawMessage, error) {
	if req.Sources.RegistryURL != "" {
		return nil, ErrRemoteRegistry
	}
	select {
	case r.sem <- struct{}{}:
	default:
		return nil, ErrBusy
	}
	defer func() { <-r.sem }()

	exe := r.opts.Executable
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("find the restls executable for the dry run: %w", err)
		}
	}
	args := []string{"run", "--json",
		"--kind", string(req.Kind),
		"--timeout", r.opts.Timeout.String(),
		"--max-memory", strconv.FormatInt(r.opts.MaxMemory, 10),
	}
	args = append(args, sourceFlags(req.Sources)...)
	if req.MockFile != "" {
		args = append(args, "--mock="+req.MockFile)
	}
	if req.RecordFile != "" {
		args = append(args, "--record="+req.RecordFile)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), EnvSupervised+"=1")
	cmd.Stdin = strings.NewReader(req.Text)
	outCap := &capped{b: &stdout, max: MaxResult}
	cmd.Stdout = outCap
	cmd.Stderr = &capped{b: &stderr, max: 64 << 10}
	cmd.SysProcAttr = ChildAttr(true)
	if req.Input != nil {
		// context.input goes on a pipe the child sees as /dev/fd/3.
		pr, pw, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("start the dry run: %w", err)
		}
		defer pr.Close()
		cmd.ExtraFiles = []*os.File{pr}
		args = append(args, "--input", "/dev/fd/3")
		go func() {
			_, _ = pw.Write(req.Input)
			_ = pw.Close()
		}()
	}
	if req.Mock != nil {
		// restls run reads fixtures only from a regular file (as every
		// configuration file): a private temporary one, gone with the run.
		dir, err := os.MkdirTemp("", tempPattern())
		if err != nil {
			return nil, fmt.Errorf("start the dry run: %w", err)
		}
		defer os.RemoveAll(dir)
		file := filepath.Join(dir, "designer.mock.yaml")
		if err := os.WriteFile(file, req.Mock, 0o600); err != nil {
			return nil, fmt.Errorf("start the dry run: write the fixtures: %w", err)
		}
		args = append(args, "--mock", file, "--mock-name", restclient.PastedMocks)
	}
	cmd.Args = append([]string{exe}, append(args, "-")...)

	start := time.Now()
	out, err := Supervise(ctx, cmd, r.opts.MaxMemory, r.opts.Timeout+grace)
	if err != nil {
		return nil, fmt.Errorf("start the dry run: %w", err)
	}
	r.log.Debug("dry run child ended", zap.Duration("duration", time.Since(start)), zap.Int64("peakRSS", out.PeakRSS),
		zap.Stringer("state", out.State), zap.Bool("memoryKilled", out.MemoryKilled), zap.Bool("timeKilled", out.TimeKilled))
	if out.Canceled {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, context.Canceled
	}
	if outCap.over && out.State != nil && out.State.Exited() {
		return withMode(encode(crashed(CodeResultTooLarge, "RangeError", fmt.Sprintf("the run's result, calls and logs came to more than %s "+
			"of JSON, more than the server keeps of a run: return a smaller value or log less (restls run on the command line prints it whole)",
			scriptrt.FormatSize(MaxResult)))), req.Mode()), nil
	}
	return withMode(r.result(out, stdout.Bytes(), stderr.String()), req.Mode()), nil
}

// withMode adds "mode" as the last member of the result object res, which
// is always an object: the child's own (whose members stay as it wrote
// them) or one made here.
func withMode(res json.RawMessage, mode string) json.RawMessage {
	obj := bytes.TrimSpace(res)
	if len(obj) < 2 || obj[0] != '{' || obj[len(obj)-1] != '}' {
		return res
	}
	members := bytes.TrimSpace(obj[1 : len(obj)-1])
	out := make([]byte, 0, len(obj)+24)
	out = append(out, obj[:len(obj)-1]...)
	out = bytes.TrimRight(out, " \t\r\n")
	if len(members) > 0 {
		out = append(out, ',')
	}
	out = append(out, "\n  \"mode\": "...)
	out = strconv.AppendQuote(out, mode)
	return append(out, "\n}"...)
}

func (r *Runner) result(out Outcome, stdout []byte, stderr string) json.RawMessage {
	code, how := -1, ""
	if out.State != nil {
		code = out.State.ExitCode()
		if !out.State.Exited() {
			how = out.State.String()
		}
	}
	return r.resultFor(out, code, how, stdout, stderr)
}

// resultFor is result for a child that ended with exit status code, or
// (how, when not empty) was ended by a signal.
func (r *Runner) resultFor(out Outcome, code int, how string, stdout []byte, stderr string) json.RawMessage {
	switch {
	case out.MemoryKilled || outOfMemory([]byte(stderr)):
		return encode(scriptrt.MemoryLimitResult(scriptrt.MemoryLimitMessage(r.opts.MaxMemory)))
	case out.TimeKilled:
		return encode(crashed(scriptrt.CodeScriptTimeout, "TimeoutError", fmt.Sprintf("the script ran longer than its time limit of %v and its process was stopped: look for a loop that never ends", r.opts.Timeout)))
	case (code == 0 || code == 1) && json.Valid(stdout):
		return json.RawMessage(bytes.TrimSpace(stdout))
	case code == 2 && lastLine(stderr, "restls run: ") != "":
		// The child could not load what it needs: its own words say what.
		return encode(crashed(CodeRunnerFailed, "Error", strings.TrimPrefix(lastLine(stderr, "restls run: "), "restls run: ")))
	}
	r.log.Warn("dry run process ended without a result", zap.Stringer("state", out.State), zap.String("stderr", tail(stderr, 4<<10)))
	what := "exit status " + strconv.Itoa(code)
	if how != "" {
		what = how
	}
	return encode(crashed(CodeRunnerCrashed, "InternalError", "the dry run's process ended without a result ("+what+"); the server log has its last output. Please report it if the script does nothing unusual"))
}

func crashed(code, name, msg string) *scriptrt.Result {
	res := scriptrt.MemoryLimitResult("")
	res.Error = &scriptrt.ScriptError{Name: name, Code: code, Message: msg}
	return res
}

func encode(res *scriptrt.Result) json.RawMessage {
	raw, err := json.Marshal(res)
	if err != nil { // a Result of plain strings always encodes
		panic(err)
	}
	return raw
}

// sourceFlags are the config flags that make a child read what src names.
func sourceFlags(src config.Sources) []string {
	var a []string
	add := func(flag, v string) {
		if v != "" {
			a = append(a, "--"+flag+"="+v)
		}
	}
	add("config-root", src.ConfigRoot)
	for _, p := range src.Properties {
		add("properties", p)
	}
	add("service-xml", src.ServiceXML)
	add("handler-xml", src.HandlerXML)
	add("platform-config", src.PlatformConfig)
	return a
}

func lastLine(s, prefix string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], prefix) {
			return lines[i]
		}
	}
	return ""
}

func tail(s string, n int) string {
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
