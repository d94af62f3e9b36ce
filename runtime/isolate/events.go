package isolate

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"

	"github.com/restls/restls/input"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
)

// Event is one thing a run observed (dryrun.Observer) as a child writes
// it to its parent: one line of JSON, {"event": {...}}, before the
// ChildResult line. The result itself is no event: the parent calls
// Observer.Done with the result it reads.
type Event struct {
	// Kind is call (made), answer, log or statement.
	Kind   string           `json:"kind"`
	Index  int              `json:"index,omitempty"`
	Call   *restclient.Call `json:"call,omitempty"`
	Log    *dryrun.LogEntry `json:"log,omitempty"`
	Line   int              `json:"line,omitempty"`
	Column int              `json:"column,omitempty"`
	// Coverage is what a coverage run counted (dryrun.CoverageObserver).
	Coverage *dryrun.Coverage `json:"coverage,omitempty"`
}

// Kinds of Event.
const (
	eventCall      = "call"
	eventAnswer    = "answer"
	eventLog       = "log"
	eventStatement = "statement"
	eventCoverage  = "coverage"
	eventSite      = "site"
)

// eventLine is how an event is framed on the child's stdout.
type eventLine struct {
	Event *Event `json:"event"`
}

// eventPrefix starts every event line, and no result line.
var eventPrefix = []byte(`{"event":`)

// eventWriter writes a child's events, and then its result, to its
// stdout; mu keeps lines whole.
type eventWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// observer is the observer that streams req's events, nil when req
// asked for none.
func (e *eventWriter) observer(req *ChildRequest) dryrun.Observer {
	if !req.Observe {
		return nil
	}
	if req.Coverage {
		return coverStreamObserver{streamObserver{e}}
	}
	return streamObserver{e}
}

func (e *eventWriter) write(ev *Event) {
	raw, err := input.TextJSON(eventLine{ev})
	if err != nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	_, _ = e.w.Write(append(raw, '\n'))
}

// streamObserver writes each event as a line (eventWriter).
type streamObserver struct{ e *eventWriter }

func (o streamObserver) CallMade(i int, c *restclient.Call) {
	o.e.write(&Event{Kind: eventCall, Index: i, Call: c})
}

func (o streamObserver) CallAnswered(i int, c *restclient.Call) {
	o.e.write(&Event{Kind: eventAnswer, Index: i, Call: c})
}

func (o streamObserver) Log(l dryrun.LogEntry) { o.e.write(&Event{Kind: eventLog, Log: &l}) }

func (o streamObserver) Statement(line, column int) {
	o.e.write(&Event{Kind: eventStatement, Line: line, Column: column})
}

func (o streamObserver) Done(*dryrun.Result) {}

// coverStreamObserver also writes the run's counts and the calls'
// sites, which makes the run count (dryrun.CoverageObserver).
type coverStreamObserver struct{ streamObserver }

func (o coverStreamObserver) Covered(c dryrun.Coverage) {
	o.e.write(&Event{Kind: eventCoverage, Coverage: &c})
}

func (o coverStreamObserver) CallSite(i, line, column int) {
	o.e.write(&Event{Kind: eventSite, Index: i, Line: line, Column: column})
}

// maxEventLine bounds one event line the parent reads; a longer one is
// dropped (a call's trace is bounded well below it).
const maxEventLine = 4 << 20

// eventReader is a child's stdout as its parent reads it: event lines go
// to obs as they arrive, everything else (the result) to rest.
type eventReader struct {
	obs  dryrun.Observer
	rest io.Writer
	// line is the current line while it may be, or is, an event.
	line []byte
	// state of the current line: undecided (its start is still a prefix
	// of eventPrefix), an event, an event too long to keep (dropped), or
	// something else, passed on to rest.
	state int
}

const (
	lineUndecided = iota
	lineEvent
	lineDropped
	linePassed
)

func (r *eventReader) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i+1]
		}
		p = p[len(chunk):]
		r.add(chunk)
		if i >= 0 {
			r.endLine()
		}
	}
	return n, nil
}

// add takes the next bytes of the current line.
func (r *eventReader) add(chunk []byte) {
	switch r.state {
	case linePassed:
		_, _ = r.rest.Write(chunk)
		return
	case lineDropped:
		return
	}
	r.line = append(r.line, chunk...)
	if r.state == lineUndecided {
		k := min(len(r.line), len(eventPrefix))
		switch {
		case !bytes.Equal(r.line[:k], eventPrefix[:k]):
			r.state = linePassed
			_, _ = r.rest.Write(r.line)
			r.line = r.line[:0]
			return
		case k == len(eventPrefix):
			r.state = lineEvent
		}
	}
	if len(r.line) > maxEventLine {
		r.state, r.line = lineDropped, r.line[:0]
	}
}

// endLine ends the current line (its newline is in it, or the output
// ended).
func (r *eventReader) endLine() {
	switch r.state {
	case lineEvent:
		var ev eventLine
		if err := json.Unmarshal(r.line, &ev); err == nil && ev.Event != nil {
			observe(r.obs, ev.Event)
		}
	case lineUndecided:
		_, _ = r.rest.Write(r.line)
	}
	r.line, r.state = r.line[:0], lineUndecided
}

// observe calls obs for ev.
func observe(obs dryrun.Observer, ev *Event) {
	switch ev.Kind {
	case eventCall:
		if ev.Call != nil {
			obs.CallMade(ev.Index, ev.Call)
		}
	case eventAnswer:
		if ev.Call != nil {
			obs.CallAnswered(ev.Index, ev.Call)
		}
	case eventLog:
		if ev.Log != nil {
			obs.Log(*ev.Log)
		}
	case eventStatement:
		obs.Statement(ev.Line, ev.Column)
	case eventCoverage:
		if cov, ok := obs.(dryrun.CoverageObserver); ok && ev.Coverage != nil {
			cov.Covered(*ev.Coverage)
		}
	case eventSite:
		if cov, ok := obs.(dryrun.CoverageObserver); ok {
			cov.CallSite(ev.Index, ev.Line, ev.Column)
		}
	}
}
