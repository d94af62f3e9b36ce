package restclient

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/restls/restls/input"
)

// TraceBodyLimit is how much of a request or response body a Call keeps.
const TraceBodyLimit = 64 << 10

// Event kinds in a Call's trace.
const (
	EventToken   = "token"
	EventTimeout = "timeout"
	EventAuth    = "auth"
	EventHeader  = "header"
	EventRetry   = "retry"
	EventMock    = "mock"
	// EventReferenceAuth: a live 401 from an <id>/<suffix> service that
	// has no authorization while the service it refers to has one
	// (config.ReferenceDropsAuth says so, as the registry's
	// service-reference-no-auth does).
	EventReferenceAuth = "reference-auth"
	// EventBudget: the answer took at least BudgetShare of the read
	// timeout in force (budget.go).
	EventBudget = "timeout-budget"
)

// Event is something worth showing about a call besides the exchange
// itself: a token fetched, a timeout clamped, a header replaced.
type Event struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// Status is an HTTP status code and its reason phrase.
type Status struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Headers is an ordered list of header fields that marshals to a JSON
// object (repeated names joined with ", ").
type Headers []HeaderField

// MarshalJSON writes the fields as one object in their order.
func (h Headers) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	seen := make(map[string]int, len(h))
	merged := make([]HeaderField, 0, len(h))
	for _, f := range h {
		if i, ok := seen[f.Name]; ok {
			merged[i].Value += ", " + f.Value
			continue
		}
		seen[f.Name] = len(merged)
		merged = append(merged, f)
	}
	for i, f := range merged {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.Name)
		v, _ := json.Marshal(f.Value)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Call is the trace of one api.rest.v1 call, as a dry run shows it. Every
// text in it has been through the session's Redactor; the Authorization
// header shows only its scheme.
type Call struct {
	ServiceID      string          `json:"serviceId"`
	Method         string          `json:"method"`
	URL            string          `json:"url"`
	RequestHeaders Headers         `json:"requestHeaders"`
	RequestBody    json.RawMessage `json:"requestBody,omitempty"`
	Status         *Status         `json:"status"`
	// ResponseHeaders have lower-case names, sorted, repeated ones joined.
	ResponseHeaders Headers `json:"responseHeaders"`
	// ResponseBody is the JSON body, or a string holding the text (cut at
	// TraceBodyLimit) when it is not JSON or too long.
	ResponseBody json.RawMessage `json:"responseBody"`
	// BodyTruncated reports that ResponseBody was cut.
	BodyTruncated bool    `json:"responseBodyTruncated,omitempty"`
	DurationMs    float64 `json:"durationMs"`
	// Timing breaks down the last exchange of the call (a 401 retry is a
	// second exchange); nil when no request was sent.
	Timing *Timing `json:"timing,omitempty"`
	// ResponseBytes is the size of the response body after decompression
	// (what the script receives), 0 when there was no response.
	ResponseBytes int64 `json:"responseBytes"`
	// Wire holds the header blocks as sent and received (masked); nil for
	// a mock answer or when no request was sent. It is built when the Call
	// is marshalled; read it with WireBlocks.
	Wire *Wire `json:"wire,omitempty"`
	// Curl is a POSIX shell command that sends the same request, with
	// credentials as shell variables; empty when no request was sent. It
	// is built when the Call is marshalled; read it with CurlCommand.
	Curl         string  `json:"curl,omitempty"`
	ErrorCode    string  `json:"errorCode,omitempty"`
	ErrorMessage string  `json:"errorMessage,omitempty"`
	Events       []Event `json:"events"`
	// Contract lists how the answer breaks the service's API description
	// (restls run with a description attached); it never fails the run.
	Contract []ContractNote `json:"contract,omitempty"`

	// status and timing are where Status and Timing point once the
	// service answered: the Call, its Status and its Timing in one
	// allocation.
	status Status
	timing Timing
	// Curl and Wire are built only when asked for (most runs are never
	// shown): these hold what they are built from.
	curl *curlRequest
	wire *probe
	// readTimeout is the call's read timeout in force (budget.go).
	readTimeout time.Duration
}

