package dap

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	godap "github.com/google/go-dap"
	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/input"
	"github.com/restls/restls/runtime"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/workspace"
)

// Options are what a debug session runs with.
type Options struct {
	// Snapshot is the project as a run sees it in environment env (""
	// for the default): the process's workspace.Session's.
	Snapshot func(ctx context.Context, env string) (workspace.Snapshot, error)
	// Run is the engine's Run (engine.InProcess: a paused run waits in
	// this process).
	Run func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error)
	// Idle ends a session that hears nothing from its client for this
	// long, its run with it (DefaultIdle when 0).
	Idle time.Duration
	// Wall bounds a debug run from launch to end, paused time included
	// (DefaultWall when 0): a run's time limit would stop a run paused
	// for longer than it.
	Wall time.Duration
	// Vet, when set, sees every launch configuration before anything is
	// read, and may refuse it (an error the client shows) or change it: a
	// designer backend refuses paths, whose files a browser must not make
	// the server read.
	Vet func(*LaunchArgs) error
	// Show is how a path is shown in messages (nil: as it is).
	Show   func(path string) string
	Logger *zap.Logger
}

// DefaultIdle and DefaultWall are the session's limits when Options
// leaves them 0.
const (
	DefaultIdle = 10 * time.Minute
	DefaultWall = time.Hour
)

// threadID is the one thread: a script runs on one goroutine.
const threadID = 1

// LaunchArgs are the launch request's arguments (the launch
// configuration, docs/debugging.md).
type LaunchArgs struct {
	// Program is the script's path.
	Program string `json:"program"`
	// Text is the script's text, for a client whose script is no file
	// (the designer page): with it, Program is only the script's name in
	// stack traces and breakpoints, never read; the fixtures are
	// FixturesText or none.
	Text string `json:"text,omitempty"`
	// Fixtures is a fixtures file; FixturesText a fixtures document
	// inline. With neither, the fixtures file beside the script answers,
	// if there is one.
	Fixtures     string `json:"fixtures,omitempty"`
	FixturesText string `json:"fixturesText,omitempty"`
	// Live sends the calls no fixture answers to their services, as
	// restls run does; off, they fail with no-fixture.
	Live bool `json:"live,omitempty"`
	// Input is context.input.
	Input json.RawMessage `json:"input,omitempty"`
	// Kind is the script's kind ("" lets the kind rule decide); Env the
	// environment ("" is the project's default).
	Kind string `json:"kind,omitempty"`
	Env  string `json:"env,omitempty"`
	// StopOnEntry stops before the first statement.
	StopOnEntry bool `json:"stopOnEntry,omitempty"`
}

// Serve is one debug session over r and w (the client's messages in r,
// the server's to w) until the client disconnects, r ends, the session
// is idle past its limit or ctx ends.
func Serve(ctx context.Context, r io.Reader, w io.Writer, o Options) error {
	if o.Idle <= 0 {
		o.Idle = DefaultIdle
	}
	if o.Wall <= 0 {
		o.Wall = DefaultWall
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &session{o: o, w: w, ctx: ctx, breakpoints: map[string][]int{}, resume: make(chan struct{}, 1), evals: make(chan evalAsk), ran: make(chan struct{})}
	msgs := make(chan godap.Message)
	readErr := make(chan error, 1)
	go func() {
		br := bufio.NewReader(r)
		for {
			m, err := godap.ReadProtocolMessage(br)
			if err != nil {
				var fe *godap.DecodeProtocolMessageFieldError
				if errors.As(err, &fe) {
					s.reply(fe.Seq, fe.SubType, fmt.Sprintf("restls dap does not handle %q: %v", fe.SubType, err))
					continue
				}
				readErr <- err
				return
			}
			select {
			case msgs <- m:
			case <-ctx.Done():
				return
			}
		}
	}()
	idle := time.NewTimer(o.Idle)
	defer idle.Stop()
	defer s.end()
	for {
		select {
		case m := <-msgs:
			idle.Reset(o.Idle)
			if done := s.handle(m); done {
				return nil
			}
		case err := <-readErr:
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		case <-idle.C:
			s.output("console", fmt.Sprintf("restls dap: the client sent nothing for %v: the session ends (a session's idle limit)\n", o.Idle))
			s.event(&godap.TerminatedEvent{Event: s.newEvent("terminated")})
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// session is one client's debug session.
type session struct {
	o   Options
	ctx context.Context

	wmu sync.Mutex
	w   io.Writer
	seq int

	mu          sync.Mutex
	breakpoints map[string][]int // by cleaned path: the lines asked
	launch      *LaunchArgs
	text        string
	lines       []int // the script's lines that can stop
	configured  bool
	started     bool
	cancelRun   context.CancelFunc
	ran         chan struct{} // closed when the run ended

	// Stepping, read and written under mu by the run's goroutine and the
	// handlers.
	mode       stepMode
	modeDepth  int
	pause      bool
	lastLine   int
	lastColumn int
	stopped    []dryrun.Frame // the stack where the run stands stopped
	resume     chan struct{}
	runDone    <-chan struct{} // the run's context's Done
	evals      chan evalAsk
	names      []string // the locals where the run stands stopped
}

// localsRef is the variables reference of the innermost frame's locals.
const localsRef = 1

func (s *session) isStopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped != nil
}

// locals are the innermost frame's locals with their values, each
// evaluated on the run's goroutine (a value not reached yet, a let
// before its declaration, shows its error).
func (s *session) locals() []godap.Variable {
	s.mu.Lock()
	names := s.names
	s.mu.Unlock()
	out := make([]godap.Variable, 0, len(names))
	for _, n := range names {
		v, err := s.evaluate(n)
		if err != nil {
			v = err.Error()
		}
		out = append(out, godap.Variable{Name: n, Value: v})
	}
	return out
}

type stepMode int

const (
	runFree stepMode = iota
	stepIn
	stepOver
	stepOut
)

// handle answers m; true ends the session.
func (s *session) handle(m godap.Message) bool {
	switch req := m.(type) {
	case *godap.InitializeRequest:
		s.send(&godap.InitializeResponse{Response: s.newResponse(req.Seq, req.Command), Body: godap.Capabilities{
			SupportsConfigurationDoneRequest: true,
			SupportTerminateDebuggee:         true,
			SupportsEvaluateForHovers:        true,
		}})
	case *godap.LaunchRequest:
		if err := s.doLaunch(req.Arguments); err != nil {
			s.reply(req.Seq, req.Command, err.Error())
			return false
		}
		s.send(&godap.LaunchResponse{Response: s.newResponse(req.Seq, req.Command)})
		// Ready for breakpoints only now: they are verified against the
		// launched script's lines.
		s.event(&godap.InitializedEvent{Event: s.newEvent("initialized")})
		s.maybeStart()
	case *godap.SetBreakpointsRequest:
		s.send(&godap.SetBreakpointsResponse{Response: s.newResponse(req.Seq, req.Command), Body: godap.SetBreakpointsResponseBody{Breakpoints: s.setBreakpoints(req.Arguments)}})
	case *godap.SetExceptionBreakpointsRequest:
		s.send(&godap.SetExceptionBreakpointsResponse{Response: s.newResponse(req.Seq, req.Command)})
	case *godap.ConfigurationDoneRequest:
		s.send(&godap.ConfigurationDoneResponse{Response: s.newResponse(req.Seq, req.Command)})
		s.mu.Lock()
		s.configured = true
		s.mu.Unlock()
		s.maybeStart()
	case *godap.ThreadsRequest:
		s.send(&godap.ThreadsResponse{Response: s.newResponse(req.Seq, req.Command), Body: godap.ThreadsResponseBody{Threads: []godap.Thread{{Id: threadID, Name: "script"}}}})
	case *godap.StackTraceRequest:
		s.send(&godap.StackTraceResponse{Response: s.newResponse(req.Seq, req.Command), Body: s.stackTrace(req.Arguments)})
	case *godap.ScopesRequest:
		scopes := []godap.Scope{}
		if s.isStopped() {
			scopes = append(scopes, godap.Scope{Name: "Locals", PresentationHint: "locals", VariablesReference: localsRef})
		}
		s.send(&godap.ScopesResponse{Response: s.newResponse(req.Seq, req.Command), Body: godap.ScopesResponseBody{Scopes: scopes}})
	case *godap.VariablesRequest:
		vars := []godap.Variable{}
		if req.Arguments.VariablesReference == localsRef {
			vars = s.locals()
		}
		s.send(&godap.VariablesResponse{Response: s.newResponse(req.Seq, req.Command), Body: godap.VariablesResponseBody{Variables: vars}})
	case *godap.EvaluateRequest:
		v, err := s.evaluate(req.Arguments.Expression)
		if err != nil {
			s.reply(req.Seq, req.Command, err.Error())
			return false
		}
		s.send(&godap.EvaluateResponse{Response: s.newResponse(req.Seq, req.Command), Body: godap.EvaluateResponseBody{Result: v}})
	case *godap.ContinueRequest:
		// Answered before the run goes on, so that its events follow.
		s.send(&godap.ContinueResponse{Response: s.newResponse(req.Seq, req.Command), Body: godap.ContinueResponseBody{AllThreadsContinued: true}})
		s.step(runFree)
	case *godap.NextRequest:
		s.send(&godap.NextResponse{Response: s.newResponse(req.Seq, req.Command)})
		s.step(stepOver)
	case *godap.StepInRequest:
		s.send(&godap.StepInResponse{Response: s.newResponse(req.Seq, req.Command)})
		s.step(stepIn)
	case *godap.StepOutRequest:
		s.send(&godap.StepOutResponse{Response: s.newResponse(req.Seq, req.Command)})
		s.step(stepOut)
	case *godap.PauseRequest:
		// The answer first: once pause is set, the run's goroutine may
		// send its stopped event at once, and a client reads the answer
		// to its request before the stop it caused.
		s.send(&godap.PauseResponse{Response: s.newResponse(req.Seq, req.Command)})
		s.mu.Lock()
		s.pause = true
		s.mu.Unlock()
	case *godap.DisconnectRequest:
		s.end()
		s.send(&godap.DisconnectResponse{Response: s.newResponse(req.Seq, req.Command)})
		return true
	case *godap.TerminateRequest:
		s.end()
		s.send(&godap.TerminateResponse{Response: s.newResponse(req.Seq, req.Command)})
	case godap.RequestMessage:
		r := req.GetRequest()
		s.reply(r.Seq, r.Command, fmt.Sprintf("restls dap does not handle %q yet (docs/debugging.md says what works)", r.Command))
	}
	return false
}

// doLaunch reads the script the launch configuration names.
func (s *session) doLaunch(raw json.RawMessage) error {
	var a LaunchArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return fmt.Errorf("the launch configuration is not what restls dap takes (program, text, fixtures, fixturesText, live, input, kind, env, stopOnEntry): %v", err)
	}
	if err := notYet(raw); err != nil {
		return err
	}
	if s.o.Vet != nil {
		if err := s.o.Vet(&a); err != nil {
			return err
		}
	}
	if a.Program == "" && a.Text == "" {
		return errors.New(`the launch configuration has no "program": name the script to debug`)
	}
	if len(a.Input) > 0 && !json.Valid(a.Input) {
		return fmt.Errorf("the launch configuration's input is not JSON")
	}
	text := a.Text
	if text == "" {
		abs, err := filepath.Abs(a.Program)
		if err != nil {
			return err
		}
		a.Program = abs
		b, err := input.ReadFile(abs, input.Script)
		if err != nil {
			return fmt.Errorf("reading the script %s: %w", s.show(abs), err)
		}
		text = string(b)
	} else if a.Program == "" {
		a.Program = "script.js"
	} else {
		a.Program = filepath.Clean(a.Program)
	}
	lines, err := runtime.StatementLines(text)
	if err != nil {
		// The run reports the syntax error; no line can stop.
		lines = nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.launch != nil {
		return errors.New("this session has launched its script already: start another session")
	}
	s.launch, s.text, s.lines = &a, text, lines
	if a.StopOnEntry {
		s.mode = stepIn
	}
	return nil
}

// notBuilt are the launch fields of what restls dap does not do yet,
// with what each asks for: a client that sends one hears so, rather than
// that its configuration has no program.
var notBuilt = map[string]string{
	"testFile": "debugging one case of a test file",
	"case":     "debugging one case of a test file",
	"replay":   "replaying a run from the history or a recorded fixtures file",
}

// notYet refuses a launch configuration that asks for what is not built.
func notYet(raw json.RawMessage) error {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if what, ok := notBuilt[k]; ok {
			return fmt.Errorf("restls dap cannot do %s yet (the launch configuration's %q): docs/debugging.md says what works", what, k)
		}
	}
	return nil
}

// maybeStart starts the run once the client has launched and configured
// its breakpoints.
func (s *session) maybeStart() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || s.launch == nil || !s.configured {
		return
	}
	s.started = true
	ctx, cancel := context.WithTimeout(s.ctx, s.o.Wall)
	s.cancelRun, s.runDone = cancel, ctx.Done()
	go s.run(ctx, *s.launch, s.text)
}

// run runs the script, then says it ended.
func (s *session) run(ctx context.Context, a LaunchArgs, text string) {
	defer close(s.ran)
	defer s.cancelRun()
	code := 1
	defer func() {
		s.event(&godap.ExitedEvent{Event: s.newEvent("exited"), Body: godap.ExitedEventBody{ExitCode: code}})
		s.event(&godap.TerminatedEvent{Event: s.newEvent("terminated")})
	}()
	snap, err := s.o.Snapshot(ctx, a.Env)
	if err != nil {
		s.output("stderr", fmt.Sprintf("restls dap: %v\n", err))
		return
	}
	fx := engine.Fixtures{File: a.Fixtures, Live: a.Live}
	switch {
	case a.FixturesText != "":
		fx.Inline = []byte(a.FixturesText)
	case a.Text != "":
		// A script that is no file has no fixtures beside it.
		fx.File, fx.None = "", !a.Live
	case a.Fixtures == "":
		fx.Beside = true
	}
	req := engine.Request{Path: a.Program, Text: text, Kind: config.Kind(a.Kind), Input: a.Input,
		Fixtures: fx, Observer: (*observer)(s), Statements: true, Show: s.o.Show, Limits: engine.Limits{Timeout: s.o.Wall}}
	if a.Text != "" {
		req.Path, req.Name = "", a.Program
	}
	res, err := s.o.Run(ctx, snap, req)
	if err != nil {
		s.output("stderr", fmt.Sprintf("restls dap: %v\n", err))
		return
	}
	if res.Error != nil {
		s.output("stderr", fmt.Sprintf("%s: %s\n", res.Error.Name, res.Error.Message))
		return
	}
	code = 0
	s.output("console", fmt.Sprintf("result: %s\n", res.Result))
}

// end stops the run, a paused one included, and waits for it.
func (s *session) end() {
	s.mu.Lock()
	cancel, started := s.cancelRun, s.started
	s.mu.Unlock()
	if !started {
		return
	}
	cancel()
	<-s.ran
}

// setBreakpoints keeps the lines asked in a source and says which can
// stop: a line with a statement in the launched script.
func (s *session) setBreakpoints(a godap.SetBreakpointsArguments) []godap.Breakpoint {
	path := filepath.Clean(a.Source.Path)
	asked := make([]int, 0, len(a.Breakpoints))
	for _, b := range a.Breakpoints {
		asked = append(asked, b.Line)
	}
	if len(a.Breakpoints) == 0 {
		asked = append(asked, a.Lines...)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.breakpoints[path] = asked
	out := make([]godap.Breakpoint, len(asked))
	for i, line := range asked {
		out[i] = godap.Breakpoint{Id: i + 1, Line: line, Source: &a.Source}
		switch {
		case s.launch == nil || path != s.launch.Program:
			out[i].Message = "restls dap stops only in the launched script"
		case !slices.Contains(s.lines, line):
			out[i].Message = fmt.Sprintf("line %d has no statement to stop at", line)
		default:
			out[i].Verified = true
		}
	}
	return out
}

// step resumes a stopped run in mode.
func (s *session) step(mode stepMode) {
	s.mu.Lock()
	wasStopped := s.stopped != nil
	s.mode, s.modeDepth = mode, len(s.stopped)
	s.stopped = nil
	s.mu.Unlock()
	if !wasStopped {
		return // a run that runs goes on in mode
	}
	select {
	case s.resume <- struct{}{}:
	default:
	}
}

// stackTrace is the stack where the run stands stopped.
func (s *session) stackTrace(a godap.StackTraceArguments) godap.StackTraceResponseBody {
	s.mu.Lock()
	defer s.mu.Unlock()
	src := &godap.Source{}
	if s.launch != nil {
		src = &godap.Source{Name: filepath.Base(s.launch.Program), Path: s.launch.Program}
	}
	frames := s.stopped[min(a.StartFrame, len(s.stopped)):]
	if a.Levels > 0 && a.Levels < len(frames) {
		frames = frames[:a.Levels]
	}
	out := make([]godap.StackFrame, 0, len(frames))
	for i, f := range frames {
		name := f.Function
		if name == "" {
			name = "(anonymous)"
		}
		out = append(out, godap.StackFrame{Id: a.StartFrame + i + 1, Name: name, Source: src, Line: f.Line, Column: f.Column})
	}
	return godap.StackTraceResponseBody{StackFrames: out, TotalFrames: len(s.stopped)}
}

// observer is the session as the run's observer: it runs on the run's
// goroutine.
type observer session

func (o *observer) CallMade(_ int, c *restclient.Call) {
	// The URL is known once the call is built: a call refused before
	// (no such serviceId) has none.
	s := (*session)(o)
	s.output("console", strings.TrimSpace(fmt.Sprintf("→ %s %s %s", c.Method, c.ServiceID, c.URL))+"\n")
}

func (o *observer) CallAnswered(_ int, c *restclient.Call) {
	s := (*session)(o)
	outcome := "no answer"
	switch {
	case c.ErrorCode != "":
		outcome = "RestClientError " + c.ErrorCode
	case c.Status != nil:
		outcome = fmt.Sprint(c.Status.Code)
	}
	s.output("console", fmt.Sprintf("← %s %s %s %s (%.0f ms)\n", outcome, c.Method, c.ServiceID, c.URL, c.DurationMs))
}

func (o *observer) Log(e dryrun.LogEntry) {
	cat := "stdout"
	if e.Level == "warn" || e.Level == "error" {
		cat = "stderr"
	}
	(*session)(o).output(cat, e.Message+"\n")
}

func (o *observer) Done(*dryrun.Result) {}

func (o *observer) Statement(line, column int) {
	o.StatementStack(line, column, dryrun.Paused{Stack: func() []dryrun.Frame {
		return []dryrun.Frame{{Function: dryrun.ScriptFrame, Line: line, Column: column}}
	}})
}

// StatementStack stops the run at this statement when a breakpoint, a
// step or a pause asks, until the client resumes or the session ends.
func (o *observer) StatementStack(line, column int, p dryrun.Paused) {
	stack := p.Stack
	s := (*session)(o)
	s.mu.Lock()
	reason := ""
	var frames []dryrun.Frame
	// A breakpoint stops at the first statement reached on its line: not
	// again at a later one on the same line, again when the line is
	// reached anew (a loop's next turn).
	newLine := line != s.lastLine || column <= s.lastColumn
	s.lastLine, s.lastColumn = line, column
	switch {
	case s.pause:
		reason = "pause"
	case s.mode == stepIn:
		reason = "step"
	case s.mode == stepOver || s.mode == stepOut:
		frames = stack()
		if d := len(frames); (s.mode == stepOver && d <= s.modeDepth) || (s.mode == stepOut && d < s.modeDepth) {
			reason = "step"
		}
	}
	if reason == "" && newLine && s.launch != nil && slices.Contains(s.breakpoints[s.launch.Program], line) {
		reason = "breakpoint"
	}
	if reason == "" {
		s.mu.Unlock()
		return
	}
	if frames == nil {
		frames = stack()
	}
	s.pause, s.mode, s.stopped = false, runFree, frames
	s.names = nil
	if p.Locals != nil {
		s.names = p.Locals()
	}
	s.mu.Unlock()
	s.event(&godap.StoppedEvent{Event: s.newEvent("stopped"), Body: godap.StoppedEventBody{Reason: reason, ThreadId: threadID, AllThreadsStopped: true}})
	for {
		select {
		case <-s.resume:
			return
		case <-s.runDone:
			return
		case e := <-s.evals:
			// On the run's goroutine, as the runtime needs.
			if p.Eval == nil {
				e.reply <- evalAnswer{err: errors.New("this run cannot evaluate")}
				continue
			}
			v, err := p.Eval(e.expr)
			e.reply <- evalAnswer{v, err}
		}
	}
}

// evalAsk is an expression for the stopped run's goroutine to evaluate.
type evalAsk struct {
	expr  string
	reply chan evalAnswer
}

type evalAnswer struct {
	value string
	err   error
}

// evaluate is expr evaluated where the run stands stopped (its innermost
// frame), by the run's goroutine.
func (s *session) evaluate(expr string) (string, error) {
	s.mu.Lock()
	stopped, done := s.stopped != nil, s.runDone
	s.mu.Unlock()
	if !stopped {
		return "", errors.New("the script is running: pause it, or stop at a breakpoint, to evaluate")
	}
	e := evalAsk{expr: expr, reply: make(chan evalAnswer, 1)}
	select {
	case s.evals <- e:
	case <-done:
		return "", errors.New("the run has ended")
	}
	select {
	case a := <-e.reply:
		return a.value, a.err
	case <-done:
		return "", errors.New("the run has ended")
	}
}

// The messages written.

func (s *session) newResponse(seq int, command string) godap.Response {
	return godap.Response{ProtocolMessage: godap.ProtocolMessage{Type: "response"}, RequestSeq: seq, Command: command, Success: true}
}

func (s *session) newEvent(name string) godap.Event {
	return godap.Event{ProtocolMessage: godap.ProtocolMessage{Type: "event"}, Event: name}
}

func (s *session) reply(seq int, command string, message string) {
	r := s.newResponse(seq, command)
	r.Success, r.Message = false, message
	s.send(&godap.ErrorResponse{Response: r, Body: godap.ErrorResponseBody{Error: &godap.ErrorMessage{Id: 1, Format: message, ShowUser: true}}})
}

func (s *session) output(category, text string) {
	s.event(&godap.OutputEvent{Event: s.newEvent("output"), Body: godap.OutputEventBody{Category: category, Output: text}})
}

func (s *session) event(m godap.Message) { s.send(m) }

// send writes m with the next sequence number.
func (s *session) send(m godap.Message) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.seq++
	switch v := m.(type) {
	case godap.ResponseMessage:
		v.GetResponse().Seq = s.seq
	case godap.EventMessage:
		v.GetEvent().Seq = s.seq
	}
	if err := godap.WriteProtocolMessage(s.w, m); err != nil {
		s.o.Logger.Debug("writing to the DAP client", zap.Error(err))
	}
}

func (s *session) show(path string) string {
	if s.o.Show == nil {
		return path
	}
	return s.o.Show(path)
}
