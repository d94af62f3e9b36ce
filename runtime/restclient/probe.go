package restclient

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"time"

	"github.com/restls/restls/config"
)

// The steps of a service probe, in the order they happen.
const (
	ProbeStepService = "service" // the serviceId is configured and usable
	ProbeStepToken   = "token"   // the OAuth token request
	ProbeStepDNS     = "dns"     // resolving the service's host
	ProbeStepConnect = "connect" // the TCP connection
	ProbeStepTLS     = "tls"     // the TLS handshake
	ProbeStepHTTP    = "http"    // the HEAD (or GET) exchange
)

// Outcomes of a probe step.
const (
	ProbeOK      = "ok"
	ProbeFailed  = "failed"
	ProbeSkipped = "skipped" // did not apply (an IP address has no DNS step, http no TLS)
)

// ProbeStep is the outcome of one step of a probe. Detail never holds a
// credential.
type ProbeStep struct {
	Step    string  `json:"step"`
	Outcome string  `json:"outcome"`
	Ms      float64 `json:"ms"`
	Detail  string  `json:"detail,omitempty"`
}

// ProbeResult is what a probe found out about one service. Steps after
// the one that failed are absent (they did not happen), except that a
// failed token request does not stop the HEAD: whether the service itself
// answers is still worth knowing.
type ProbeResult struct {
	ServiceID string `json:"serviceId"`
	// URL is the resolved address, with any password in it hidden.
	URL string `json:"url"`
	// Auth is the kind of authorization configured ("none", "basic",
	// "oAuth client_credentials"), never a credential.
	Auth string `json:"auth"`
	OK   bool   `json:"ok"`
	// Method is the method of the last exchange (GET when HEAD was
	// refused) and Status its status code; 0 when none answered.
	Method string      `json:"method,omitempty"`
	Status int         `json:"status,omitempty"`
	Steps  []ProbeStep `json:"steps"`
	// FailedStep names the first step that failed; ErrorCode is its
	// stable code (docs/runtime.md) when it is not an HTTP status.
	FailedStep string `json:"failedStep,omitempty"`
	ErrorCode  string `json:"errorCode,omitempty"`
	// Message says what failed and what to do.
	Message string  `json:"message,omitempty"`
	TotalMs float64 `json:"totalMs"`
}

