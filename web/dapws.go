package web

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	godap "github.com/google/go-dap"
	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/dap"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// DAPProtocol is the WebSocket subprotocol of /dap: one Debug Adapter
// Protocol message (its JSON, no Content-Length header) per text frame.
const DAPProtocol = "restls.dap"

// defaultDebugIdle is Options.DebugIdle's default: restls dap's own.
const defaultDebugIdle = dap.DefaultIdle

// maxDAPMessage is the largest DAP message /dap reads: restls dap's own
// bound on a message.
const maxDAPMessage = 4 << 20

// handleDAP upgrades to a WebSocket and serves one designer debug
// session on it (dapRelay): the script is the text the launch carries,
// never a path; the launch goes through the gate (--allow-run, roles:
// mocker with fixtures, runner live) and its audit, takes one of the
// run engine's slots, and runs in a restls dap child of its own. A /dap
// socket takes one of the sessions /lsp sockets take (--max-sessions).
func (s *Server) handleDAP(w http.ResponseWriter, r *http.Request) {
	select {
	case s.slots <- struct{}{}:
	default:
		writeError(w, http.StatusServiceUnavailable, "too many designer sessions are open; close one or try again later")
		return
	}
	defer func() { <-s.slots }()
	if s.ctx.Err() != nil || s.draining.Load() {
		w.Header().Set("Retry-After", retryAfterBusy)
		writeError(w, http.StatusServiceUnavailable, "restls is stopping: connect again in a few seconds")
		return
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: wsOriginPatterns(r), Subprotocols: []string{DAPProtocol}})
	if err != nil {
		s.log.Info("WebSocket upgrade refused", zap.Error(err))
		return
	}
	if !s.addSession() {
		_ = c.Close(websocket.StatusServiceRestart, closeRestart)
		return
	}
	defer s.sessions.Done()
	c.SetReadLimit(maxDAPMessage)
	id, _ := IdentityFrom(r.Context())
	ctx, cancel := context.WithCancel(withIdentity(s.ctx, id))
	defer cancel()
	relay := &dapRelay{s: s, id: id, c: c, log: s.log.With(zap.String("remote", r.RemoteAddr)), timeout: s.opts.WriteTimeout}
	relay.serve(ctx)
	if s.ctx.Err() != nil {
		_ = c.Close(websocket.StatusServiceRestart, closeRestart)
		return
	}
	_ = c.Close(websocket.StatusNormalClosure, relay.closeWhy)
}

// DebugChild is the restls dap process of one designer debug session
// (Options.Debug).
type DebugChild struct {
	// In takes the client's requests, Content-Length framed.
	In io.Writer
	// Out is what restls dap writes; it ends once the process has ended
	// and everything it wrote has been read.
	Out io.Reader
	// Stop kills the process if it still runs and waits for it; it says
	// why the process ended when that was neither its own end nor Stop
	// (its memory limit, a crash), else "".
	Stop func() string
}

// maxQueuedRequests and maxQueuedBytes bound the page's requests
// waiting for its restls dap child to read them: their number, and
// their bytes (each may be maxDAPMessage: a count alone would let one
// page hold a gigabyte of this server).
const (
	maxQueuedRequests = 256
	maxQueuedBytes    = 16 << 20
)

// dapRelay is one /dap socket: it answers initialize itself, decides
// the launch (the designer's fields only, the gate's roles, one of the
// run engine's slots), then starts the session's restls dap child and
// relays between the socket and it until either ends. The child and the
// slot last as long as the session, a paused run's included.
type dapRelay struct {
	s       *Server
	id      Identity
	c       *websocket.Conn
	log     *zap.Logger
	timeout time.Duration
	seq     int // of the messages the socket is sent

	init json.RawMessage // the client's initialize request
	// What the launch was admitted as, for the audit; the run's report
	// (dap.RunEvent) once the child sent one.
	start  time.Time
	snap   workspace.Snapshot
	req    engine.Request
	report *dap.RunReport
	// launchReq is the launch request the child was given; first are
	// the messages the child hears before the page's (relay).
	launchReq dapRequest
	first     [][]byte
	// closeWhy is the socket's close reason ("" for none): why the
	// relay ended it.
	closeWhy string
}

