package dap

import (
	"errors"
	"fmt"
	"strings"

	godap "github.com/google/go-dap"

	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
)

// stop is where the run stands stopped: its stack, what the runtime can
// do there, and the exception it stopped at, if it did.
type stop struct {
	frames    []dryrun.Frame
	p         dryrun.Paused
	exception *dryrun.Exception
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

func (o *observer) CallAnswered(i int, c *restclient.Call) {
	s := (*session)(o)
	line := fmt.Sprintf("← %s %s %s %s (%.0f ms)", statusOf(c), c.Method, c.ServiceID, c.URL, c.DurationMs)
	s.event(&godap.OutputEvent{Event: s.newEvent("output"), Body: godap.OutputEventBody{Category: "console", VariablesReference: s.callRef(c, line),
		Output: line + "\n"}})
	if s.replay != nil {
		if msg := s.replay.compareCall(i, c); msg != "" {
			s.output("console", msg)
		}
	}
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
	s := (*session)(o)
	s.mu.Lock()
	if s.inEval > 0 {
		s.mu.Unlock()
		return
	}
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
		frames = p.Stack()
		if d := len(frames); (s.mode == stepOver && d <= s.modeDepth) || (s.mode == stepOut && d < s.modeDepth) {
			reason = "step"
		}
	}
	var bp *breakpoint
	if reason == "" && newLine && s.launch != nil {
		bp = s.breakpoints[s.launch.Program][line]
	}
	s.mu.Unlock()
	if bp != nil && s.hit(bp, p) {
		reason = "breakpoint"
	}
	if reason == "" {
		return
	}
	if frames == nil {
		frames = p.Stack()
	}
	s.stopAt(&godap.StoppedEventBody{Reason: reason}, &stop{frames: frames, p: p})
}

// Exception stops the run where x is thrown when an exception filter
// asks.
func (o *observer) Exception(x dryrun.Exception, p dryrun.Paused) {
	s := (*session)(o)
	s.mu.Lock()
	inEval := s.inEval > 0
	s.mu.Unlock()
	if inEval || !s.stopsAt(x) {
		return
	}
	x.Text = s.o.Display.Text(x.Text) // a RestClientError may name a configuration file
	what := "Exception"
	if x.Uncaught {
		what = "Uncaught exception"
	}
	s.stopAt(&godap.StoppedEventBody{Reason: "exception", Description: what, Text: x.Text}, &stop{frames: p.Stack(), p: p, exception: &x})
}

// stopAt says the run stopped (body) and blocks the run's goroutine at
// st until the client resumes or the run ends, doing meanwhile the work
// the handlers hand it (evaluations need the run's goroutine).
func (s *session) stopAt(body *godap.StoppedEventBody, st *stop) {
	s.mu.Lock()
	s.pause, s.mode, s.stopped = false, runFree, st
	s.mu.Unlock()
	body.ThreadId, body.AllThreadsStopped = threadID, true
	s.event(&godap.StoppedEvent{Event: s.newEvent("stopped"), Body: *body})
	for {
		select {
		case <-s.resume:
			return
		case <-s.runDone:
			return
		case f := <-s.work:
			s.evaluating(func() { f(st.p) })
		}
	}
}

// evaluating runs f, which evaluates in the stopped run, on its
// goroutine: a statement or an exception it meets (a function a watch
// calls) does not stop the run, which stands stopped already.
func (s *session) evaluating(f func()) {
	s.mu.Lock()
	s.inEval++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inEval--
		s.mu.Unlock()
	}()
	f()
}

// onRun runs f on the stopped run's goroutine, with the place it stands
// stopped, and waits for it.
func (s *session) onRun(f func(p dryrun.Paused)) error {
	s.mu.Lock()
	stopped, done := s.stopped != nil, s.runDone
	s.mu.Unlock()
	if !stopped {
		return errors.New("the script is running: pause it, or stop at a breakpoint, first")
	}
	finished := make(chan struct{})
	select {
	case s.work <- func(p dryrun.Paused) { f(p); close(finished) }:
	case <-done:
		return errors.New("the run has ended")
	}
	select {
	case <-finished:
		return nil
	case <-done:
		return errors.New("the run has ended")
	}
}

// exceptionInfo is the exception the run stands stopped at.
func (s *session) exceptionInfo() (godap.ExceptionInfoResponseBody, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped == nil || s.stopped.exception == nil {
		return godap.ExceptionInfoResponseBody{}, errors.New("the run does not stand stopped at an exception")
	}
	x := s.stopped.exception
	mode := godap.ExceptionBreakMode("always")
	if x.Uncaught {
		mode = "unhandled"
	}
	return godap.ExceptionInfoResponseBody{ExceptionId: x.Kind, Description: x.Text, BreakMode: mode}, nil
}
