package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"

	"github.com/coder/websocket"
	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/lsp"
	"github.com/restls/restls/workspace"
)

// LSPServer is the language server /lsp serves: this file is the only one
// of web that imports lsp (internal/layering's table says so), and every
// other endpoint asks Options.Session.
type LSPServer = lsp.Server

// commandReload is restls.reload, which the audit watches for over /lsp.
const commandReload = lsp.CommandReload

// handleLSP upgrades to a WebSocket and runs one language-server session on
// it until either side closes.
func (s *Server) handleLSP(w http.ResponseWriter, r *http.Request) {
	select {
	case s.slots <- struct{}{}:
	default:
		writeError(w, http.StatusServiceUnavailable, "too many designer sessions are open; close one or try again later")
		return
	}
	served, err := s.serveSocket(w, r)
	<-s.slots
	if served && s.endHook != nil {
		s.endHook(err) // after the slot is free
	}
}

// serveSocket runs the session; served is false when no WebSocket was
// opened.
func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) (served bool, err error) {
	if s.ctx.Err() != nil || s.draining.Load() {
		w.Header().Set("Retry-After", retryAfterBusy)
		writeError(w, http.StatusServiceUnavailable, "restls is stopping: connect again in a few seconds (to another replica, behind a load balancer)")
		return false, nil
	}
	// ServeHTTP has already refused a foreign Origin (websocket.Accept
	// alone lets any Origin whose host equals the Host header through,
	// which is what a rebound name sends); Accept checks it once more.
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: wsOriginPatterns(r), Subprotocols: []string{LSPProtocol}})
	if err != nil {
		// Accept has answered (403 for a foreign origin, 426 without an
		// upgrade).
		s.log.Info("WebSocket upgrade refused", zap.Error(err))
		return false, nil
	}
	if !s.addSession() {
		_ = c.Close(websocket.StatusServiceRestart, closeRestart)
		return false, nil
	}
	defer s.sessions.Done()
	s.opts.Ops.sessionOpened()
	defer s.opts.Ops.sessionClosed()
	c.SetReadLimit(s.opts.MaxMessage)

	// The session's runs see who opened it (the gate and the audit).
	id, _ := IdentityFrom(r.Context())
	ctx, cancel := context.WithCancel(withIdentity(s.ctx, id))
	defer cancel()
	log := s.log.With(zap.String("remote", r.RemoteAddr))
	st := newWSStream(c, log, s.opts.WriteTimeout, s.opts.SendQueue)
	st.shutdown = s.ctx
	st.watch = s.opts.Ops.watch()
	go st.pingLoop(ctx, s.opts.PingInterval)
	so := s.sessionOptions(r)
	var expired atomic.Pointer[RefusedError]
	if !id.Expires.IsZero() {
		// Decided when the stream reads the reload, as it is audited;
		// lsp handles it next, on the same goroutine.
		so.ReloadRefused = func() error {
			if ref := expired.Load(); ref != nil {
				return ref
			}
			return nil
		}
	}
	st.reloads = s.reloadAudit(id, so.MayReload, &expired)
	err = s.opts.LSP.ServeSession(ctx, st, so)
	switch {
	case err == nil, errors.Is(err, lsp.ErrNoShutdown):
		// A browser tab that closes never says shutdown; that is normal here.
		log.Debug("designer session ended", zap.Error(err))
	case errors.Is(err, context.Canceled):
		log.Debug("designer session ended by server shutdown")
	default:
		log.Info("designer session ended", zap.Error(err))
	}
	_ = st.Close() // normally done already by ServeStream
	return true, err
}

// sessionOptions are what a socket's session may do: with the access key,
// run and reload only when its handshake carried the key (the token, or
// the secret of the page's address); with roles, run as a mocker or
// runner (the gate then checks each run's mode) and reload as a runner.
// Without --allow-run no session runs, and hears why. No session
// chooses configuration sources; paths are shown relative to the
// configuration root.
func (s *Server) sessionOptions(r *http.Request) lsp.SessionOptions {
	id, _ := IdentityFrom(r.Context())
	mayRun, mayReload, refused := id.key, id.key, keyMissing
	if id.Auth != AuthKey && id.Auth != "" {
		// The gate decides each run by its mode, and audits a refusal.
		mayRun, mayReload = true, id.Role >= RoleRunner
		refused = fmt.Sprintf("%s has the role %s: reloading the configuration needs the role runner; ask the operator of restls serve --http", id.User, id.Role)
	}
	if !s.gate.opts.AllowRun {
		mayRun = false
		if !mayReload {
			refused = ReasonNoAllowRun + "; " + refused
		} else {
			refused = ReasonNoAllowRun
		}
	}
	root := ""
	if snap := s.opts.Snapshot(); snap != nil {
		root = snap.Sources.ConfigRoot
	}
	return lsp.SessionOptions{MayRun: mayRun, MayReload: mayReload, Refused: refused, SourcesRefused: &sourcesRefused, ShowPath: workspace.RelativeTo(root),
		HistoryInMemory: true, // a designer's runs are its own, never on the server's disk
		MaxDocuments:    s.opts.SessionDocuments, MaxBytes: s.opts.SessionBytes, RaiseLimits: raiseSessionLimits}
}

// raiseSessionLimits is how an operator raises a session's budgets.
const raiseSessionLimits = "to allow more, start restls serve --http with --session-documents N or --session-bytes SIZE"

// StdioSession is what the editor on stdio beside the HTTP backend
// (serve --http --stdio) may do: everything a stdio editor may, but, like
// the designer sessions, not choose configuration sources, so the
// operator's flags alone decide what this process reads and fetches.
func StdioSession() lsp.SessionOptions {
	return lsp.SessionOptions{MayRun: true, MayReload: true, SourcesRefused: &sourcesRefused}
}

// codeSourcesRefused is the diagnostic code of a designer session whose
// settings named configuration sources.
const codeSourcesRefused = "http-settings-sources-refused"

// sourcesRefused: settings come from any client that can open /lsp, so
// honouring their sources would let it make this server read other files
// (and send back what the parser says about them) or fetch any address.
var sourcesRefused = config.Diagnostic{Severity: config.SeverityError, Code: codeSourcesRefused,
	Message: "configuration sources in editor settings (configRoot, properties, serviceXml, handlerXml, " +
		"platformConfig, registryUrl) are not honoured by restls serve --http, since any designer client could " +
		"make the server read other files or fetch any address; start it with the config flags or --registry-url instead"}
