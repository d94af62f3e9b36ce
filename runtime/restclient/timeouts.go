package restclient

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"time"

	"github.com/restls/restls/config"
)

// limits are the timeouts of one request, carried in its context so one
// shared transport (and its connection pool) serves every timeout value.
type limits struct {
	connect, read time.Duration
	// serviceID, pathParams and query tell a Mock what the request is
	// for; mock says a Mock answers it (no token, no network).
	serviceID  string
	method     string
	pathParams []string
	query      []QueryParam
	mock       bool
}

type limitsKey struct{}

func withLimits(ctx context.Context, l limits) context.Context {
	return context.WithValue(ctx, limitsKey{}, l)
}

func limitsFrom(ctx context.Context) limits {
	switch l := ctx.Value(limitsKey{}).(type) {
	case limits:
		return l
	case *limits:
		return *l
	}
	return limits{
		connect: time.Duration(config.DefaultTimeouts.Connection.Default) * time.Millisecond,
		read:    time.Duration(config.DefaultTimeouts.Read.Default) * time.Millisecond,
	}
}

// errReadTimeout is the cancellation cause when the read watchdog fires.
var errReadTimeout = errors.New("read timeout")

// connectTimeoutError is returned by the dialers when dialing plus the TLS
// handshake took longer than the connection timeout.
type connectTimeoutError struct {
	addr    string
	timeout time.Duration
	err     error
}

func (e *connectTimeoutError) Error() string {
	return fmt.Sprintf("connect to %s: no connection within %v", e.addr, e.timeout)
}

func (e *connectTimeoutError) Unwrap() error { return e.err }

// dialer builds connections under the connection timeout of the request
// whose context it gets: TCP connect and TLS handshake share one budget.
type dialer struct {
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
	tls  *tls.Config
}

func (d *dialer) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	ctx = withDialTrace(ctx)
	l := limitsFrom(ctx)
	dctx, cancel := context.WithTimeout(ctx, l.connect)
	defer cancel()
	conn, err := d.dial(dctx, network, addr)
	if err != nil {
		return nil, d.timeoutErr(ctx, dctx, addr, l.connect, err)
	}
	return conn, nil
}

func (d *dialer) dialTLSContext(ctx context.Context, network, addr string) (net.Conn, error) {
	ctx = withDialTrace(ctx)
	l := limitsFrom(ctx)
	dctx, cancel := context.WithTimeout(ctx, l.connect)
	defer cancel()
	raw, err := d.dial(dctx, network, addr)
	if err != nil {
		return nil, d.timeoutErr(ctx, dctx, addr, l.connect, err)
	}
	cfg := &tls.Config{}
	if d.tls != nil {
		cfg = d.tls.Clone()
	}
	if cfg.ServerName == "" {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = addr
		}
		cfg.ServerName = host
	}
	cfg.NextProtos = []string{"http/1.1"}
	tc := tls.Client(raw, cfg)
	// net/http reports the handshakes it makes itself; this one is ours,
	// so the hooks are called here (a service probe times the phase).
	trace := httptrace.ContextClientTrace(ctx)
	if trace != nil && trace.TLSHandshakeStart != nil {
		trace.TLSHandshakeStart()
	}
	err = tc.HandshakeContext(dctx)
	if trace != nil && trace.TLSHandshakeDone != nil {
		trace.TLSHandshakeDone(tc.ConnectionState(), err)
	}
	if err != nil {
		_ = raw.Close()
		return nil, d.timeoutErr(ctx, dctx, addr, l.connect, err)
	}
	return tc, nil
}

func (d *dialer) timeoutErr(parent, dctx context.Context, addr string, timeout time.Duration, err error) error {
	if parent.Err() == nil && errors.Is(dctx.Err(), context.DeadlineExceeded) {
		return &connectTimeoutError{addr: addr, timeout: timeout, err: err}
	}
	return err
}

// timeoutTransport applies the read timeout: a watchdog armed once the
// request is written bounds the wait for the response headers, and is
// re-armed around every Read of the body, so it bounds each pause, not the
// whole transfer (Java's socket read timeout).
type timeoutTransport struct {
	base http.RoundTripper
}