// ContractNote is one way a call's answer breaks its operation in the
// service's API description: an undocumented status, or a body value that
// breaks the answer's schema.
type ContractNote struct {
	// Operation is the matched operation: "GET /orders/{id}".
	Operation string `json:"operation"`
	// Path is the JSON pointer of the value in the body, "" for the
	// status or the whole body.
	Path string `json:"path"`
	// Rule is "status" or the schema keyword broken (type, enum,
	// required ...).
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// CurlCommand returns Curl, building it from the request as sent.
func (c *Call) CurlCommand() string {
	if c.Curl != "" || c.curl == nil {
		return c.Curl
	}
	s, _ := c.curl.command()
	return s
}

// WireBlocks returns Wire, building it from the exchange's trace.
func (c *Call) WireBlocks() *Wire {
	if c.Wire != nil || c.wire == nil {
		return c.Wire
	}
	return c.wire.blocks()
}

// MarshalJSON writes the Call with its Curl and Wire built.
func (c *Call) MarshalJSON() ([]byte, error) {
	type plain Call
	p := (*plain)(c)
	if c.curl != nil || c.wire != nil {
		cp := *p
		cp.Curl, cp.Wire = c.CurlCommand(), c.WireBlocks()
		p = &cp
	}
	return input.TextJSON(p) // the bodies' own bytes, not HTML-escaped
}

func (c *Call) event(kind, msg string) {
	c.Events = append(c.Events, Event{Kind: kind, Message: msg})
}

// ResponseHeaderList returns h as lower-case names, sorted, repeated values
// joined with ", ": the form scripts see.
func ResponseHeaderList(h http.Header) Headers {
	out := make(Headers, 0, len(h))
	for k, vs := range h {
		name, ok := lowerNames[k]
		if !ok {
			name = strings.ToLower(k)
		}
		out = append(out, HeaderField{Name: name, Value: strings.Join(vs, ", ")})
	}
	slices.SortFunc(out, func(a, b HeaderField) int { return strings.Compare(a.Name, b.Name) })
	// Two spellings of one name (only possible with a non-canonical map)
	// are merged by MarshalJSON and by the script binding.
	return out
}

// lowerNames spares an allocation per header for the common ones.
var lowerNames = func() map[string]string {
	m := map[string]string{}
	for _, n := range []string{"Content-Type", "Content-Length", "Date", "Server", "Cache-Control", "Etag", "Last-Modified",
		"Location", "Vary", "Connection", "Keep-Alive", "Transfer-Encoding", "Content-Encoding", "Expires", "Pragma",
		"Set-Cookie", "Access-Control-Allow-Origin", "X-Request-Id", "X-Total-Count", "Www-Authenticate", "Retry-After"} {
		m[n] = strings.ToLower(n)
	}
	return m
}()

// sensitiveHeader reports whether a header's value is masked in traces
// whatever it holds. It is the one rule: the editors and the designer show
// headers as the server masked them and keep no list of their own.
func sensitiveHeader(name string) bool {
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			return sensitiveHeaderSlow(name)
		}
	}
	// ASCII (every valid header name): compare without lowering a copy.
	for _, s := range [...]string{"authorization", "proxy-authorization", "cookie", "set-cookie"} {
		if len(name) == len(s) && asciiEqualFold(name, s) {
			return true
		}
	}
	for _, s := range [...]string{"token", "secret", "password", "passwd", "api-key", "apikey"} {
		for i := 0; i+len(s) <= len(name); i++ {
			if asciiEqualFold(name[i:i+len(s)], s) {
				return true
			}
		}
	}
	return false
}

