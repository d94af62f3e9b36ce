package restclient

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/restls/restls/config"
)

// DefaultMaxResponseBytes limits a response body after decompression.
const DefaultMaxResponseBytes = 10 << 20

// Options configure a Client.
type Options struct {
	// MaxResponseBytes limits every response body after decompression;
	// 0 means DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// Dial replaces the TCP dialer (tests use a blocking one). The
	// connection timeout is applied around it.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// TLSConfig is cloned for every TLS connection (tests add RootCAs).
	TLSConfig *tls.Config
	// Mock, when set, answers every call from its fixtures instead of the
	// network; no OAuth token is requested for a call it answers.
	Mock *Mock
	// MockPassThrough sends the calls no fixture answers to the network
	// (recording what is missing) instead of failing them with no-fixture.
	MockPassThrough bool
	// Logger receives one Debug line per call and auth warnings; nil
	// discards them. Values of headers are never logged.
	Logger *zap.Logger
	// Now is the clock for token expiry; nil means time.Now.
	Now func() time.Time
	// Trace records each exchange's phases (Call.Timing) and its header
	// blocks as sent and received (Call.Wire) through net/http/httptrace.
	// It costs every call about 5% against a plain net/http request
	// (docs/decisions.md), so it is on only for output that shows them:
	// restls run --json and -v. Without it a Call has DurationMs and
	// ResponseBytes, no Timing and no Wire.
	Trace bool
	// AllowServices, when not nil, are the only serviceIds calls may
	// name: any other fails with CodeServiceNotAllowed before a
	// connection or token request is made (serve --http's runner role
	// limited to some services).
	AllowServices []string
}

// Client sends api.rest.v1 calls. It owns the connection pool and the OAuth
// token cache, so one Client should serve many runs. It is safe for
// concurrent use.
type Client struct {
	opts   Options
	log    *zap.Logger
	rt     http.RoundTripper // the network (or the Mock)
	base   http.RoundTripper // rt with the read timeout, for token requests
	tokens tokenCache
}

// New returns a Client.
func New(opts Options) *Client {
	if opts.MaxResponseBytes <= 0 {
		opts.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = zap.NewNop()
	}
	var rt http.RoundTripper
	if opts.Mock != nil && !opts.MockPassThrough {
		rt = opts.Mock
	} else {
		dial := opts.Dial
		if dial == nil {
			dial = (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext
		}
		d := &dialer{dial: dial, tls: opts.TLSConfig}
		rt = &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           d.dialContext,
			DialTLSContext:        d.dialTLSContext,
			MaxIdleConns:          64,
			MaxIdleConnsPerHost:   16,
			IdleConnTimeout:       90 * time.Second,
			ExpectContinueTimeout: time.Second,
			// Only used through a proxy (CONNECT), where our dialer does
			// not do the handshake: the largest connection timeout (docs/api.md#timeouts).
			TLSHandshakeTimeout: 10 * time.Second,
		}
	}
	return &Client{
		opts:   opts,
		log:    log,
		rt:     rt,
		base:   &timeoutTransport{base: rt},
		tokens: tokenCache{entries: map[string]*tokenEntry{}},
	}
}

// Session binds a Client to one registry for one run and collects the
// credentials it must hide from that run's output.
type Session struct {
	c   *Client
	reg *config.Registry
	red *Redactor
	// rec, when set, keeps the answers of the calls sent to the network.
	rec *Recorder
	// wd watches the read timeout of the session's calls, which come one
	// at a time, and holds the context they are sent with; a concurrent
	// call gets a watchdog and a context of its own.
	wd sharedWatchdog
}

// Close releases the session's read-timeout timer and request context. A
// session that is not closed lets the timer go when it next fires, and the
// context when the one its calls were given ends.
func (s *Session) Close() {
	if s.wd.busy.CompareAndSwap(false, true) {
		s.wd.close()
		s.wd.busy.Store(false)
	}
}

// Session returns a session on reg. Every credential reg holds, and each
// token the client holds for it, is registered with the session's
// Redactor at once.
func (c *Client) Session(reg *config.Registry) *Session {
	return &Session{c: c, reg: reg, red: registryRedactor(reg, c.tokens.peek)}
}

// RegistryRedactor is a Redactor of every credential reg holds, as a
// run's session on reg starts with (Client.Session) before it fetches a
// token: for text made from a run's output after the run (the debug
// console's contract notes), so that it is masked as the run's output is.
func RegistryRedactor(reg *config.Registry) *Redactor { return registryRedactor(reg, nil) }