// Probe checks that serviceId id of reg can be called from here: it
// fetches a fresh token when the service uses OAuth, then sends HEAD to
// the service's url (GET when HEAD is refused with 405 or 501) with the
// configured authorization, on a new connection so that DNS, connect and
// TLS are timed, under the registry's default timeouts. It always uses
// the network (never a Mock) and leaves the token cache alone.
//
// A probe fails on a token, DNS, connection or TLS failure, a read
// timeout, and on 401, 407 and 5XX answers; any other status means the
// service answered (a base url need not serve anything). Every text in
// the result has been through the Redactor of the registry's credentials.
func (c *Client) Probe(ctx context.Context, reg *config.Registry, id string) *ProbeResult {
	start := time.Now()
	s := c.Session(reg)
	defer s.Close()
	res := &ProbeResult{ServiceID: id, Steps: []ProbeStep{}}
	defer func() {
		res.TotalMs = msSince(start)
		res.Message = s.red.String(res.Message)
		for i := range res.Steps {
			res.Steps[i].Detail = s.red.String(res.Steps[i].Detail)
		}
		res.OK = res.FailedStep == ""
	}()
	svc, err := s.service(id)
	if err != nil {
		var e *Error
		errors.As(err, &e)
		res.Auth = "none"
		res.fail(ProbeStepService, e.Code, e.Message)
		res.Steps = append(res.Steps, ProbeStep{Step: ProbeStepService, Outcome: ProbeFailed, Detail: e.Message})
		return res
	}
	res.Auth = reg.AuthSummary(svc)
	target, err := BuildURL(svc.URL, nil, nil)
	if err != nil {
		res.URL = displayURL(svc.URL)
		res.fail(ProbeStepService, CodeServiceUnusable, fmt.Sprintf("the url of %s cannot be used: %v", id, err))
		res.Steps = append(res.Steps, ProbeStep{Step: ProbeStepService, Outcome: ProbeFailed, Detail: res.Message})
		return res
	}
	res.URL = displayURL(target)
	lim, _ := s.limits(&Request{}, &Call{})
	tr := c.probeTransport()
	defer tr.CloseIdleConnections()

	// The timeouts bound each wait, not a whole exchange: a token
	// endpoint that sends its headers and then a byte now and then never
	// trips the read timeout. The probe of one service has its own bound
	// in all, what its exchanges take at most when each waits its
	// longest: the token, the HEAD and a GET after a refused HEAD.
	bound := probeBound(lim.connect, lim.read)
	parent := ctx
	ctx, cancel := context.WithTimeoutCause(parent, bound, errProbeBound)
	defer cancel()
	overBound := func() bool { return parent.Err() == nil && errors.Is(context.Cause(ctx), errProbeBound) }

	h := http.Header{"Accept": acceptJSON}
	switch svc.Auth.Type {
	case config.AuthBasic:
		h.Set("Authorization", "Basic "+svc.Auth.EncodedCredentials.Reveal())
	case config.AuthOAuth:
		if !s.probeToken(ctx, res, svc, tr, lim, h) && ctx.Err() != nil {
			if overBound() {
				o, _ := s.reg.OAuth(svc.Auth.OAuthID)
				res.overBound(ProbeStepToken, fmt.Sprintf("the token endpoint (%s) of oAuth %q had not sent its whole answer when the probe of %s reached its bound of %v in all (3 x (connection + read timeout)): it answers too slowly, or trickles; check the token endpoint",
					hostOf(o.URL), o.ID, id, bound))
			}
			return res
		}
	}

	clk := &probeClock{}
	status, reason, err := s.probeExchange(ctx, clk, tr, http.MethodHead, target, h, lim)
	res.Method = http.MethodHead
	httpDetail := ""
	if err == nil && (status == http.StatusMethodNotAllowed || status == http.StatusNotImplemented) {
		httpDetail = fmt.Sprintf("HEAD %d %s, then ", status, reason)
		again := &probeClock{}
		status, reason, err = s.probeExchange(ctx, again, tr, http.MethodGet, target, h, lim)
		res.Method = http.MethodGet
		if err != nil {
			// The connection of the HEAD was made and timed: report the
			// GET's failure at the step it failed.
			clk = again
		} else {
			clk.first, clk.got = again.first, again.got
		}
	}
	res.Steps = append(res.Steps, clk.connSteps(target)...)
	if err != nil {
		step := clk.failedStep(err, ctx, lim)
		code, _ := transportFailure(ctx, lim, err)
		msg := s.classify(ctx, id, hostOf(target), lim, err).Error()
		if overBound() {
			code = CodeProbeTimeout
			msg = fmt.Sprintf("%s had not answered when the probe reached its bound of %v in all (3 x (connection + read timeout)); check the service", id, bound)
		}
		// The steps before the failed one stay; the failed one is added.
		res.Steps = append(stepsBefore(res.Steps, step), ProbeStep{Step: step, Outcome: ProbeFailed, Ms: clk.stepMs(step), Detail: msg})
		res.fail(step, code, msg)
		return res
	}
	res.Status = status
	detail := httpDetail + fmt.Sprintf("%s %d %s", res.Method, status, reason)
	outcome := ProbeOK
	if msg := statusProblem(svc, res.Auth, status, reason, res.FailedStep == ProbeStepToken); msg != "" {
		outcome = ProbeFailed
		res.fail(ProbeStepHTTP, "", msg)
	}
	res.Steps = append(res.Steps, ProbeStep{Step: ProbeStepHTTP, Outcome: outcome, Ms: msBetween(clk.got, clk.first), Detail: detail})
	return res
}

