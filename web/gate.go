package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// GateOptions configure a Gate.
type GateOptions struct {
	// AllowRun turns dry runs on (--allow-run). Off, every run is refused
	// with ReasonNoAllowRun, whoever asks: over HTTP a dry run executes
	// code for a client and reaches the configured services.
	AllowRun bool
	// Environment is the project file's environment this server serves
	// (--env), which a runner's environments must include; "" for none.
	Environment string
	// Audit receives one line per run; nil writes none.
	Audit *Audit
	// Ops counts runs by role and mode; nil counts none.
	Ops *Ops
}

// Gate decides whether a dry run may go, and audits and counts it. Make
// it before the language server, wrap the one runner with it (Wrap) for
// the language server, and give it to New with the runner unwrapped: New
// wraps that for POST /v1/run, so both paths pass the same gate once.
type Gate struct {
	opts GateOptions

	// Runs in flight, for a stop that lets them finish (drain): n counts
	// them, idle is closed when n falls to zero while draining, and
	// draining refuses new ones. stopped ends the runs still going when
	// the grace period is over.
	mu       sync.Mutex
	n        int
	idle     chan struct{}
	draining bool
	stopped  context.Context
	stop     context.CancelFunc
}

// NewGate returns a Gate.
func NewGate(o GateOptions) *Gate {
	g := &Gate{opts: o}
	g.stopped, g.stop = context.WithCancel(context.Background())
	return g
}

// enter counts a run in, unless the gate is draining.
func (g *Gate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.draining {
		return false
	}
	g.n++
	return true
}

func (g *Gate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n--
	if g.n == 0 && g.idle != nil {
		close(g.idle)
		g.idle = nil
	}
}

// drain refuses new runs and waits up to grace for those in flight;
// false when some still go. Then Halt ends them.
func (g *Gate) drain(grace time.Duration) bool {
	g.mu.Lock()
	g.draining = true
	if g.n == 0 {
		g.mu.Unlock()
		return true
	}
	if g.idle == nil {
		g.idle = make(chan struct{})
	}
	idle := g.idle
	g.mu.Unlock()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-idle:
		return true
	case <-t.C:
		return false
	}
}

// halt stops the runs still going; each answers ErrStopped.
func (g *Gate) halt() { g.stop() }

// ErrStopped is the error of a run the server stopped because its
// shutdown grace period was over.
var ErrStopped = errors.New("the server stopped before the run finished (its shutdown grace period, --shutdown-grace, was over): run it again; the designer reconnects to a server that is up")

// reasonStopping is what a run asked for while the server stops hears.
const reasonStopping = "restls is stopping (a restart, or this replica leaving): run again in a few seconds; the designer reconnects to a server that is up"

// ReasonNoAllowRun is what a run hears when dry runs are off.
const ReasonNoAllowRun = "dry runs are disabled on this server: start restls serve --http with --allow-run"

// RefusedError is a run the gate refused: its reason says why and what
// to do (the role it needs, the flag that turns runs on).
type RefusedError struct {
	// Code is runs-disabled, role, environment-not-allowed, token-expired
	// or stopping.
	Code   string
	Reason string
}

func (e *RefusedError) Error() string { return e.Reason }

// Codes of RefusedError.
const (
	refusedDisabled    = "runs-disabled"
	refusedRole        = "role"
	refusedEnvironment = "environment-not-allowed"
	refusedStopping    = "stopping"
	refusedExpired     = "token-expired"
)

// modeOf is how req's calls are answered as the gate judges them: mock
// when fixtures (a file, a document, parsed ones: a test case's, the
// fault explorer's; or none at all: every call answered no-fixture)
// answer them and nothing reaches a service, live otherwise (recording,
// and fixtures with live calls for the rest, are live).
func modeOf(req engine.Request) string {
	f := req.Fixtures
	if f.Record == "" && !f.Live && (f.File != "" || f.Inline != nil || f.Parsed != nil || f.None) {
		return dryrun.ModeMock
	}
	return dryrun.ModeLive
}