// registryRedactor is RegistryRedactor with the tokens token (may be
// nil) holds for reg's OAuth clients.
func registryRedactor(reg *config.Registry, token func(*config.OAuth) string) *Redactor {
	red := NewRedactor()
	for _, id := range reg.IDs() {
		svc, _ := reg.Service(id)
		switch svc.Auth.Type {
		case config.AuthBasic:
			red.AddBasic(svc.Auth.EncodedCredentials.Reveal())
		case config.AuthOAuth:
			if o, ok := reg.OAuth(svc.Auth.OAuthID); ok {
				red.Add(o.ClientSecret.Reveal())
				red.Add(o.Password.Reveal())
				red.AddBasic(o.TokenBasicAuth.Reveal())
				if token != nil {
					red.Add(token(o))
				}
			}
		}
	}
	return red
}

// Redactor returns the session's Redactor; callers pass every text they
// show (logs, results, errors) through it.
func (s *Session) Redactor() *Redactor { return s.red }

// acceptJSON is the default Accept header, shared by every request: header
// values are only read once set (cap 1, so an append copies).
var acceptJSON = []string{"application/json"}

// Request is one api.rest.v1 call.
type Request struct {
	ServiceID  string
	Method     string
	PathParams []string
	Query      []QueryParam
	Header     []HeaderField
	// Body is the JSON payload of post, put and patch; nil sends no body.
	Body json.RawMessage
	// ConnectTimeoutMs and ReadTimeoutMs are the call's TIMEOUTS; 0 means
	// the registry's default.
	ConnectTimeoutMs, ReadTimeoutMs int
}

// Response is the service's answer, whatever its status.
type Response struct {
	StatusCode int
	// Status is the reason phrase, for example "Not Found".
	Status string
	Header http.Header
	// Body is the body after decompression; nil when empty.
	Body []byte
	// HeaderList is Header as scripts see it: lower-case names, sorted,
	// repeated values joined with ", ".
	HeaderList Headers
}

// OK reports whether the status is 2XX.
func (r *Response) OK() bool { return r.StatusCode >= 200 && r.StatusCode <= 299 }

// Do sends r. It returns the response for any HTTP status (with a nil
// error, except for a 2XX whose body is not JSON), or an *Error or
// *ArgError; the Call is the trace and is never nil.
func (s *Session) Do(ctx context.Context, r *Request) (*Response, *Call, error) {
	start := time.Now()
	call := &Call{ServiceID: r.ServiceID, Method: r.Method, Events: []Event{}}
	resp, err := s.do(ctx, r, call)
	call.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	budgetEvent(call)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			call.ErrorCode = e.Code
		}
		call.ErrorMessage = s.red.String(err.Error())
	}
	for i := range call.Events {
		call.Events[i].Message = s.red.String(call.Events[i].Message)
	}
	call.URL = s.red.String(call.URL)
	if ce := s.c.log.Check(zap.DebugLevel, "api.rest.v1 call"); ce != nil {
		ce.Write(zap.String("serviceId", r.ServiceID), zap.String("method", r.Method),
			zap.Float64("durationMs", call.DurationMs), zap.String("errorCode", call.ErrorCode), zap.Intp("status", statusOf(resp)))
	}
	return resp, call, err
}

func statusOf(r *Response) *int {
	if r == nil {
		return nil
	}
	return &r.StatusCode
}

// URLOf is the URL r would call as a call's trace shows it (Call.URL),
// "" when r names no usable service or its URL cannot be built: what a
// run's observer shows before the call is sent.
func (s *Session) URLOf(r *Request) string {
	_, target, err := s.target(r)
	if err != nil {
		return ""
	}
	return displayURL(target)
}

// target is r's service and the URL r calls on it.
func (s *Session) target(r *Request) (*config.Service, string, error) {
	svc, err := s.service(r.ServiceID)
	if err != nil {
		return nil, "", err
	}
	target, err := BuildURL(svc.URL, r.PathParams, r.Query)
	return svc, target, err
}