// errProbeBound is the cause of a probe stopped at its bound.
var errProbeBound = errors.New("the probe's bound in all")

// probeBound is how long the probe of one service may take in all, for
// the registry's default connection and read timeouts: three exchanges
// (the token, the HEAD, a GET after a refused HEAD), each connecting and
// waiting for its answer at most as long as the timeouts allow.
func probeBound(connect, read time.Duration) time.Duration { return 3 * (connect + read) }

// overBound makes the failure of step the probe's bound: the message of
// the step, and of the probe, says so.
func (r *ProbeResult) overBound(step, msg string) {
	r.FailedStep, r.ErrorCode, r.Message = step, CodeProbeTimeout, msg
	for i := range r.Steps {
		if r.Steps[i].Step == step && r.Steps[i].Outcome == ProbeFailed {
			r.Steps[i].Detail = msg
		}
	}
}

// fail records the first failure.
func (r *ProbeResult) fail(step, code, msg string) {
	if r.FailedStep != "" {
		return
	}
	r.FailedStep, r.ErrorCode, r.Message = step, code, msg
}

// probeToken fetches a token for svc's OAuth definition, adds the step
// and, when it came, the Authorization header to h. It reports whether a
// token came.
func (s *Session) probeToken(ctx context.Context, res *ProbeResult, svc *config.Service, tr http.RoundTripper, lim limits, h http.Header) bool {
	o, ok := s.reg.OAuth(svc.Auth.OAuthID)
	if !ok {
		msg := fmt.Sprintf("serviceId %q uses oAuth %q, which is not defined or unusable: fix the configuration (restls services lists its diagnostics)", svc.ID, svc.Auth.OAuthID)
		res.fail(ProbeStepToken, CodeServiceUnusable, msg)
		res.Steps = append(res.Steps, ProbeStep{Step: ProbeStepToken, Outcome: ProbeFailed, Detail: msg})
		return false
	}
	start := time.Now()
	tok, err := s.fetchToken(withLimits(ctx, lim), &timeoutTransport{base: tr}, o, &Call{})
	ms := msSince(start)
	if err == nil && tok.AccessToken == "" {
		err = errors.New("no access_token")
	}
	if err != nil {
		terr := s.tokenError(ctx, o, svc.ID, lim, err)
		code := CodeTokenFailed
		var e *Error
		if errors.As(terr, &e) {
			code = e.Code
		}
		res.fail(ProbeStepToken, code, terr.Error())
		res.Steps = append(res.Steps, ProbeStep{Step: ProbeStepToken, Outcome: ProbeFailed, Ms: ms, Detail: terr.Error()})
		return false
	}
	s.red.Add(tok.AccessToken)
	s.red.Add(tok.RefreshToken)
	h.Set("Authorization", "Bearer "+tok.AccessToken)
	detail := fmt.Sprintf("oAuth %q, %s grant, from %s", o.ID, o.GrantType, hostOf(o.URL))
	if !tok.Expiry.IsZero() {
		detail += fmt.Sprintf(", expires in %d s", int(time.Until(tok.Expiry).Round(time.Second).Seconds()))
	}
	res.Steps = append(res.Steps, ProbeStep{Step: ProbeStepToken, Outcome: ProbeOK, Ms: ms, Detail: detail})
	return true
}