func (t *timeoutTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	g := guard(req.Context(), limitsFrom(req.Context()), nil, nil)
	return g.roundTrip(t.base, req.WithContext(g.reqCtx))
}

// readGuard holds one request's read watchdog. It is also the context the
// request is sent with: the caller's, made cancelable for the watchdog,
// answering the request's limits. One allocation holds the limits, the
// trace hook and the body wrapper that would otherwise be a context
// layer, a boxed value and two objects per call.
type readGuard struct {
	context.Context // cancelable child of the caller's context
	cancel          context.CancelCauseFunc
	lim             limits
	// wd is the shared watchdog, or one of the request's own when none
	// was given or it was busy (made only then: a session's calls, one at
	// a time, never need one, and a guard is made per call).
	wd       *watchdog
	shared   *sharedWatchdog
	finished bool
	trace    httptrace.ClientTrace
	probe    *probe
	body     idleReader
	// reqCtx is the guard with the trace hook: pass it with the request.
	reqCtx context.Context
}

// sharedWatchdog lets the sequential calls of one Session use one timer
// and one cancelable context instead of creating (and, for the context,
// registering with its parent) one per call. Whoever sets busy owns all
// of it until finish.
type sharedWatchdog struct {
	w    watchdog
	busy atomic.Bool
	// ctx is a cancelable child of parent that calls are sent with. It is
	// replaced when a call comes with another parent, or once a read
	// timeout (or the parent) canceled it.
	parent context.Context
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// context returns the shared request context for parent.
func (s *sharedWatchdog) context(parent context.Context) (context.Context, context.CancelCauseFunc) {
	if s.ctx == nil || !sameContext(s.parent, parent) || s.ctx.Err() != nil {
		if s.cancel != nil {
			s.cancel(nil)
		}
		s.parent = parent
		s.ctx, s.cancel = context.WithCancelCause(parent)
	}
	return s.ctx, s.cancel
}

// close cancels the shared context; the caller owns s.
func (s *sharedWatchdog) close() {
	s.w.close()
	if s.cancel != nil {
		s.cancel(nil)
	}
	s.parent, s.ctx, s.cancel = nil, nil, nil
}

// sameContext compares two contexts without panicking on a context type
// that is not comparable.
func sameContext(a, b context.Context) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

// Value answers the request's limits without boxing them, and its probe
// (nil if none) for the dialer.
func (g *readGuard) Value(key any) any {
	switch key.(type) {
	case limitsKey:
		return &g.lim
	case probeKey:
		if g.probe != nil {
			return g.probe
		}
	}
	return g.Context.Value(key)
}

// guard derives the context a request must be sent with (g.reqCtx) so
// its limits are known to the dialer and its read timeout can be
// enforced; pass the request to g.roundTrip. shared, when not nil and not
// in use by another request, watches this one. pr, when not nil, records
// the exchange's timing and header fields: its hooks share the guard's
// trace, one context layer for both.
func guard(parent context.Context, l limits, shared *sharedWatchdog, pr *probe) *readGuard {
	g := &readGuard{lim: l, probe: pr}
	if shared != nil && shared.busy.CompareAndSwap(false, true) {
		g.wd, g.shared = &shared.w, shared
		g.Context, g.cancel = shared.context(parent)
	} else {
		g.wd = new(watchdog)
		g.Context, g.cancel = context.WithCancelCause(parent)
	}
	g.wd.begin(g, l.read, g.cancel)
	g.trace.WroteRequest = g.wroteRequest
	if pr != nil {
		pr.requestHooks(&g.trace)
	}
	g.reqCtx = httptrace.WithClientTrace(g, &g.trace)
	return g
}

func (g *readGuard) wroteRequest(httptrace.WroteRequestInfo) { g.wd.arm(g) }

// finish ends the watch of this request and releases its context: a
// shared watchdog and context are handed back for the next call, its own
// are stopped and canceled.
func (g *readGuard) finish() {
	if g.finished {
		return
	}
	g.finished = true
	if g.shared != nil {
		g.wd.end(g)
		g.shared.busy.Store(false)
		return
	}
	g.wd.close()
	g.cancel(nil)
}

func (g *readGuard) roundTrip(rt http.RoundTripper, req *http.Request) (*http.Response, error) {
	resp, err := rt.RoundTrip(req)
	g.wd.disarm(g)
	if err != nil {
		if errors.Is(context.Cause(g), errReadTimeout) {
			err = &readTimeoutError{timeout: g.lim.read, err: err}
		}
		g.finish()
		return nil, err
	}
	g.body = idleReader{rc: resp.Body, g: g}
	resp.Body = &g.body
	return resp, nil
}

type readTimeoutError struct {
	timeout time.Duration
	err     error
}

func (e *readTimeoutError) Error() string {
	return fmt.Sprintf("no data for %v", e.timeout)
}

func (e *readTimeoutError) Unwrap() error { return e.err }

// watchdog cancels a request when one wait (for the headers, or inside one
// Read of the body) lasts longer than d. Arming is cheap: the timer is not
// reset per Read, nor per request when one watchdog serves a Session's
// calls in turn; when it fires it checks the wait in progress and sleeps
// again for whatever is left. Every method names the request (its guard),
// so a late hook of a finished request cannot touch the next one.
type watchdog struct {
	mu sync.Mutex
	t  *time.Timer
	// owner is the request being watched (nil: none), with its read
	// timeout and cancel function.
	owner  *readGuard
	d      time.Duration
	cancel context.CancelCauseFunc
	// pending: the timer is scheduled, for due. waiting: a wait is in
	// progress, since start.
	pending, waiting bool
	due, start       time.Time
}

// begin watches the request g.
func (w *watchdog) begin(g *readGuard, d time.Duration, cancel context.CancelCauseFunc) {
	w.mu.Lock()
	w.owner, w.d, w.cancel, w.waiting = g, d, cancel, false
	w.mu.Unlock()
}

func (w *watchdog) arm(g *readGuard) {
	w.mu.Lock()
	if w.owner != g {
		w.mu.Unlock()
		return
	}
	now := time.Now()
	w.waiting, w.start = true, now
	due := now.Add(w.d)
	switch {
	case w.t == nil:
		w.t = time.AfterFunc(w.d, w.fire)
		w.pending, w.due = true, due
	case !w.pending || w.due.After(due):
		w.t.Reset(w.d)
		w.pending, w.due = true, due
	}
	w.mu.Unlock()
}

func (w *watchdog) disarm(g *readGuard) {
	w.mu.Lock()
	if w.owner == g {
		w.waiting = false
	}
	w.mu.Unlock()
}

func (w *watchdog) fire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = false
	if w.owner == nil || !w.waiting {
		return
	}
	if left := w.d - time.Since(w.start); left > 0 {
		w.t.Reset(left)
		w.pending, w.due = true, time.Now().Add(left)
		return
	}
	cancel := w.cancel
	w.owner, w.cancel, w.waiting = nil, nil, false
	cancel(errReadTimeout)
}

// end stops watching g; the timer stays for the next request.
func (w *watchdog) end(g *readGuard) {
	w.mu.Lock()
	if w.owner == g {
		w.owner, w.cancel, w.waiting = nil, nil, false
	}
	w.mu.Unlock()
}

// close stops watching and stops the timer.
func (w *watchdog) close() {
	w.mu.Lock()
	w.owner, w.cancel, w.waiting = nil, nil, false
	if w.t != nil {
		w.t.Stop()
	}
	w.pending = false
	w.mu.Unlock()
}

// idleReader bounds each Read of a response body by the read timeout.
type idleReader struct {
	rc io.ReadCloser
	g  *readGuard
}

func (r *idleReader) Read(p []byte) (int, error) {
	g := r.g
	g.wd.arm(g)
	n, err := r.rc.Read(p)
	g.wd.disarm(g)
	if err != nil && err != io.EOF && errors.Is(context.Cause(g), errReadTimeout) {
		err = &readTimeoutError{timeout: g.lim.read, err: err}
	}
	return n, err
}

func (r *idleReader) Close() error {
	err := r.rc.Close()
	r.g.finish()
	return err
}
