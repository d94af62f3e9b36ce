package web

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"gopkg.in/natefinch/lumberjack.v2"

	"github.com/restls/restls/input"
)

// AuditRecord is one line of the audit trail (--audit): who ran or
// reloaded what, where, how and with what outcome. It never holds a
// credential, a token, a cookie or a body: the script is named and
// hashed, each call is its serviceId, method, masked URL, status or error
// code and duration (docs/http.md, "Audit trail").
type AuditRecord struct {
	Time string `json:"time"`
	// Event is run or reload.
	Event string `json:"event"`
	User  string `json:"user"`
	Role  string `json:"role"`
	// Auth is the mode that identified the user (key, oidc, proxy), or
	// stdio / signal for a run or reload from outside HTTP.
	Auth   string `json:"auth"`
	Remote string `json:"remote,omitempty"`
	// ForwardedFor is the proxy's X-Forwarded-For with --auth proxy.
	ForwardedFor string `json:"forwardedFor,omitempty"`
	Script       string `json:"script,omitempty"`
	// Via names the door of a run other than the designer's and the
	// editor's: mcp for the MCP server's tools on /mcp, dap for the
	// designer's debugger (/dap), a refused launch included.
	Via    string `json:"via,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
	Kind   string `json:"kind,omitempty"`
	// Environment is the project file's environment the server serves.
	Environment string `json:"environment,omitempty"`
	// Mode is live or mock.
	Mode  string      `json:"mode,omitempty"`
	Calls []AuditCall `json:"calls,omitempty"`
	// Outcome: returned, threw, refused, busy, canceled, failed; for a
	// reload, reloaded or refused.
	Outcome string `json:"outcome"`
	// Code is the error code: the script's (unknown-service,
	// service-not-allowed...), or why the gate refused it (role,
	// runs-disabled, environment-not-allowed).
	Code       string  `json:"code,omitempty"`
	DurationMs float64 `json:"durationMs"`
	// CallsOmitted counts the calls past the first auditCallsMax, which
	// are not listed.
	CallsOmitted int `json:"callsOmitted,omitempty"`
	// Dropped, on an event "limited" record, counts the refused attempts
	// of its user that were not written (more than refusedPerWindow in
	// refusedWindow); Since is when the first of them was.
	Dropped int    `json:"dropped,omitempty"`
	Since   string `json:"since,omitempty"`
}

// AuditCall is one call of an audited run.
type AuditCall struct {
	ServiceID  string  `json:"serviceId"`
	Method     string  `json:"method"`
	URL        string  `json:"url"`
	Status     int     `json:"status,omitempty"`
	Code       string  `json:"code,omitempty"`
	DurationMs float64 `json:"durationMs"`
}

func (r *AuditRecord) identity(id Identity, known bool) {
	if !known {
		r.User, r.Role, r.Auth = "stdio", "", "stdio"
		return
	}
	r.User, r.Auth, r.Remote, r.ForwardedFor = id.User, string(id.Auth), id.Remote, id.ForwardedFor
	r.Role = id.Role.String()
	if r.Auth == "" {
		r.Auth = string(AuthKey)
	}
}

// Bounds of the audit trail: no field, record or user can make it grow
// faster than these allow, so a user cannot rotate other users' records
// out of --audit-max-backups (docs/http.md, "Audit trail").
const (
	// auditFieldMax bytes of a text field (a URL: auditURLMax), after
	// escaping; what is cut is counted in the field.
	auditFieldMax = 256
	auditURLMax   = 1024
	// auditCallsMax calls of a run are listed; CallsOmitted counts the
	// rest.
	auditCallsMax = 100
	// refusedPerWindow refused runs and reloads of one user are written
	// per refusedWindow; the rest are counted, and their count written
	// as an event "limited" record when the window ends.
	refusedPerWindow = 20
	refusedWindow    = time.Minute
	// refusalUsersMax users are counted apart; past that, refusals of
	// users not counted yet share one count (user "(others)").
	refusalUsersMax = 10000
	// sweepEvery is how often a full table of users may be swept.
	sweepEvery = refusedWindow / 6
)

// Audit writes audit records, one JSON object a line.
type Audit struct {
	mu sync.Mutex
	w  io.Writer
	c  io.Closer

	// refusals count each user's refused attempts in their window.
	refusals map[string]*refusalCount
	// sweeps counts the sweeps of a full refusals table, the last at
	// sweptAt.
	sweeps  int
	sweptAt time.Time
	closed  bool
	now     func() time.Time
}

// refusalCount is one user's refused attempts in the window that began
// at start.
type refusalCount struct {
	start   time.Time
	n       int
	dropped int
	since   time.Time // the first dropped
	rec     AuditRecord
	timer   *time.Timer
}

// AuditOptions say where the audit goes.
type AuditOptions struct {
	// File is the audit file; "-" means Stderr.
	File   string
	Stderr io.Writer
	// MaxSizeMB is the size at which the file is rotated (default 100);
	// MaxBackups how many rotated files are kept (default 10).
	MaxSizeMB, MaxBackups int
}

// OpenAudit opens the audit trail. A file is appended to and rotated by
// size (lumberjack, created with mode 0600, rotated files beside it with
// a timestamp in their names).
func OpenAudit(o AuditOptions) (*Audit, error) {
	if o.File == "" {
		return nil, fmt.Errorf("--audit: name a file, or - for stderr")
	}
	if o.File == "-" {
		return &Audit{w: o.Stderr}, nil
	}
	if o.MaxSizeMB <= 0 {
		o.MaxSizeMB = 100
	}
	if o.MaxBackups <= 0 {
		o.MaxBackups = 10
	}
	lj := &lumberjack.Logger{Filename: o.File, MaxSize: o.MaxSizeMB, MaxBackups: o.MaxBackups}
	// Open now, so a path that cannot be written stops serve at start
	// rather than lose the first records.
	if _, err := lj.Write(nil); err != nil {
		return nil, fmt.Errorf("--audit %s: %w", o.File, err)
	}
	return &Audit{w: lj, c: lj}, nil
}

// Close writes the counts of refused attempts not written yet, and
// closes the file.
func (a *Audit) Close() error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	for _, c := range a.refusals {
		if c.timer != nil {
			c.timer.Stop()
		}
		a.flushLocked(c)
	}
	a.closed = true
	a.mu.Unlock()
	if a.c == nil {
		return nil
	}
	return a.c.Close()
}

// write writes r with every field bounded and escaped; a refusal past
// its user's rate is counted instead.
func (a *Audit) write(r AuditRecord) {
	r.bound()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return
	}
	if r.Outcome == "refused" && !a.admitRefusalLocked(r) {
		return
	}
	a.writeLocked(r)
}

func (a *Audit) writeLocked(r AuditRecord) {
	b, err := json.Marshal(r)
	if err != nil {
		return
	}
	_, _ = a.w.Write(append(b, '\n'))
}

func (a *Audit) clock() time.Time {
	if a.now != nil {
		return a.now()
	}
	return time.Now()
}

// admitRefusalLocked counts the refused attempt r in its user's window
// and reports whether it is written.
func (a *Audit) admitRefusalLocked(r AuditRecord) bool {
	now := a.clock()
	if a.refusals == nil {
		a.refusals = map[string]*refusalCount{}
	}
	key := r.Auth + "\x00" + r.User
	c := a.refusals[key]
	if c == nil {
		// A full table is swept of ended windows at most once per
		// sweepEvery: sweeping at every new user would cost each refused
		// request a walk of refusalUsersMax entries under the lock.
		if len(a.refusals) >= refusalUsersMax && (a.sweeps == 0 || now.Sub(a.sweptAt) >= sweepEvery) {
			a.sweeps++
			a.sweptAt = now
			for k, old := range a.refusals {
				if old.dropped == 0 && now.Sub(old.start) >= refusedWindow {
					delete(a.refusals, k)
				}
			}
		}
		if len(a.refusals) >= refusalUsersMax {
			key = "\x00(others)"
			r.User, r.Auth, r.Role, r.Remote, r.ForwardedFor = "(others)", "", "", "", ""
			c = a.refusals[key]
		}
		if c == nil {
			c = &refusalCount{start: now}
			a.refusals[key] = c
		}
	}
	if now.Sub(c.start) >= refusedWindow {
		a.flushLocked(c)
		c.start, c.n = now, 0
	}
	if c.n < refusedPerWindow {
		c.n++
		return true
	}
	if c.dropped == 0 {
		c.since = now
		c.rec = AuditRecord{User: r.User, Role: r.Role, Auth: r.Auth, Remote: r.Remote, ForwardedFor: r.ForwardedFor}
		// The count is written when the window ends, even when the user
		// tries nothing more.
		c.timer = time.AfterFunc(c.start.Add(refusedWindow).Sub(now), func() {
			a.mu.Lock()
			defer a.mu.Unlock()
			if !a.closed && a.refusals[key] == c {
				a.flushLocked(c)
			}
		})
	}
	c.dropped++
	return false
}

// flushLocked writes c's count of refused attempts not written, if any.
func (a *Audit) flushLocked(c *refusalCount) {
	if c.dropped == 0 {
		return
	}
	rec := c.rec
	rec.Time = a.clock().UTC().Format(time.RFC3339Nano)
	rec.Event, rec.Outcome, rec.Code = "limited", "limited", "refusals-limited"
	rec.Dropped, rec.Since = c.dropped, c.since.UTC().Format(time.RFC3339Nano)
	a.writeLocked(rec)
	c.dropped, c.rec = 0, AuditRecord{}
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
}

// bound escapes every text field of r as text output escapes it
// (input.Printable: control, bidirectional and separator characters
// become \u escapes) and cuts it to its bound, and lists at most
// auditCallsMax calls.
func (r *AuditRecord) bound() {
	for _, f := range []*string{&r.Time, &r.Event, &r.User, &r.Role, &r.Auth, &r.Remote, &r.ForwardedFor, &r.Script,
		&r.SHA256, &r.Kind, &r.Environment, &r.Mode, &r.Outcome, &r.Code, &r.Since} {
		*f = auditText(*f, auditFieldMax)
	}
	if len(r.Calls) > auditCallsMax {
		r.CallsOmitted += len(r.Calls) - auditCallsMax
		r.Calls = r.Calls[:auditCallsMax:auditCallsMax]
	}
	for i := range r.Calls {
		c := &r.Calls[i]
		c.ServiceID, c.Method, c.Code = auditText(c.ServiceID, auditFieldMax), auditText(c.Method, auditFieldMax), auditText(c.Code, auditFieldMax)
		c.URL = auditText(c.URL, auditURLMax)
	}
}

// auditText is s escaped (input.Printable) and cut to at most limit bytes
// plus a note of how many bytes of s were cut; an escape is never split.
func auditText(s string, limit int) string {
	if len(s) <= limit {
		if out := input.Printable(s); len(out) <= limit {
			return out
		}
	}
	var b strings.Builder
	i := 0
	for i < len(s) {
		_, n := utf8.DecodeRuneInString(s[i:])
		e := input.Printable(s[i : i+n])
		if b.Len()+len(e) > limit {
			break
		}
		b.WriteString(e)
		i += n
	}
	return fmt.Sprintf("%s...(%d bytes more)", b.String(), len(s)-i)
}

// reloadAudit is the hook that audits a session's restls.reload commands
// (lsp runs them; the stream sees them arrive): one line each, reloaded
// or refused by the session's options. Nil without an audit.
//
// It also decides whether a reload comes after the session's sign-in
// expired, into expired (nil: it has not), which the session's
// ReloadRefused reads: one decision, audited and obeyed. Nil without an
// audit or an expiry.
func (s *Server) reloadAudit(id Identity, may bool, expired *atomic.Pointer[RefusedError]) func(jsonrpc2.Message) {
	a := s.gate.opts.Audit
	if a == nil && id.Expires.IsZero() {
		return nil
	}
	return func(msg jsonrpc2.Message) {
		call, ok := msg.(*jsonrpc2.Call)
		if !ok || call.Method() != "workspace/executeCommand" {
			return
		}
		var p struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(call.Params(), &p) != nil || p.Command != commandReload {
			return
		}
		now := time.Now()
		ref := id.expired(now, "the configuration was not reloaded")
		expired.Store(ref)
		if a == nil {
			return
		}
		rec := AuditRecord{Time: now.UTC().Format(time.RFC3339Nano), Event: "reload", Environment: s.gate.opts.Environment, Outcome: "reloaded"}
		rec.identity(id, true)
		switch {
		case !may:
			rec.Outcome, rec.Code = "refused", refusedRole
		case ref != nil:
			rec.Outcome, rec.Code = "refused", refusedExpired
		}
		a.write(rec)
	}
}

// auditSignalReload records a reload an operator asked for with SIGHUP.
func (s *Server) auditSignalReload() {
	if a := s.gate.opts.Audit; a != nil {
		a.write(AuditRecord{Time: time.Now().UTC().Format(time.RFC3339Nano), Event: "reload", User: "operator", Auth: "signal",
			Environment: s.gate.opts.Environment, Outcome: "reloaded"})
	}
}