// admit decides whether id may run req against snap, and returns req
// with the role's service limits (Request.AllowServices).
func (g *Gate) admit(id Identity, known bool, snap workspace.Snapshot, req engine.Request) (engine.Request, error) {
	if !g.opts.AllowRun {
		return req, &RefusedError{Code: refusedDisabled, Reason: ReasonNoAllowRun}
	}
	if !known {
		return req, nil // the editor on stdio: its user started the server
	}
	if ref := id.expired(time.Now(), "nothing ran"); ref != nil {
		return req, ref
	}
	mode := modeOf(req)
	if id.Auth == AuthKey || id.Auth == "" {
		if !id.key {
			return req, &RefusedError{Code: refusedRole, Reason: keyMissing}
		}
		return req, nil
	}
	need := RoleRunner
	if mode == dryrun.ModeMock {
		need = RoleMocker
	}
	if id.Role < need {
		return req, &RefusedError{Code: refusedRole, Reason: needsRole(id)}
	}
	if mode != dryrun.ModeLive {
		return req, nil
	}
	if env := g.environmentOf(snap); len(id.Environments) > 0 && !slices.Contains(id.Environments, env) {
		if env == "" {
			env = "no named environment"
		}
		return req, &RefusedError{Code: refusedEnvironment, Reason: fmt.Sprintf("%s's role runner allows live runs in %s only, and this run uses %s: run with fixtures, or pick one of those environments",
			id.User, strings.Join(id.Environments, ", "), env)}
	}
	if len(id.Services) > 0 {
		req.AllowServices = slices.Clone(id.Services)
	}
	return req, nil
}

// environmentOf is the environment a run against snap runs in: the
// snapshot's, else the server's.
func (g *Gate) environmentOf(snap workspace.Snapshot) string {
	if snap.Environment != "" {
		return snap.Environment
	}
	return g.opts.Environment
}

// needsRole says which role a run id may not make needs: mocker for one
// who may not run at all, runner for a mocker's live run.
func needsRole(id Identity) string {
	if id.Role >= RoleMocker {
		return fmt.Sprintf("this dry run calls the services live, which needs the role runner; %s has the role %s: run it with fixtures (mocks), or ask the operator for the role runner", id.User, id.Role)
	}
	return fmt.Sprintf("dry runs need the role mocker (with fixtures) or runner; %s has the role %s: ask the operator of restls serve --http for one", id.User, id.Role)
}

// Wrap returns runner behind the gate: a run it refuses returns a
// *RefusedError and never reaches runner; every run, refused or not, is
// audited and counted by role and mode.
func (g *Gate) Wrap(runner Runner) Runner {
	if runner == nil {
		return nil
	}
	return func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
		start := time.Now()
		id, known := IdentityFrom(ctx)
		req, err := g.admit(id, known, snap, req)
		var res *dryrun.Result
		if err == nil {
			res, err = g.run(ctx, runner, snap, req)
		}
		via, _ := ctx.Value(viaKey{}).(string)
		g.account(ctx, start, id, known, snap, req, res, err, via)
		showPaths(snap, res)
		return res, err
	}
}

// showPaths shows the configuration files res's errors name (a call to
// a service the configuration leaves unusable names the entry's file and
// line) as web clients see every configuration path, relative to the
// configuration root: a web client never learns where the server keeps
// its files. The audit (account) has them as they are.
func showPaths(snap workspace.Snapshot, res *dryrun.Result) {
	if res == nil || snap.Config == nil {
		return
	}
	show := pathDisplay(snap.Config)
	if e := res.Error; e != nil {
		e.Message = show.Text(e.Message)
	}
	for _, c := range res.Calls {
		c.ErrorMessage = show.Text(c.ErrorMessage)
	}
}

// Vet is the gate's decision on a run asked for but not made yet (the
// designer debugger's launch, which says why at once): a refusal is
// counted and audited as Wrap does a refused run, with via; an admitted
// request (returned as the gate admits it: a runner limited to some
// services) is audited by its caller when it ends.
func (g *Gate) Vet(id Identity, snap workspace.Snapshot, req engine.Request, via string) (engine.Request, error) {
	start := time.Now()
	req, err := g.admit(id, true, snap, req)
	if err != nil {
		g.account(context.Background(), start, id, true, snap, req, nil, err, via)
	}
	return req, err
}