// statusProblem says why an answer fails the probe, or "".
func statusProblem(svc *config.Service, auth string, status int, reason string, noToken bool) string {
	switch {
	case status == http.StatusUnauthorized && noToken:
		return "" // the token step failed already; a 401 is what that gives
	case status == http.StatusUnauthorized && svc.Auth.Type == config.AuthNone:
		return fmt.Sprintf("%s answered %d %s: the service wants credentials; configure an authorization for serviceId %q", svc.ID, status, reason, svc.ID)
	case status == http.StatusUnauthorized:
		return fmt.Sprintf("%s answered %d %s: it rejects the configured %s credentials; check the authorization of serviceId %q", svc.ID, status, reason, auth, svc.ID)
	case status == http.StatusProxyAuthRequired:
		return fmt.Sprintf("%s answered %d %s: the HTTP proxy wants credentials; check HTTPS_PROXY/HTTP_PROXY", svc.ID, status, reason)
	case status >= 500:
		return fmt.Sprintf("%s answered %d %s: the service is reachable but failing; check the service", svc.ID, status, reason)
	}
	return ""
}

// probeTransport is a transport like the client's, with the same dialer
// and TLS configuration, that keeps no connection: each probe dials.
func (c *Client) probeTransport() *http.Transport {
	dial := c.opts.Dial
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	d := &dialer{dial: dial, tls: c.opts.TLSConfig}
	return &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         d.dialContext,
		DialTLSContext:      d.dialTLSContext,
		DisableKeepAlives:   true,
		TLSHandshakeTimeout: 10 * time.Second,
	}
}

// probeExchange sends one bodiless request and reads only its status.
func (s *Session) probeExchange(ctx context.Context, clk *probeClock, tr http.RoundTripper, method, target string, h http.Header, lim limits) (int, string, error) {
	g := guard(ctx, lim, nil, nil)
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(g.reqCtx, clk.trace()), method, target, nil)
	if err != nil {
		g.finish()
		return 0, "", err
	}
	req.Header = h.Clone()
	hr, err := g.roundTrip(tr, req)
	if err != nil {
		return 0, "", err
	}
	clk.at(&clk.first)
	_ = hr.Body.Close()
	reason := strings.TrimSpace(trimStatusCode(hr.Status, hr.StatusCode))
	if reason == "" {
		reason = http.StatusText(hr.StatusCode)
	}
	return hr.StatusCode, reason, nil
}

// probeClock collects the httptrace events of one probe exchange. Dials
// may report from their own goroutines: every field is under mu.
type probeClock struct {
	mu                                      sync.Mutex
	dnsStart, dns, connStart, conn, connEnd time.Time
	tlsStart, tlsDone, got, first           time.Time
	addrs                                   []string
	remote, tlsVersion                      string
	dnsErr, connErr, tlsErr                 error
	dnsStarted, connStarted, tlsStartedSet  bool
}

func (p *probeClock) at(t *time.Time) {
	p.mu.Lock()
	*t = time.Now()
	p.mu.Unlock()
}

func (p *probeClock) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		DNSStart: func(httptrace.DNSStartInfo) {
			p.mu.Lock()
			p.dnsStart, p.dnsStarted = time.Now(), true
			p.mu.Unlock()
		},
		DNSDone: func(i httptrace.DNSDoneInfo) {
			p.mu.Lock()
			p.dns, p.dnsErr = time.Now(), i.Err
			p.addrs = p.addrs[:0]
			for _, a := range i.Addrs {
				p.addrs = append(p.addrs, a.String())
			}
			p.mu.Unlock()
		},
		ConnectStart: func(string, string) {
			p.mu.Lock()
			if !p.connStarted {
				p.connStart, p.connStarted = time.Now(), true
			}
			p.mu.Unlock()
		},
		ConnectDone: func(_, addr string, err error) {
			p.mu.Lock()
			p.connEnd = time.Now()
			if p.conn.IsZero() {
				p.connErr = err
				if err == nil {
					p.conn, p.remote = time.Now(), addr
				}
			}
			p.mu.Unlock()
		},
		TLSHandshakeStart: func() {
			p.mu.Lock()
			p.tlsStart, p.tlsStartedSet = time.Now(), true
			p.mu.Unlock()
		},
		TLSHandshakeDone: func(st tls.ConnectionState, err error) {
			p.mu.Lock()
			p.tlsDone, p.tlsErr = time.Now(), err
			if err == nil {
				p.tlsVersion = tls.VersionName(st.Version)
			}
			p.mu.Unlock()
		},
		GotConn: func(httptrace.GotConnInfo) { p.at(&p.got) },
	}
}