// dapRequest is what the relay reads of a client's message.
type dapRequest struct {
	Seq       int             `json:"seq"`
	Type      string          `json:"type"`
	Command   string          `json:"command"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

func (r *dapRelay) serve(ctx context.Context) {
	frames := make(chan []byte)
	go func() {
		defer close(frames)
		for {
			typ, data, err := r.c.Read(ctx)
			if err != nil {
				return
			}
			if typ != websocket.MessageText {
				continue
			}
			select {
			case frames <- data:
			case <-ctx.Done():
				return
			}
		}
	}()
	// Before the launch: no process, no slot; a page that sends nothing
	// for Options.DebugIdle is closed (after the launch the child keeps
	// the same limit).
	var child *DebugChild
	limit := r.s.opts.DebugIdle
	idle := time.NewTimer(limit)
	defer idle.Stop()
	for child == nil {
		var data []byte
		ok := false
		select {
		case data, ok = <-frames:
		case <-ctx.Done():
		case <-idle.C:
			r.event("output", map[string]any{"category": "console", "output": fmt.Sprintf("restls: the page sent nothing for %v: the debug session ends (restls serve --debug-idle)\n", limit)})
			r.event("terminated", nil)
			r.closeWhy = fmt.Sprintf("nothing sent for %v (restls serve --debug-idle)", limit)
			return
		}
		if !ok {
			return
		}
		idle.Reset(limit)
		var m dapRequest
		if json.Unmarshal(data, &m) != nil || m.Type != "request" {
			continue
		}
		switch m.Command {
		case "initialize":
			r.init = data
			body, _ := json.Marshal(dap.Capabilities())
			r.respond(m, nil, body)
		case "launch":
			var err error
			if child, err = r.launch(ctx, m); err != nil {
				r.respond(m, err, nil)
			}
		case "disconnect":
			r.respond(m, nil, nil)
			return
		default:
			r.respond(m, fmt.Errorf("restls serve --http answers %q once a script is launched: send launch first", m.Command), nil)
		}
	}
	r.relay(ctx, child, frames)
}

// launch decides the launch request m and starts the session's child
// with it; refused, it says why, and nothing runs or is held.
func (r *dapRelay) launch(ctx context.Context, m dapRequest) (*DebugChild, error) {
	s := r.s
	a, err := dap.DecodeLaunch(m.Arguments)
	if err != nil {
		return nil, err
	}
	req, snap, err := s.vetDebugLaunch(r.id, &a)
	if err != nil {
		return nil, err
	}
	if !s.gate.enter() {
		return nil, &RefusedError{Code: refusedStopping, Reason: reasonStopping}
	}
	start := time.Now()
	var slot *engine.Slot
	if s.opts.Admit != nil {
		var ok bool
		if slot, ok = s.opts.Admit(); !ok {
			s.gate.leave()
			s.gate.account(ctx, start, r.id, true, snap, req, nil, engine.ErrBusy, "dap")
			return nil, errors.New("restls is running its maximum number of dry runs (--max-runs), and a debug session holds one for as long as it lasts: try again when one ends")
		}
	}
	child, err := s.opts.Debug(ctx, snap, req.AllowServices)
	if err != nil {
		slot.Release()
		s.gate.leave()
		s.gate.account(ctx, start, r.id, true, snap, req, nil, err, "dap") // as a dry run whose child did not start
		r.log.Warn("starting restls dap for the designer's debugger", zap.Error(err))
		return nil, errors.New("restls could not start the debugger's process: the server log says why")
	}
	r.start, r.snap, r.req, r.launchReq = start, snap, req, m
	stopped := context.AfterFunc(s.gate.stopped, func() { child.Stop() })
	var once sync.Once
	var why string
	end := func() string {
		once.Do(func() {
			stopped()
			why = child.Stop()
			slot.Release()
			s.gate.leave()
			r.audit()
		})
		return why
	}
	// The child hears the client's initialize (the relay answered it)
	// and the launch as admitted: the designer's fields only.
	init := r.init
	if init == nil {
		init = json.RawMessage(`{"seq":0,"type":"request","command":"initialize","arguments":{"adapterID":"restls"}}`)
	}
	// The kind and environment are the server's decision (vetDebugLaunch,
	// the gate's): the child runs in them and decides neither again (its
	// environment's sources come with it, Options.Debug).
	la := designerLaunch(a)
	la.Kind, la.Env = string(req.Kind), snap.Environment
	args, _ := json.Marshal(la)
	launch, _ := json.Marshal(dapRequest{Seq: m.Seq, Type: "request", Command: "launch", Arguments: args})
	r.first = [][]byte{init, launch}
	return &DebugChild{In: child.In, Out: child.Out, Stop: end}, nil
}

// relay passes the socket's requests to child and child's messages to
// the socket until the client disconnects or goes, the child ends, or
// the server stops. When the client hears its disconnect answered, the
// child is gone and its slot free.
func (r *dapRelay) relay(ctx context.Context, child *DebugChild, frames <-chan []byte) {
	out := make(chan []byte)
	go func() {
		defer close(out)
		br := bufio.NewReader(child.Out)
		for {
			data, err := godap.ReadBaseMessage(br)
			if err != nil {
				return
			}
			out <- data
		}
	}()
	// The requests go to the child from a goroutine of their own, a
	// bounded queue before it: the relay keeps reading the child's
	// messages while a request waits (else a flood of requests could
	// block both pipes at once, and the session and its slot forever).
	toChild := make(chan []byte, maxQueuedRequests+len(r.first))
	var queued atomic.Int64 // bytes in toChild or being written
	for _, m := range r.first {
		queued.Add(int64(len(m)))
		toChild <- m
	}
	go func() {
		for data := range toChild {
			err := godap.WriteBaseMessage(child.In, data)
			queued.Add(-int64(len(data)))
			if err != nil {
				return
			}
		}
	}()
	defer func() {
		close(toChild)
		child.Stop()
		for range out { // the child is gone: its output ends
		}
	}()
	initAnswered, launched, terminated := false, false, false
	for {
		select {
		case data, ok := <-frames:
			if !ok {
				return // the client went
			}
			var m dapRequest
			if json.Unmarshal(data, &m) == nil && m.Type == "request" && (m.Command == "launch" || m.Command == "attach") {
				r.respond(m, errors.New("this debug session has launched its script already: end it, then debug again"), nil)
				continue
			}
			queuedOK := queued.Add(int64(len(data))) <= maxQueuedBytes
			if queuedOK {
				select {
				case toChild <- data:
				default:
					queuedOK = false
				}
			}
			if !queuedOK {
				r.event("output", map[string]any{"category": "stderr", "output": fmt.Sprintf("restls: the page sent more than %d requests, or %d MiB of them, that the debugger had not read yet: the session ends\n", maxQueuedRequests, maxQueuedBytes>>20)})
				r.event("terminated", nil)
				return
			}
		case data, ok := <-out:
			if !ok {
				// The child ended by itself: its idle limit, else its
				// memory limit or a crash, which the page is told.
				why := child.Stop()
				if why == "" && launched {
					return
				}
				if why == "" {
					why = "restls dap ended before it answered: the server log says why"
				}
				if !launched {
					r.respond(r.launchReq, errors.New(why), nil)
					return
				}
				r.event("output", map[string]any{"category": "stderr", "output": why + "\n"})
				if !terminated {
					r.event("terminated", nil)
				}
				return
			}
			var m struct {
				Type    string          `json:"type"`
				Event   string          `json:"event"`
				Command string          `json:"command"`
				Body    json.RawMessage `json:"body"`
			}
			if json.Unmarshal(data, &m) != nil {
				continue
			}
			switch {
			case m.Type == "event" && m.Event == dap.RunEvent:
				var rep dap.RunReport
				if json.Unmarshal(m.Body, &rep) == nil {
					r.report = &rep
				}
				continue
			case m.Type == "response" && m.Command == "initialize" && !initAnswered:
				initAnswered = true // the relay answered it
				continue
			case m.Type == "response" && m.Command == "launch":
				launched = true
			case m.Type == "event" && m.Event == "terminated":
				terminated = true
			case m.Type == "response" && m.Command == "disconnect":
				child.Stop()
				r.forward(data)
				return
			}
			if !r.forward(data) {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

// audit writes the debug run's audit line once its session ended, as a
// dry run's (the gate's runOutcome decides its outcome), from the
// child's report.
func (r *dapRelay) audit() {
	res, err := reportedRun(r.report)
	r.s.gate.account(context.Background(), r.start, r.id, true, r.snap, r.req, res, err, "dap")
}

// reportedRun is the run a debug child reported, as a runner returns
// one: no report is a session that ended before its run did (canceled);
// a report with neither a result nor a failure is a run that failed.
func reportedRun(rep *dap.RunReport) (*dryrun.Result, error) {
	switch {
	case rep == nil:
		return nil, context.Canceled
	case rep.Failed != "":
		return nil, errors.New(rep.Failed)
	case rep.Result != nil:
		return rep.Result, nil
	}
	return nil, errors.New("restls dap reported a run with neither a result nor why it failed")
}

// respond answers the client's request m itself: success with body, or
// err's message.
func (r *dapRelay) respond(m dapRequest, err error, body json.RawMessage) {
	resp := map[string]any{"type": "response", "request_seq": m.Seq, "command": m.Command, "success": err == nil}
	if err != nil {
		resp["message"] = err.Error()
		resp["body"] = map[string]any{"error": map[string]any{"id": 1, "format": err.Error(), "showUser": true}}
	} else if body != nil {
		resp["body"] = body
	}
	data, _ := json.Marshal(resp)
	r.forward(data)
}

// event sends the page an event of the relay's own.
func (r *dapRelay) event(name string, body any) {
	m := map[string]any{"type": "event", "event": name}
	if body != nil {
		m["body"] = body
	}
	data, _ := json.Marshal(m)
	r.forward(data)
}

// forward sends one message to the socket, numbered in the socket's
// sequence; false when the client does not take it (its session ends).
func (r *dapRelay) forward(data []byte) bool {
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		return true
	}
	r.seq++
	fields["seq"] = json.RawMessage(strconv.Itoa(r.seq))
	data, _ = json.Marshal(fields)
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	defer cancel()
	if err := r.c.Write(ctx, websocket.MessageText, data); err != nil {
		_ = r.c.CloseNow()
		return false
	}
	return true
}

// designerLaunch is what a designer's launch may carry; anything else
// (a path to read, a test file, a replay) is refused.
func designerLaunch(a dap.LaunchArgs) dap.LaunchArgs {
	return dap.LaunchArgs{Program: a.Program, Text: a.Text, FixturesText: a.FixturesText, Live: a.Live, Input: a.Input, Kind: a.Kind, Env: a.Env, StopOnEntry: a.StopOnEntry}
}

// vetDebugLaunch refuses a launch that would make this server read a
// path a client names, and one the gate refuses (roles, environments);
// else it is the run as the gate admitted it (its kind decided, a
// runner limited to some services) and the snapshot it runs in, whose
// environment and sources the child is given (Options.Debug).
func (s *Server) vetDebugLaunch(id Identity, a *dap.LaunchArgs) (engine.Request, workspace.Snapshot, error) {
	if a.Text == "" {
		return engine.Request{}, workspace.Snapshot{}, errors.New(`the designer's debugger debugs the script it sends: give its text as "text" (restls serve --http reads no path a client names)`)
	}
	if !reflect.DeepEqual(*a, designerLaunch(*a)) {
		return engine.Request{}, workspace.Snapshot{}, errors.New("restls serve --http debugs a script's text with fixturesText, live, input, kind, env and stopOnEntry only: fixtures files, test files and replays are for restls dap on your machine")
	}
	if len(a.Input) > 0 && !json.Valid(a.Input) {
		return engine.Request{}, workspace.Snapshot{}, errors.New("the launch configuration's input is not JSON")
	}
	snap, err := s.opts.Session.SnapshotIn(a.Env)
	if err != nil {
		return engine.Request{}, snap, err
	}
	fx := engine.Fixtures{Live: a.Live, None: a.FixturesText == "" && !a.Live}
	if a.FixturesText != "" {
		fx.Inline = []byte(a.FixturesText)
	}
	// The kind is decided here, once (the kind rule on this server's
	// project), as the environment was by the snapshot: the child is
	// given both. A refused launch leaves the audit line a refused run
	// leaves.
	run := engine.Request{Name: a.Program, Text: a.Text, Kind: config.Kind(a.Kind), Fixtures: fx}
	run.Kind = engine.Kind(snap, run).Kind
	req, err := s.gate.Vet(id, snap, run, "dap")
	return req, snap, err
}
