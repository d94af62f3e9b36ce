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
	"time"
)

// limits are the timeouts of one request, carried in its context so one
// shared transport (and its connection pool) serves every timeout value.
type limits struct {
	connect, read time.Duration
	// serviceID and pathParams tell a Mock what the request is for.
	serviceID  string
	pathParams []string
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
		connect: time.Duration(defaultTimeouts.Connection.Default) * time.Millisecond,
		read:    time.Duration(defaultTimeouts.Read.Default) * time.Millisecond,
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
	if err := tc.HandshakeContext(dctx); err != nil {
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
	g := guard(req.Context(), limitsFrom(req.Context()))
	return g.roundTrip(t.base, req.WithContext(g.reqCtx))
}

// readGuard holds one request's read watchdog. It is also the context the
// request is sent with: the caller's, made cancelable for the watchdog,
// answering the request's limits. One allocation holds the limits, the
// watchdog, the trace hook and the body wrapper that would otherwise be
// a context layer, a boxed value and three objects per call.
type readGuard struct {
	context.Context // cancelable child of the caller's context
	cancel          context.CancelCauseFunc
	lim             limits
	wd              watchdog
	trace           httptrace.ClientTrace
	body            idleReader
	// reqCtx is the guard with the trace hook: pass it with the request.
	reqCtx context.Context
}

// Value answers the request's limits without boxing them.
func (g *readGuard) Value(key any) any {
	if _, ok := key.(limitsKey); ok {
		return &g.lim
	}
	return g.Context.Value(key)
}

// guard derives the context a request must be sent with (g.reqCtx) so
// its limits are known to the dialer and its read timeout can be
// enforced; pass the request to g.roundTrip.
func guard(parent context.Context, l limits) *readGuard {
	g := &readGuard{lim: l}
	g.Context, g.cancel = context.WithCancelCause(parent)
	g.wd.d, g.wd.cancel = l.read, g.cancel
	g.trace.WroteRequest = g.wroteRequest
	g.reqCtx = httptrace.WithClientTrace(g, &g.trace)
	return g
}

func (g *readGuard) wroteRequest(httptrace.WroteRequestInfo) { g.wd.arm() }

func (g *readGuard) roundTrip(rt http.RoundTripper, req *http.Request) (*http.Response, error) {
	resp, err := rt.RoundTrip(req)
	g.wd.disarm()
	if err != nil {
		g.wd.stop()
		if errors.Is(context.Cause(g), errReadTimeout) {
			err = &readTimeoutError{timeout: g.lim.read, err: err}
		}
		g.cancel(nil)
		return nil, err
	}
	g.body = idleReader{rc: resp.Body, wd: &g.wd, ctx: g, cancel: g.cancel, timeout: g.lim.read}
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
// reset per Read; when it fires it checks the wait in progress and sleeps
// again for whatever is left.
type watchdog struct {
	d      time.Duration
	cancel context.CancelCauseFunc
	mu     sync.Mutex
	t      *time.Timer
	// pending: the timer is scheduled. waiting: a wait is in progress,
	// since start. stopped: the request is over.
	pending, waiting, stopped bool
	start                     time.Time
}

func (w *watchdog) arm() {
	w.mu.Lock()
	w.waiting, w.start = true, time.Now()
	switch {
	case w.stopped || w.pending:
	case w.t == nil:
		w.t = time.AfterFunc(w.d, w.fire)
		w.pending = true
	default:
		w.t.Reset(w.d)
		w.pending = true
	}
	w.mu.Unlock()
}

func (w *watchdog) disarm() {
	w.mu.Lock()
	w.waiting = false
	w.mu.Unlock()
}

func (w *watchdog) fire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = false
	if w.stopped || !w.waiting {
		return
	}
	if left := w.d - time.Since(w.start); left > 0 {
		w.t.Reset(left)
		w.pending = true
		return
	}
	w.stopped = true
	w.cancel(errReadTimeout)
}

// stop ends the watch for good.
func (w *watchdog) stop() {
	w.mu.Lock()
	w.stopped, w.waiting = true, false
	if w.t != nil {
		w.t.Stop()
	}
	w.mu.Unlock()
}

// idleReader bounds each Read of a response body by the read timeout.
type idleReader struct {
	rc      io.ReadCloser
	wd      *watchdog
	ctx     context.Context
	cancel  context.CancelCauseFunc
	timeout time.Duration
}

func (r *idleReader) Read(p []byte) (int, error) {
	r.wd.arm()
	n, err := r.rc.Read(p)
	r.wd.disarm()
	if err != nil && err != io.EOF && errors.Is(context.Cause(r.ctx), errReadTimeout) {
		err = &readTimeoutError{timeout: r.timeout, err: err}
	}
	return n, err
}

func (r *idleReader) Close() error {
	r.wd.stop()
	err := r.rc.Close()
	r.cancel(nil)
	return err
}