// asciiEqualFold reports whether a equals the lower-case ASCII b, ignoring
// the case of a.
func asciiEqualFold(a, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := a[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func sensitiveHeaderSlow(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "authorization", "proxy-authorization", "cookie", "set-cookie":
		return true
	}
	return strings.Contains(n, "token") || strings.Contains(n, "secret") || strings.Contains(n, "password") ||
		strings.Contains(n, "passwd") || strings.Contains(n, "api-key") || strings.Contains(n, "apikey")
}

// maskHeader keeps the scheme of an Authorization value and hides the rest.
func maskHeader(name, value string) string {
	if !sensitiveHeader(name) || value == "" {
		return value
	}
	if scheme, _, ok := strings.Cut(value, " "); ok && strings.HasPrefix(strings.ToLower(name), "authorization") {
		return scheme + " ***"
	}
	return "***"
}

// traceBody turns a body into a Call field: JSON as it is when short
// enough, otherwise a JSON string of the (cut) text.
func traceBody(body []byte, red *Redactor) (json.RawMessage, bool) {
	return traceBodyValid(body, json.Valid(body), red)
}

// traceBodyValid is traceBody when the caller knows whether body is JSON.
func traceBodyValid(body []byte, valid bool, red *Redactor) (json.RawMessage, bool) {
	if len(body) == 0 {
		return nil, false
	}
	if valid && len(body) <= TraceBodyLimit && !red.active() {
		return json.RawMessage(body), false
	}
	cut := false
	if len(body) > TraceBodyLimit {
		body = body[:TraceBodyLimit]
		cut = true
	}
	text := red.String(string(body))
	if !cut && json.Valid([]byte(text)) {
		return json.RawMessage(text), false
	}
	s, _ := json.Marshal(strings.ToValidUTF8(text, "\uFFFD"))
	return s, cut
}

// MinSecretLen is the shortest credential the Redactor hides; shorter ones
// would blank out ordinary words.
const MinSecretLen = 4

// Redactor replaces every known credential, in the forms it may take in
// output (raw, decoded from base64, JSON- and URL-escaped), by "***".
// It is safe for concurrent use.
type Redactor struct {
	mu      sync.Mutex
	secrets map[string]bool
	r       *strings.Replacer
	n       atomic.Int32 // len(secrets), read without the lock
}

// NewRedactor returns an empty Redactor.
func NewRedactor() *Redactor { return &Redactor{secrets: map[string]bool{}} }

// Add registers a credential.
func (r *Redactor) Add(secret string) {
	if r == nil || len(secret) < MinSecretLen {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	before := len(r.secrets)
	r.addForms(secret)
	if len(r.secrets) != before {
		r.r = nil
		r.n.Store(int32(len(r.secrets)))
	}
}

// AddBasic registers base64 "login:password" credentials and their decoded
// forms (the whole pair and the password).
func (r *Redactor) AddBasic(encoded string) {
	r.Add(encoded)
	dec, err := base64.StdEncoding.DecodeString(strings.TrimSpace(encoded))
	if err != nil {
		return
	}
	r.Add(string(dec))
	if _, pw, ok := strings.Cut(string(dec), ":"); ok {
		r.Add(pw)
	}
}

func (r *Redactor) addForms(s string) {
	r.secrets[s] = true
	j, _ := json.Marshal(s)
	r.secrets[string(j[1:len(j)-1])] = true
	// Encoders may escape <, > and & differently.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	if t := strings.TrimSpace(b.String()); len(t) >= 2 {
		r.secrets[t[1:len(t)-1]] = true
	}
	r.secrets[url.QueryEscape(s)] = true
	r.secrets[url.PathEscape(s)] = true
	r.secrets[escapeQuery(s)] = true
}

func (r *Redactor) replacer() *strings.Replacer {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.r == nil {
		list := make([]string, 0, len(r.secrets))
		for s := range r.secrets {
			list = append(list, s)
		}
		// Longest first, so a secret that contains another is hidden whole.
		sort.Slice(list, func(i, j int) bool {
			if len(list[i]) != len(list[j]) {
				return len(list[i]) > len(list[j])
			}
			return list[i] < list[j]
		})
		pairs := make([]string, 0, 2*len(list))
		for _, s := range list {
			pairs = append(pairs, s, "***")
		}
		r.r = strings.NewReplacer(pairs...)
	}
	return r.r
}

// String returns s with every credential replaced by "***".
func (r *Redactor) String(s string) string {
	if s == "" || !r.active() {
		return s
	}
	return r.replacer().Replace(s)
}

// active reports whether any credential is registered.
func (r *Redactor) active() bool {
	return r != nil && r.n.Load() > 0
}

// Timing is when the phases of one exchange ended, in milliseconds from
// their start, as net/http/httptrace reports them. A phase that did not
// happen (a reused connection has no DNS, connect or TLS; an IP address
// no DNS; plain http no TLS; a mock answer only a total) is absent.
type Timing struct {
	DNSMs     float64 `json:"dnsMs,omitempty"`
	ConnectMs float64 `json:"connectMs,omitempty"`
	TLSMs     float64 `json:"tlsMs,omitempty"`
	// TTFBMs is from sending the request (before any connection was
	// made) to the first byte of the response.
	TTFBMs float64 `json:"ttfbMs,omitempty"`
	// TotalMs is from sending the request to the end of the body.
	TotalMs float64 `json:"totalMs"`
	// Reused reports that the exchange used a pooled connection.
	Reused bool `json:"reused,omitempty"`
}

// Wire is the header blocks of one exchange as they went over the wire:
// the request line and every header field the HTTP client wrote, the
// status line and the response header fields (canonical names, sorted).
// Credentials are masked as in RequestHeaders.
type Wire struct {
	Request  []string `json:"request"`
	Response []string `json:"response"`
}

// probe collects the httptrace events of one exchange, and what its
// Wire blocks are built from.
type probe struct {
	mu                                    sync.Mutex
	start, dnsStart, dns, connStart, conn time.Time
	got, first                            time.Time
	reused                                bool
	wrote                                 []wroteField
	wroteBuf                              [12]wroteField
	// Set when the answer came: the request line and the response.
	method, uri string
	resp        *http.Response
	red         *Redactor
	// encoding is the Content-Encoding received, which is removed from
	// the response once the body is decompressed.
	encoding string
}

type wroteField struct {
	name   string
	values []string
}

// newProbe returns a probe for an exchange starting now.
func newProbe() *probe {
	p := &probe{start: time.Now()}
	p.wrote = p.wroteBuf[:0]
	return p
}

// The probe's hooks. A dial the request did not wait for may report after
// the exchange ended, from its own goroutine: every hook takes the lock.

func (p *probe) at(t *time.Time) {
	p.mu.Lock()
	*t = time.Now()
	p.mu.Unlock()
}

func (p *probe) gotConn(i httptrace.GotConnInfo) {
	p.mu.Lock()
	p.got, p.reused = time.Now(), i.Reused
	p.mu.Unlock()
}

func (p *probe) gotFirstResponseByte() { p.at(&p.first) }

func (p *probe) wroteHeaderField(k string, vs []string) {
	p.mu.Lock()
	p.wrote = append(p.wrote, wroteField{k, vs})
	p.mu.Unlock()
}

// requestHooks sets in t the hooks every exchange fires. The DNS and
// connect hooks are set by the dialer, on the dial's context only
// (dialTrace): given to the request, they would make net/http build a
// second trace for the net package on every call, connection reused or
// not.
func (p *probe) requestHooks(t *httptrace.ClientTrace) {
	t.GotConn = p.gotConn
	t.GotFirstResponseByte = p.gotFirstResponseByte
	t.WroteHeaderField = p.wroteHeaderField
}

// dialTrace is the trace of a dial made for the probe's exchange.
func (p *probe) dialTrace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		DNSStart:     func(httptrace.DNSStartInfo) { p.at(&p.dnsStart) },
		DNSDone:      func(httptrace.DNSDoneInfo) { p.at(&p.dns) },
		ConnectStart: func(string, string) { p.at(&p.connStart) },
		ConnectDone: func(_, _ string, err error) {
			if err == nil {
				p.at(&p.conn)
			}
		},
	}
}