// connSteps are the DNS, connect and TLS steps that completed (or did not
// apply) for target.
func (p *probeClock) connSteps(target string) []ProbeStep {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []ProbeStep
	host := hostOf(target)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	switch {
	case net.ParseIP(host) != nil:
		out = append(out, ProbeStep{Step: ProbeStepDNS, Outcome: ProbeSkipped, Detail: "the host is an IP address"})
	case p.dnsStarted && !p.dns.IsZero() && p.dnsErr == nil:
		out = append(out, ProbeStep{Step: ProbeStepDNS, Outcome: ProbeOK, Ms: msBetween(p.dnsStart, p.dns), Detail: host + ": " + strings.Join(p.addrs, ", ")})
	}
	if !p.conn.IsZero() {
		out = append(out, ProbeStep{Step: ProbeStepConnect, Outcome: ProbeOK, Ms: msBetween(p.connStart, p.conn), Detail: p.remote})
	}
	switch {
	case strings.HasPrefix(target, "http:"):
		out = append(out, ProbeStep{Step: ProbeStepTLS, Outcome: ProbeSkipped, Detail: "plain http"})
	case !p.tlsDone.IsZero() && p.tlsErr == nil:
		out = append(out, ProbeStep{Step: ProbeStepTLS, Outcome: ProbeOK, Ms: msBetween(p.tlsStart, p.tlsDone), Detail: p.tlsVersion})
	}
	return out
}

// failedStep names the step a transport error of the exchange happened
// in: by its code, else by the phase that had begun and not ended.
func (p *probeClock) failedStep(err error, ctx context.Context, lim limits) string {
	code, _ := transportFailure(ctx, lim, err)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch code {
	case CodeDNS:
		return ProbeStepDNS
	case CodeTLS:
		return ProbeStepTLS
	case CodeConnectionRefused:
		return ProbeStepConnect
	case CodeReadTimeout, CodeTransferFailed:
		if !p.got.IsZero() {
			return ProbeStepHTTP
		}
	}
	switch {
	case p.tlsStartedSet && p.tlsDone.IsZero() || p.tlsErr != nil:
		return ProbeStepTLS
	case p.connStarted && p.conn.IsZero():
		return ProbeStepConnect
	case p.dnsStarted && (p.dns.IsZero() || p.dnsErr != nil):
		return ProbeStepDNS
	case p.got.IsZero() && code != CodeReadTimeout && code != CodeTransferFailed:
		return ProbeStepConnect
	}
	return ProbeStepHTTP
}

// stepMs is how long the failed step lasted, up to now.
func (p *probeClock) stepMs(step string) float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	end := func(t time.Time) time.Time {
		if t.IsZero() {
			return now
		}
		return t
	}
	switch step {
	case ProbeStepDNS:
		return msBetween(p.dnsStart, end(p.dns))
	case ProbeStepConnect:
		return msBetween(p.connStart, end(p.connEnd))
	case ProbeStepTLS:
		return msBetween(p.tlsStart, end(p.tlsDone))
	case ProbeStepHTTP:
		return msBetween(p.got, now)
	}
	return 0
}

// probeOrder is the order steps happen in.
var probeOrder = map[string]int{ProbeStepService: 0, ProbeStepToken: 1, ProbeStepDNS: 2, ProbeStepConnect: 3, ProbeStepTLS: 4, ProbeStepHTTP: 5}

// stepsBefore keeps the steps that come before step: a failed step is
// reported once, as failed, and nothing after it happened.
func stepsBefore(steps []ProbeStep, step string) []ProbeStep {
	out := steps[:0]
	for _, s := range steps {
		if probeOrder[s.Step] < probeOrder[step] {
			out = append(out, s)
		}
	}
	return out
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }
