package dap

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	godap "github.com/google/go-dap"
	"go.uber.org/zap"

	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/dryrun/history"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/scripttest"
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
	// Eval bounds one evaluation in a paused frame: a watch, a
	// breakpoint's condition, the debug console (2 s when 0).
	Eval time.Duration
	// Vet, when set, sees every launch configuration before anything is
	// read, and may refuse it (an error the client shows) or change it: a
	// designer backend refuses paths, whose files a browser must not make
	// the server read.
	Vet func(*LaunchArgs) error
	// History is the run history a replay of "last" reads (nil: none).
	History interface {
		Last(script string, n int) ([]*history.Entry, error)
	}
	// AllowServices, when not nil, are the only serviceIds a run may
	// call (engine.Request.AllowServices: a runner role limited to
	// some services).
	AllowServices []string
	// ReportRuns sends, after each run, a RunEvent with what an audit
	// keeps of it (restls serve's, for the designer's debugger).
	ReportRuns bool
	// Notice hears what a run says besides its result (a description
	// that did not load: engine.Request.Notice); nil is the debug
	// console, as restls run writes it on stderr. restls serve's child
	// says nothing there: the text names the server's files, which a
	// designer page is never shown, and the session's log has it.
	Notice func(msg string)
	// Display is how the server's paths are shown in what the session
	// sends: a launch's messages name files as Display.Path shows them,
	// and every console line has each configuration file it names as
	// Display.Text shows it (the zero Display: as they are). restls dap
	// --request-stdin shows them relative to the configuration root, as
	// web clients see every configuration path; an editor's restls dap
	// shows them as they are.
	Display workspace.PathDisplay
	Logger  *zap.Logger
}

// DefaultIdle and DefaultWall are the session's limits when Options
// leaves them 0.
const (
	DefaultIdle = 10 * time.Minute
	DefaultWall = time.Hour
	// DefaultEval is restls dap's --max-eval: the runtime's bound of one
	// evaluation in a paused frame.
	DefaultEval = runtime.DefaultEvalTimeout
)

// threadID is the one thread: a script runs on one goroutine.
const threadID = 1

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
	s := newSession(ctx, w, o)
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

	mu             sync.Mutex
	breakpoints    map[string]map[int]*breakpoint // by cleaned path, by line
	filters        map[string]bool                // the exception filters on
	nextBreakpoint int
	launch         *LaunchArgs
	text           string
	lines          []int // the script's lines that can stop
	configured     bool
	started        bool
	cancelRun      context.CancelFunc
	ran            chan struct{} // closed when the run ended
	replay         *replay       // the recorded run a replay compares with
	testCase       *scripttest.Case

	// Stepping, read and written under mu by the run's goroutine and the
	// handlers.
	mode       stepMode
	modeDepth  int
	pause      bool
	lastLine   int
	lastColumn int
	stopped    *stop // where the run stands stopped, nil while it runs
	resume     chan struct{}
	runDone    <-chan struct{} // the run's context's Done
	work       chan func(dryrun.Paused)
	inEval     int // evaluations under way on the run's goroutine: they never stop

	// The variables references (variables.go).
	refs    map[int]*ref
	nextRef int
	calls   []*restclient.Call
}

func newSession(ctx context.Context, w io.Writer, o Options) *session {
	return &session{o: o, w: w, ctx: ctx, breakpoints: map[string]map[int]*breakpoint{}, filters: map[string]bool{},
		resume: make(chan struct{}, 1), work: make(chan func(dryrun.Paused)), ran: make(chan struct{}), refs: map[int]*ref{}}
}

type stepMode int

const (
	runFree stepMode = iota
	stepIn
	stepOver
	stepOut
)

// exceptionFilters are the exception breakpoints a client can turn on
// (docs/debugging.md, "Exception breakpoints").
var exceptionFilters = []godap.ExceptionBreakpointsFilter{
	{Filter: "all", Label: "All exceptions", Description: "Stop where any exception is thrown, caught or not"},
	{Filter: "uncaught", Label: "Uncaught exceptions", Description: "Stop where an exception no catch takes is thrown", Default: true},
	{Filter: "apiError", Label: "api.rest.v1 errors", Description: "Stop where an api.rest.v1 call throws the contract's exception (a status outside 2XX: status and status.code set)"},
	{Filter: "restClientError", Label: "RestClientError", Description: "Stop where an api.rest.v1 call fails with a RestClientError (timeout, refused connection, no-fixture...)"},
}