func (s *Session) do(ctx context.Context, r *Request, call *Call) (*Response, error) {
	svc, target, err := s.target(r)
	if err != nil {
		return nil, err
	}
	call.URL = displayURL(target)
	if err := checkHeaders(r.Header); err != nil {
		return nil, err
	}
	lim, err := s.limits(r, call)
	if err != nil {
		return nil, err
	}
	call.readTimeout = lim.read
	// lim travels in the request's context (for the dialer and a Mock).
	lim.serviceID, lim.method, lim.pathParams, lim.query = svc.ID, r.Method, r.PathParams, r.Query
	if m := s.c.opts.Mock; m != nil {
		lim.mock = !s.c.opts.MockPassThrough || m.answers(svc.ID, r.Method, r.PathParams, r.Query)
	}

	h := make(http.Header, len(r.Header)+3)
	for _, f := range r.Header {
		switch strings.ToLower(f.Name) {
		case "host", "content-length", "transfer-encoding", "connection":
			call.event(EventHeader, fmt.Sprintf("header %s is set by the HTTP client; the script's value is ignored", f.Name))
			continue
		}
		h.Add(f.Name, f.Value)
	}
	if h.Get("Accept") == "" {
		h["Accept"] = acceptJSON
	}
	var body []byte
	var form []MultipartField
	if r.Body != nil {
		if IsMultipart(h.Get("Content-Type")) {
			fields, err := MultipartFields(r.Body)
			if err != nil {
				return nil, err
			}
			b, ct, err := encodeMultipart(fields)
			if err != nil {
				return nil, fmt.Errorf("encode multipart body: %w", err)
			}
			body, form = b, fields
			h.Set("Content-Type", ct)
			rb, _ := json.Marshal(map[string]any{"multipart": true, "fields": fieldMap(fields)})
			call.RequestBody = json.RawMessage(s.red.String(string(rb)))
		} else {
			body = r.Body
			if h.Get("Content-Type") == "" {
				h.Set("Content-Type", "application/json")
			}
			call.RequestBody, _ = traceBody(body, s.red)
		}
	}
	if a := h.Get("Authorization"); a != "" {
		// A hard-coded credential is still a credential.
		s.red.Add(a)
		if _, cred, ok := strings.Cut(a, " "); ok {
			s.red.Add(strings.TrimSpace(cred))
		}
		if svc.Auth.Type != config.AuthNone {
			call.event(EventAuth, fmt.Sprintf("the script's Authorization header is replaced by the %s authorization configured for %s", svc.Auth.Type, svc.ID))
		} else {
			call.event(EventAuth, "the script sets an Authorization header itself; configure the service's authorization instead of hard-coding credentials")
		}
		s.c.log.Warn("script sets an Authorization header", zap.String("serviceId", svc.ID), zap.Bool("replaced", svc.Auth.Type != config.AuthNone))
	}

	var oauth *config.OAuth
	var token string
	switch svc.Auth.Type {
	case config.AuthBasic:
		h.Set("Authorization", "Basic "+svc.Auth.EncodedCredentials.Reveal())
	case config.AuthOAuth:
		o, ok := s.reg.OAuth(svc.Auth.OAuthID)
		if !ok {
			return nil, &Error{Code: CodeServiceUnusable, ServiceID: svc.ID,
				Message: fmt.Sprintf("serviceId %q uses oAuth %q, which is not defined or unusable: fix the configuration (restls services lists its diagnostics)", svc.ID, svc.Auth.OAuthID)}
		}
		oauth = o
		token, err = s.token(ctx, o, svc.ID, lim, call)
		if err != nil {
			return nil, err
		}
		h.Set("Authorization", "Bearer "+token)
	}
	for k, vs := range h {
		for _, v := range vs {
			call.RequestHeaders = append(call.RequestHeaders, HeaderField{Name: k, Value: s.red.String(maskHeader(k, v))})
		}
	}
	sortHeaders(call.RequestHeaders)

	call.curl = &curlRequest{serviceID: svc.ID, auth: svc.Auth.Type, method: r.Method, url: target, header: h, body: body, form: form, red: s.red}
	resp, err := s.send(ctx, svc.ID, r.Method, target, h, body, lim, call)
	// A fixture's 401 is retried as a service's is (issue 36): the next
	// fixture that matches answers the retry, so a 401 fixture with
	// times: 2 (or none) is a 401 that stays 401, one with times: 1 a
	// token the service took again. A recording keeps the answer after
	// the retry.
	if err == nil && resp.StatusCode == http.StatusUnauthorized && oauth != nil {
		call.event(EventRetry, fmt.Sprintf("%s answered 401 Unauthorized: the token of oAuth %q is invalidated and the request retried once", svc.ID, oauth.ID))
		if !lim.mock {
			s.c.tokens.invalidate(oauth, token)
		}
		if m := s.c.opts.Mock; m != nil {
			lim.mock = !s.c.opts.MockPassThrough || m.answers(svc.ID, r.Method, r.PathParams, r.Query)
		}
		token, err = s.token(ctx, oauth, svc.ID, lim, call)
		if err != nil {
			return nil, err
		}
		h.Set("Authorization", "Bearer "+token)
		resp, err = s.send(ctx, svc.ID, r.Method, target, h, body, lim, call)
	}
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusUnauthorized && !lim.mock && svc.RefersTo != "" {
		// A live 401 of an <id>/<suffix> service that did not take its
		// base's credentials: say why (service-reference-no-auth).
		if base, ok := s.reg.Service(svc.RefersTo); ok {
			if hint := config.ReferenceDropsAuth(svc, base); hint != "" {
				call.event(EventReferenceAuth, hint)
			}
		}
	}
	if s.rec != nil && !lim.mock {
		s.rec.add(svc.ID, r, resp)
	}
	call.status = Status{Code: resp.StatusCode, Message: resp.Status}
	call.Status = &call.status
	call.ResponseHeaders = s.traceHeaders(resp.HeaderList)
	valid := json.Valid(resp.Body)
	call.ResponseBody, call.BodyTruncated = traceBodyValid(resp.Body, valid, s.red)
	if resp.OK() && !valid && len(bytes.TrimSpace(resp.Body)) > 0 {
		ct := resp.Header.Get("Content-Type")
		if ct == "" {
			ct = "none"
		}
		return resp, &Error{Code: CodeNotJSON, ServiceID: svc.ID,
			Message: fmt.Sprintf("%s answered %d %s with a body that is not JSON (Content-Type: %s); api.rest.v1 supports only application/json services: check the serviceId and path", svc.ID, resp.StatusCode, resp.Status, ct)}
	}
	return resp, nil
}

