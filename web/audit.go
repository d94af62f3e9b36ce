package web

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"gopkg.in/natefinch/lumberjack.v2"

	"github.com/restls/restls/lsp"
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
	SHA256       string `json:"sha256,omitempty"`
	Kind         string `json:"kind,omitempty"`
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

// Audit writes audit records, one JSON object a line.
type Audit struct {
	mu sync.Mutex
	w  io.Writer
	c  io.Closer
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

// Close closes the file.
func (a *Audit) Close() error {
	if a == nil || a.c == nil {
		return nil
	}
	return a.c.Close()
}

func (a *Audit) write(r AuditRecord) {
	b, err := json.Marshal(r)
	if err != nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	_, _ = a.w.Write(append(b, '\n'))
}

// reloadAudit is the hook that audits a session's restls.reload commands
// (lsp runs them; the stream sees them arrive): one line each, reloaded
// or refused by the session's options. Nil without an audit.
func (s *Server) reloadAudit(id Identity, may bool) func(jsonrpc2.Message) {
	a := s.gate.opts.Audit
	if a == nil {
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
		if json.Unmarshal(call.Params(), &p) != nil || p.Command != lsp.CommandReload {
			return
		}
		rec := AuditRecord{Time: time.Now().UTC().Format(time.RFC3339Nano), Event: "reload", Environment: s.gate.opts.Environment, Outcome: "reloaded"}
		rec.identity(id, true)
		if !may {
			rec.Outcome, rec.Code = "refused", refusedRole
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