// account counts a run by role, mode and outcome (runOutcome of ctx, the
// run's context, res and err) and writes its audit line.
func (g *Gate) account(ctx context.Context, start time.Time, id Identity, known bool, snap workspace.Snapshot, req engine.Request, res *dryrun.Result, err error, via string) {
	outcome := runOutcome(ctx, res, err)
	role := "stdio"
	if known {
		role = id.Role.String()
		if id.Auth == AuthKey || id.Auth == "" {
			role = "key"
		}
	}
	mode := modeOf(req)
	g.opts.Ops.dryRunBy(role, mode, outcome)
	if g.opts.Audit != nil {
		rec := g.runRecord(start, id, known, snap, req, mode, res, err, outcome)
		rec.Via = via
		g.opts.Audit.write(rec)
	}
}

// run runs req unless the gate is draining, and stops it when halted.
func (g *Gate) run(ctx context.Context, runner Runner, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
	if !g.enter() {
		return nil, &RefusedError{Code: refusedStopping, Reason: reasonStopping}
	}
	defer g.leave()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(g.stopped, cancel)()
	res, err := runner(ctx, snap, req)
	if err != nil && g.stopped.Err() != nil {
		return nil, ErrStopped
	}
	return res, err
}

// runOutcome is a run's outcome, as the metrics and the audit name it:
// the one place that decides it, for every run the gate accounts (POST
// /v1/run, restls.runScript, a designer debug session from its child's
// report) and the dry-run counter. ctx is the run's; any res and err
// have an outcome (a run with neither a result nor an error failed).
func runOutcome(ctx context.Context, res *dryrun.Result, err error) string {
	var ref *RefusedError
	switch {
	case errors.As(err, &ref):
		return "refused"
	case err == nil && res == nil:
		return "failed"
	case err == nil && res.Threw():
		return "threw"
	case err == nil:
		return "returned"
	case errors.Is(err, workspace.ErrRunnerBusy):
		return "busy"
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		return "canceled"
	}
	return "failed"
}

func (g *Gate) runRecord(start time.Time, id Identity, known bool, snap workspace.Snapshot, req engine.Request, mode string, res *dryrun.Result, err error, outcome string) AuditRecord {
	sum := sha256.Sum256([]byte(req.Text))
	kind := req.Kind // the one the user named; else the one the engine decided
	if res != nil && res.Kind != "" {
		kind = res.Kind
	}
	rec := AuditRecord{Time: start.UTC().Format(time.RFC3339Nano), Event: "run", Script: scriptName(req), SHA256: hex.EncodeToString(sum[:]),
		Kind: string(kind), Environment: g.environmentOf(snap), Mode: mode, Outcome: outcome,
		DurationMs: float64(time.Since(start).Microseconds()) / 1000}
	rec.identity(id, known)
	var ref *RefusedError
	switch {
	case errors.As(err, &ref):
		rec.Code = ref.Code
	case err != nil:
		rec.Code = "run-failed"
	case res != nil && res.Error != nil:
		rec.Code = res.Error.Code
	}
	if res != nil {
		for _, c := range res.Calls {
			ac := AuditCall{ServiceID: c.ServiceID, Method: c.Method, URL: maskURL(c.URL), Code: c.ErrorCode, DurationMs: c.DurationMs}
			if c.Status != nil {
				ac.Status = c.Status.Code
			}
			rec.Calls = append(rec.Calls, ac)
		}
	}
	return rec
}

// scriptName is the script's name as the audit gives it: the file's
// name, never its directory (a path on a user's machine says nothing
// the hash does not).
func scriptName(req engine.Request) string {
	name := req.Path
	if name == "" {
		name = req.Name
	}
	if i := strings.LastIndexAny(name, `/\:`); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// maskURL is a call's URL with its user information and query values
// hidden: the preview has masked the configuration's secrets already,
// and the audit keeps only what says which endpoint was called.
func maskURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(not a URL)"
	}
	user := u.User != nil
	u.User = nil
	if u.RawQuery != "" {
		q := u.Query()
		keys := make([]string, 0, len(q))
		for k := range q {
			keys = append(keys, url.QueryEscape(k)+"=****")
		}
		sort.Strings(keys)
		u.RawQuery = strings.Join(keys, "&")
	}
	u.Fragment = ""
	out := u.String()
	if user {
		out = strings.Replace(out, "://", "://****@", 1)
	}
	return out
}