// traceHeaders returns the list as a trace shows it: masked and redacted.
// Both lists are read-only, so when nothing is hidden the trace shares the
// script's list instead of copying it.
func (s *Session) traceHeaders(list Headers) Headers {
	var out Headers
	for i, f := range list {
		v := s.red.String(maskHeader(f.Name, f.Value))
		if v != f.Value && out == nil {
			out = make(Headers, len(list))
			copy(out, list)
		}
		if out != nil {
			out[i].Value = v
		}
	}
	if out == nil {
		return list[:len(list):len(list)]
	}
	return out
}

func fieldMap(fields []MultipartField) Headers {
	out := make(Headers, len(fields))
	for i, f := range fields {
		out[i] = HeaderField(f)
	}
	return out
}

func sortHeaders(h Headers) {
	// Insertion sort: few headers, and stable for repeated names.
	for i := 1; i < len(h); i++ {
		for j := i; j > 0 && h[j].Name < h[j-1].Name; j-- {
			h[j], h[j-1] = h[j-1], h[j]
		}
	}
}

// displayURL hides a password in the URL's user information.
func displayURL(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	return u.Redacted()
}

func (s *Session) service(id string) (*config.Service, error) {
	if allow := s.c.opts.AllowServices; allow != nil && !slices.Contains(allow, id) {
		return nil, &Error{Code: CodeServiceNotAllowed, ServiceID: id,
			Message: fmt.Sprintf("serviceId %q may not be called live by this user: their role limits live runs to %s; run with fixtures, or ask the operator of restls serve --http for a role that allows it", id, quoteList(allow))}
	}
	if svc, ok := s.reg.Service(id); ok {
		return svc, nil
	}
	kind := "this"
	if s.reg != nil {
		kind = string(s.reg.Kind)
	}
	if d, ok := s.reg.Unusable(id); ok {
		return nil, &Error{Code: CodeServiceUnusable, ServiceID: id,
			Message: fmt.Sprintf("serviceId %q is configured but unusable: %s; fix the configuration (restls services --kind %s lists every diagnostic)", id, d.String(), kind)}
	}
	msg := fmt.Sprintf("serviceId %q is not configured for %s scripts", id, kind)
	if near := s.reg.Nearest(id, 3); len(near) > 0 {
		msg += "; did you mean " + quoteList(near) + "?"
	} else {
		msg += "."
	}
	if s.reg == nil || !s.reg.Loaded {
		msg += " No service configuration was loaded: set --config-root (or RESTLS_CONFIG_ROOT)."
	} else {
		msg += fmt.Sprintf(" Run restls services --kind %s for the configured ids and the configuration diagnostics.", kind)
	}
	return nil, &Error{Code: CodeUnknownService, ServiceID: id, Message: msg}
}

func quoteList(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = strconv.Quote(id)
	}
	return strings.Join(q, ", ")
}

// limits clamps the call's timeouts to the registry's maximum.
func (s *Session) limits(r *Request, call *Call) (limits, error) {
	// The one rule (config.TimeoutPair.Effective), which the editor's
	// static worst case adds up by too.
	t := s.reg.InForce()
	pick := func(name string, v int, p config.TimeoutPair) (time.Duration, error) {
		if v < 0 {
			return 0, &ArgError{Param: "TIMEOUTS", Msg: fmt.Sprintf("%s must be a positive number of milliseconds, got %d", name, v)}
		}
		ms, clamped := p.Effective(v)
		if clamped {
			call.event(EventTimeout, fmt.Sprintf("%s %d ms is above the configured maximum; %d ms is used", name, v, p.Maximum))
		}
		return time.Duration(ms) * time.Millisecond, nil
	}
	var l limits
	var err error
	if l.connect, err = pick("connectionTimeout", r.ConnectTimeoutMs, t.Connection); err != nil {
		return l, err
	}
	if l.read, err = pick("readTimeout", r.ReadTimeoutMs, t.Read); err != nil {
		return l, err
	}
	return l, nil
}

// send makes one HTTP exchange and reads the whole body under the limit.
func (s *Session) send(ctx context.Context, serviceID, method, target string, h http.Header, body []byte, lim limits, call *Call) (*Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	var pr *probe // timing and wire headers for the trace
	if s.c.opts.Trace {
		pr = newProbe()
	}
	g := guard(ctx, lim, &s.wd, pr)
	req, err := http.NewRequestWithContext(g.reqCtx, method, target, rd)
	if err != nil {
		g.finish()
		return nil, &Error{Code: CodeConnectFailed, ServiceID: serviceID, Message: fmt.Sprintf("cannot build the request for %s: %v", serviceID, err), Err: err}
	}
	req.Header = h
	// Straight to the transport: no redirect is ever followed (a token must
	// not travel to another host; docs/api.md#errors makes 3XX an exception), so
	// http.Client would only add a header copy per call.
	rt := s.c.rt
	if lim.mock {
		rt = s.c.opts.Mock
	}
	hr, err := g.roundTrip(rt, req)
	if err != nil {
		return nil, s.classify(ctx, serviceID, req.URL.Host, lim, err)
	}
	defer hr.Body.Close()
	if pr != nil && pr.answered(req, hr, s.red) {
		call.wire = pr
	}
	var rc io.Reader = hr.Body
	length := hr.ContentLength
	if !hr.Uncompressed && strings.EqualFold(hr.Header.Get("Content-Encoding"), "gzip") {
		zr, err := gzip.NewReader(hr.Body)
		if err != nil {
			return nil, &Error{Code: CodeTransferFailed, ServiceID: serviceID, Message: fmt.Sprintf("%s sent a gzip body that cannot be decompressed: %v", serviceID, err), Err: err}
		}
		rc = zr
		length = -1
		hr.Header.Del("Content-Encoding")
	}
	max := s.c.opts.MaxResponseBytes
	data, err := readAll(rc, length, max)
	if err != nil {
		return nil, s.classify(ctx, serviceID, req.URL.Host, lim, err)
	}
	if int64(len(data)) > max {
		return nil, &Error{Code: CodeResponseTooLarge, ServiceID: serviceID,
			Message: fmt.Sprintf("the response of %s is larger than %d bytes (after decompression): ask the service for less data, or raise --max-response-bytes", serviceID, max)}
	}
	call.ResponseBytes = int64(len(data))
	if pr != nil {
		call.Timing = pr.timing(&call.timing, time.Now(), req.URL.Scheme == "https")
	}
	if len(data) == 0 {
		data = nil
	}
	reason := strings.TrimSpace(trimStatusCode(hr.Status, hr.StatusCode))
	if reason == "" {
		reason = http.StatusText(hr.StatusCode)
	}
	return &Response{StatusCode: hr.StatusCode, Status: reason, Header: hr.Header, Body: data, HeaderList: ResponseHeaderList(hr.Header)}, nil
}

// trimStatusCode removes the leading three-digit code from a status line
// such as "200 OK" without formatting the code.
func trimStatusCode(status string, code int) string {
	if len(status) >= 3 && code >= 100 && code <= 999 &&
		int(status[0]-'0') == code/100 && int(status[1]-'0') == code/10%10 && int(status[2]-'0') == code%10 {
		return status[3:]
	}
	return strings.TrimPrefix(status, strconv.Itoa(code))
}

// readAll reads up to max+1 bytes, in one allocation when the length is
// known.
func readAll(r io.Reader, length, max int64) ([]byte, error) {
	if length < 0 || length > max {
		return io.ReadAll(io.LimitReader(r, max+1))
	}
	buf := make([]byte, length, length+1)
	n, err := io.ReadFull(r, buf)
	if err != nil {
		return buf[:n], err
	}
	// Confirm the end, so the connection can be reused, and catch a
	// server that sends more than it announced.
	var one [1]byte
	if m, err := r.Read(one[:]); m > 0 || (err != nil && err != io.EOF) {
		if m > 0 {
			rest, err := io.ReadAll(io.LimitReader(r, max-length))
			return append(append(buf, one[0]), rest...), err
		}
		return buf, err
	}
	return buf, nil
}

// classify turns a transport failure of a call into an *Error with a
// stable code and a message saying what to do.
func (s *Session) classify(ctx context.Context, serviceID, host string, lim limits, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	code, what := transportFailure(ctx, lim, err)
	advice := map[string]string{
		CodeReadTimeout:       "check the service, or pass a larger readTimeout in TIMEOUTS (the configured maximum applies)",
		CodeConnectTimeout:    "check that the service is reachable from here, or pass a larger connectionTimeout in TIMEOUTS",
		CodeCanceled:          "the script was stopped",
		CodeDNS:               fmt.Sprintf("check the url configured for serviceId %q", serviceID),
		CodeConnectionRefused: fmt.Sprintf("is the service running? check the url configured for serviceId %q", serviceID),
		CodeTLS:               "check the service's certificate and that the url's scheme is right",
		CodeConnectFailed:     fmt.Sprintf("check the url configured for serviceId %q and the network", serviceID),
		CodeTransferFailed:    "the service closed the connection; try again or check the service",
	}[code]
	return &Error{Code: code, ServiceID: serviceID, Err: err,
		Message: fmt.Sprintf("%s (%s) %s: %s", serviceID, host, what, advice)}
}

// transportFailure names a transport error by code and says what happened,
// as a phrase that follows the name of the other end.
func transportFailure(ctx context.Context, lim limits, err error) (code, what string) {
	var ct *connectTimeoutError
	var rt *readTimeoutError
	var dns *net.DNSError
	switch {
	case errors.As(err, &rt):
		return CodeReadTimeout, fmt.Sprintf("sent no data for %d ms (read timeout)", lim.read.Milliseconds())
	case errors.As(err, &ct):
		return CodeConnectTimeout, fmt.Sprintf("could not be connected to within %d ms (connection timeout)", lim.connect.Milliseconds())
	case ctx.Err() != nil:
		return CodeCanceled, fmt.Sprintf("was not heard to the end: the call was canceled (%v)", context.Cause(ctx))
	case errors.As(err, &dns):
		return CodeDNS, "has a host name that cannot be resolved"
	case errors.Is(err, errConnRefused()):
		return CodeConnectionRefused, "refused the connection"
	case isTLSError(err):
		return CodeTLS, fmt.Sprintf("failed the TLS handshake (%v)", rootCause(err))
	case isDialError(err):
		return CodeConnectFailed, fmt.Sprintf("could not be connected to (%v)", rootCause(err))
	}
	return CodeTransferFailed, fmt.Sprintf("broke off the exchange (%v)", rootCause(err))
}

// isTLSError reports a handshake or certificate failure, by type.
func isTLSError(err error) bool {
	var certErr *tls.CertificateVerificationError
	var alert tls.AlertError
	var rec tls.RecordHeaderError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	var op *net.OpError
	return errors.As(err, &certErr) || errors.As(err, &alert) || errors.As(err, &rec) ||
		errors.As(err, &unknownCA) || errors.As(err, &hostErr) || errors.As(err, &invalid) ||
		errors.As(err, &op) && (op.Op == "remote error" || op.Op == "local error")
}

func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// rootCause strips url.Error's "Get \"...\":" prefix, which repeats the URL.
func rootCause(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