// probeKey finds the probe of the exchange a dial is made for, in the
// dial's context (readGuard.Value answers it).
type probeKey struct{}

// withDialTrace adds the DNS and connect hooks of the exchange the dial
// is for, if it has a probe, to the dial's context.
func withDialTrace(ctx context.Context) context.Context {
	if p, ok := ctx.Value(probeKey{}).(*probe); ok && p != nil {
		return httptrace.WithClientTrace(ctx, p.dialTrace())
	}
	return ctx
}

func msBetween(a, b time.Time) float64 {
	if a.IsZero() || b.IsZero() || b.Before(a) {
		return 0
	}
	return float64(b.Sub(a).Microseconds()) / 1000
}

// timing fills in t with the phases and returns it; tls says whether the
// connection was made with TLS. Our dialer does the handshake itself,
// right after the TCP connect and before the transport gets the
// connection, so the TLS phase is connect done to got connection.
func (p *probe) timing(t *Timing, end time.Time, tls bool) *Timing {
	p.mu.Lock()
	defer p.mu.Unlock()
	*t = Timing{TotalMs: msBetween(p.start, end)}
	if p.got.IsZero() {
		return t // answered without a connection (a Mock)
	}
	t.TTFBMs, t.Reused = msBetween(p.start, p.first), p.reused
	if !p.reused {
		t.DNSMs = msBetween(p.dnsStart, p.dns)
		t.ConnectMs = msBetween(p.connStart, p.conn)
		if tls {
			t.TLSMs = msBetween(p.conn, p.got)
		}
	}
	return t
}

// answered keeps what the Wire blocks of the exchange are built from, and
// reports whether the exchange went over a connection (a Mock answers
// without one: no hook fires).
func (p *probe) answered(req *http.Request, hr *http.Response, red *Redactor) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.got.IsZero() {
		return false
	}
	p.method, p.uri, p.resp, p.red = req.Method, req.URL.RequestURI(), hr, red
	p.encoding = hr.Header.Get("Content-Encoding")
	if hr.Uncompressed {
		// net/http asked for gzip itself, decompressed and removed the
		// header (and Content-Length, whose value is lost).
		p.encoding = "gzip"
	}
	return true
}

// blocks returns the masked header blocks of an exchange.
func (p *probe) blocks() *Wire {
	p.mu.Lock()
	defer p.mu.Unlock()
	hr, red := p.resp, p.red
	w := &Wire{Request: make([]string, 0, len(p.wrote)+1), Response: make([]string, 0, len(hr.Header)+1)}
	w.Request = append(w.Request, red.String(p.method+" "+p.uri+" HTTP/1.1"))
	for _, f := range p.wrote {
		for _, v := range f.values {
			w.Request = append(w.Request, f.name+": "+red.String(maskHeader(f.name, v)))
		}
	}
	w.Response = append(w.Response, hr.Proto+" "+hr.Status)
	header := hr.Header
	if p.encoding != "" && header.Get("Content-Encoding") == "" {
		header = header.Clone()
		header.Set("Content-Encoding", p.encoding)
	}
	names := make([]string, 0, len(header))
	for k := range header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range header[k] {
			w.Response = append(w.Response, k+": "+red.String(maskHeader(k, v)))
		}
	}
	return w
}