// Capabilities are what restls dap answers initialize with.
func Capabilities() godap.Capabilities {
	return godap.Capabilities{
		SupportsConfigurationDoneRequest:  true,
		SupportTerminateDebuggee:          true,
		SupportsTerminateRequest:          true,
		SupportsEvaluateForHovers:         true,
		SupportsConditionalBreakpoints:    true,
		SupportsHitConditionalBreakpoints: true,
		SupportsLogPoints:                 true,
		SupportsExceptionInfoRequest:      true,
		ExceptionBreakpointFilters:        exceptionFilters,
	}
}

// handle answers m; true ends the session.
func (s *session) handle(m godap.Message) bool {
	switch req := m.(type) {
	case *godap.InitializeRequest:
		s.send(&godap.InitializeResponse{Response: s.newResponse(req.Seq, req.Command), Body: Capabilities()})
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
		bps, err := s.setBreakpoints(req.Arguments)
		if err != nil {
			s.reply(req.Seq, req.Command, err.Error())
			return false
		}
		s.send(&godap.SetBreakpointsResponse{Response: s.newResponse(req.Seq, req.Command), Body: godap.SetBreakpointsResponseBody{Breakpoints: bps}})
	case *godap.SetExceptionBreakpointsRequest:
		if err := s.setFilters(req.Arguments.Filters); err != nil {
			s.reply(req.Seq, req.Command, err.Error())
			return false
		}
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
		s.send(&godap.ScopesResponse{Response: s.newResponse(req.Seq, req.Command), Body: godap.ScopesResponseBody{Scopes: s.scopes(req.Arguments.FrameId)}})
	case *godap.VariablesRequest:
		vars, err := s.variables(req.Arguments)
		if err != nil {
			s.reply(req.Seq, req.Command, err.Error())
			return false
		}
		s.send(&godap.VariablesResponse{Response: s.newResponse(req.Seq, req.Command), Body: godap.VariablesResponseBody{Variables: vars}})
	case *godap.EvaluateRequest:
		body, err := s.evaluateRequest(req.Arguments)
		if err != nil {
			s.reply(req.Seq, req.Command, err.Error())
			return false
		}
		s.send(&godap.EvaluateResponse{Response: s.newResponse(req.Seq, req.Command), Body: body})
	case *godap.ExceptionInfoRequest:
		body, err := s.exceptionInfo()
		if err != nil {
			s.reply(req.Seq, req.Command, err.Error())
			return false
		}
		s.send(&godap.ExceptionInfoResponse{Response: s.newResponse(req.Seq, req.Command), Body: body})
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
		s.reply(r.Seq, r.Command, fmt.Sprintf("restls dap does not handle %q (docs/debugging.md says what works)", r.Command))
	}
	return false
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

// step resumes a stopped run in mode.
func (s *session) step(mode stepMode) {
	s.mu.Lock()
	wasStopped := s.stopped != nil
	depth := 0
	if wasStopped {
		depth = len(s.stopped.frames)
	}
	s.mode, s.modeDepth = mode, depth
	s.stopped = nil
	s.dropStopRefs()
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
	var all []dryrun.Frame
	if s.stopped != nil {
		all = s.stopped.frames
	}
	frames := all[min(max(a.StartFrame, 0), len(all)):]
	if a.Levels > 0 && a.Levels < len(frames) {
		frames = frames[:a.Levels]
	}
	out := make([]godap.StackFrame, 0, len(frames))
	for i, f := range frames {
		name := f.Function
		if name == "" {
			name = "(anonymous)"
		}
		if f.Function == dryrun.MoreFrames {
			out = append(out, godap.StackFrame{Id: a.StartFrame + i + 1, Name: "(more frames, not shown: restls dap shows the innermost 256)", PresentationHint: "label"})
			continue
		}
		out = append(out, godap.StackFrame{Id: a.StartFrame + i + 1, Name: name, Source: src, Line: f.Line, Column: f.Column})
	}
	return godap.StackTraceResponseBody{StackFrames: out, TotalFrames: len(all)}
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
	s.event(&godap.OutputEvent{Event: s.newEvent("output"), Body: godap.OutputEventBody{Category: category, Output: s.o.Display.Text(text)}})
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

func (s *session) show(path string) string { return s.o.Display.Path(path) }
