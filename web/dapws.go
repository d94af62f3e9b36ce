package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/zap"

	"github.com/restls/restls/dap"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// DAPProtocol is the WebSocket subprotocol of /dap: one Debug Adapter
// Protocol message (its JSON, no Content-Length header) per text frame.
const DAPProtocol = "restls.dap"

// maxDAPMessage is the largest DAP message /dap reads: restls dap's own
// bound on a message.
const maxDAPMessage = 4 << 20

// handleDAP upgrades to a WebSocket and runs one debug session of
// restls dap on it (package dap), the designer's debugger: the script is
// the text the launch carries, never a path; its runs go through the gate
// (--allow-run, roles: mocker with fixtures, runner live) and its audit.
// A /dap socket takes one of the sessions /lsp sockets take
// (--max-sessions).
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
	log := s.log.With(zap.String("remote", r.RemoteAddr))

	// The client's frames become restls dap's Content-Length stream.
	in, toDAP := io.Pipe()
	go func() {
		for {
			typ, data, err := c.Read(ctx)
			if err != nil {
				_ = toDAP.CloseWithError(io.EOF)
				return
			}
			if typ != websocket.MessageText {
				continue
			}
			if _, err := fmt.Fprintf(toDAP, "Content-Length: %d\r\n\r\n%s", len(data), data); err != nil {
				return
			}
		}
	}()
	root := ""
	if snap := s.opts.Snapshot(); snap != nil {
		root = snap.Sources.ConfigRoot
	}
	out := &dapFrames{c: c, timeout: s.opts.WriteTimeout}
	err = dap.Serve(ctx, in, out, dap.Options{
		Snapshot: func(_ context.Context, env string) (workspace.Snapshot, error) {
			s.opts.Session.ReloadIfChanged()
			return s.opts.Session.SnapshotIn(env)
		},
		Run:    s.debugRunner(),
		Vet:    s.vetDebugLaunch(id),
		Show:   relativeTo(root),
		Logger: log.Named("dap"),
	})
	if err != nil && ctx.Err() == nil {
		log.Info("designer debug session ended", zap.Error(err))
	}
	if s.ctx.Err() != nil {
		_ = c.Close(websocket.StatusServiceRestart, closeRestart)
		return
	}
	_ = c.Close(websocket.StatusNormalClosure, "")
}

// debugRunner is the designer debugger's runner: the gate's, each run
// audited with "via":"dap"; nil when the server has none.
func (s *Server) debugRunner() Runner {
	gated := s.gate.Wrap(s.opts.DebugRunner)
	if gated == nil {
		return nil
	}
	return func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
		return gated(context.WithValue(ctx, viaKey{}, "dap"), snap, req)
	}
}

// designerLaunch is what a designer's launch may carry; anything else
// (a path to read, a test file, a replay) is refused.
func designerLaunch(a dap.LaunchArgs) dap.LaunchArgs {
	return dap.LaunchArgs{Program: a.Program, Text: a.Text, FixturesText: a.FixturesText, Live: a.Live, Input: a.Input, Kind: a.Kind, Env: a.Env, StopOnEntry: a.StopOnEntry}
}

// vetDebugLaunch refuses a launch that would make this server read a
// path a client names, and one the gate would refuse (checked again
// when the run starts), so the debugger says why at once.
func (s *Server) vetDebugLaunch(id Identity) func(*dap.LaunchArgs) error {
	return func(a *dap.LaunchArgs) error {
		if a.Text == "" {
			return errors.New(`the designer's debugger debugs the script it sends: give its text as "text" (restls serve --http reads no path a client names)`)
		}
		if !reflect.DeepEqual(*a, designerLaunch(*a)) {
			return errors.New("restls serve --http debugs a script's text with fixturesText, live, input, kind, env and stopOnEntry only: fixtures files, test files and replays are for restls dap on your machine")
		}
		snap, err := s.opts.Session.SnapshotIn(a.Env)
		if err != nil {
			return err
		}
		fx := engine.Fixtures{Live: a.Live, None: a.FixturesText == "" && !a.Live}
		if a.FixturesText != "" {
			fx.Inline = []byte(a.FixturesText)
		}
		// A refused launch leaves the audit line a refused run leaves.
		return s.gate.Vet(id, snap, engine.Request{Name: a.Program, Text: a.Text, Fixtures: fx}, "dap")
	}
}

// dapFrames is restls dap's output as WebSocket text frames: it takes the
// Content-Length stream and sends each message's JSON as one frame.
type dapFrames struct {
	c       *websocket.Conn
	timeout time.Duration
	buf     []byte
}

func (f *dapFrames) Write(p []byte) (int, error) {
	f.buf = append(f.buf, p...)
	for {
		end := bytes.Index(f.buf, []byte("\r\n\r\n"))
		if end < 0 {
			return len(p), nil
		}
		head, ok := bytes.CutPrefix(f.buf[:end], []byte("Content-Length: "))
		n, err := strconv.Atoi(string(head))
		if !ok || err != nil || n < 0 {
			return 0, fmt.Errorf("web: restls dap wrote a header that is not Content-Length: %q", f.buf[:end])
		}
		if len(f.buf) < end+4+n {
			return len(p), nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), f.timeout)
		err = f.c.Write(ctx, websocket.MessageText, f.buf[end+4:end+4+n])
		cancel()
		f.buf = f.buf[end+4+n:]
		if err != nil {
			// A client that does not take its messages ends its session.
			_ = f.c.CloseNow()
			return 0, err
		}
	}
}
