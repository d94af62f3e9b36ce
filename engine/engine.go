package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/restls/restls/config"
	scriptrt "github.com/restls/restls/runtime"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/dryrun/history"
	"github.com/restls/restls/runtime/isolate"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/workspace"
)

// Isolation is where a run's script executes.
type Isolation int

const (
	// Child runs each script in a child process of the restls binary
	// (runtime/isolate): a script that exhausts memory or crashes the
	// runtime ends the child, never the caller. Every server and restls
	// run use it.
	Child Isolation = iota
	// InProcess runs the script in this process, bounded by the memory
	// watchdog and the time limit only: restls test, whose cases are
	// many and short, and tests.
	InProcess
)

// Limits bound one run; a zero field is the engine's default (Options),
// and the engine's zero is the runtime's default.
type Limits struct {
	// Timeout is the script's time limit (runtime.DefaultTimeout).
	Timeout time.Duration
	// MaxMemory is how much the run may grow its process
	// (runtime.DefaultMaxMemory).
	MaxMemory int64
	// MaxResponseBytes bounds each call's response body after
	// decompression (restclient.DefaultMaxResponseBytes).
	MaxResponseBytes int64
	// Eval bounds one evaluation in a paused frame of a debug run
	// (runtime.Options.EvalTimeout; 0 is the runtime's 2 s).
	Eval time.Duration
}

func (l Limits) or(d Limits) Limits {
	if l.Timeout <= 0 {
		l.Timeout = d.Timeout
	}
	if l.MaxMemory <= 0 {
		l.MaxMemory = d.MaxMemory
	}
	if l.MaxResponseBytes <= 0 {
		l.MaxResponseBytes = d.MaxResponseBytes
	}
	if l.Eval <= 0 {
		l.Eval = d.Eval
	}
	return l
}

// Options configure an Engine.
type Options struct {
	Isolation Isolation
	// Executable is the restls binary a Child run starts; empty is
	// os.Executable().
	Executable string
	// MaxRuns is how many runs may go at once, the one admission limit
	// of the process; 0 is isolate.DefaultMaxRuns. A run past it is
	// refused at once with ErrBusy.
	MaxRuns int
	// Limits are every run's, where its request leaves them at 0.
	Limits Limits
	// History keeps the runs whose request asks for it (Request.Keep)
	// and names no store of its own; nil keeps none.
	History history.Store
	// Logger gets a line per run; nil discards.
	Logger *zap.Logger
	// Sweep: a Child engine of a server removes the run directories
	// killed servers left behind (isolate.Options.Sweep).
	Sweep bool
	// LogLevel is the log level of a run whose request names none: a
	// server's own (--log-level), which its debug sessions' children
	// get too; "" is warn.
	LogLevel string
}

// Engine runs dry runs: every surface (the editor's restls.runScript,
// POST /v1/run, restls run, restls test, the MCP run tool) asks it.
type Engine struct {
	opts   Options
	log    *zap.Logger
	slots  chan struct{}
	runner *isolate.Runner // Child only
	// answers check the runs whose snapshot no Session made (restls
	// test's cases, a test's own snapshot): the same check
	// (workspace.Snapshot.CheckAnswers), the engine's store.
	answers *workspace.Descriptions
	attach  workspace.Attachments
}

// New returns an Engine. With Child isolation it makes the child runner
// (which, with Sweep, removes the run directories a killed server left
// behind).
func New(o Options) *Engine {
	if o.MaxRuns <= 0 {
		o.MaxRuns = isolate.DefaultMaxRuns
	}
	o.Limits = o.Limits.or(Limits{Timeout: scriptrt.DefaultTimeout, MaxMemory: scriptrt.DefaultMaxMemory, MaxResponseBytes: restclient.DefaultMaxResponseBytes})
	log := o.Logger
	if log == nil {
		log = zap.NewNop()
	}
	e := &Engine{opts: o, log: log, slots: make(chan struct{}, o.MaxRuns), answers: workspace.NewAnswerDescriptions(log.Named("answers"), 0)}
	if o.Isolation == Child {
		e.runner = isolate.New(isolate.Options{Executable: o.Executable, MaxMemory: o.Limits.MaxMemory, Timeout: o.Limits.Timeout,
			MaxRuns: o.MaxRuns, Logger: log.Named("isolate"), Sweep: o.Sweep})
	}
	return e
}

// ErrBusy is Run's error when MaxRuns runs are going: the caller says to
// try again shortly (HTTP 429, RequestFailed). It wraps
// workspace.ErrRunnerBusy.
var ErrBusy = fmt.Errorf("%w: %w", workspace.ErrRunnerBusy, isolate.ErrBusy)

// Slot is one of the engine's MaxRuns admissions, taken before a request
// is read (Admit) so that a refusal costs nothing: POST /v1/run answers
// 429 before it decodes its body.
type Slot struct {
	e        *Engine
	released bool
}

// Admit takes a slot without waiting; false when every slot is taken.
// Give it to the run in Request.Slot and Release it after.
func (e *Engine) Admit() (*Slot, bool) {
	select {
	case e.slots <- struct{}{}:
		return &Slot{e: e}, true
	default:
		return nil, false
	}
}

// Release gives the slot back; a second call does nothing.
func (s *Slot) Release() {
	if s != nil && !s.released {
		s.released = true
		<-s.e.slots
	}
}

// Run runs req against snap and returns its result. It decides, once
// each: the kind (req.Kind, else the kind rule on snap's kind map), the
// registry of that kind, the fixtures (FixturesError when they do not
// load), the isolation, the answer checks (notes on each call, against
// snap's API descriptions) and whether the run is kept in the history.
// The error is ErrBusy, a *FixturesError, isolate.ErrRemoteRegistry,
// ctx's error when ctx ended first, or a failure to start the run; a
// script that throws is a result with an error, never an error here.
func (e *Engine) Run(ctx context.Context, snap workspace.Snapshot, req Request) (*dryrun.Result, error) {
	slot := req.Slot
	if slot == nil {
		var ok bool
		if slot, ok = e.Admit(); !ok {
			return nil, ErrBusy
		}
		defer slot.Release()
	}
	p, err := e.plan(snap, req)
	if err != nil {
		return nil, err
	}
	if se := refused(req.Text, snap.EngineLevel); se != nil {
		// Beyond the platform's engine level: the script is not run, on
		// any door, with the editor's diagnostic as its error.
		res := &dryrun.Result{Error: se, Kind: p.kind, Mode: p.iso.Mode(), Calls: []*restclient.Call{}, Logs: []dryrun.LogEntry{}}
		if req.Observer != nil {
			req.Observer.Done(res)
		}
		e.log.Debug("dry run refused by the engine profile", zap.String("script", p.name), zap.String("level", snap.EngineLevel.String()))
		return res, nil
	}
	if req.Progress != nil {
		req.Progress("running " + p.name)
	}
	start := time.Now()
	out, err := e.execute(ctx, p)
	if err != nil {
		return nil, err
	}
	res := out.Result
	res.DurationMs = out.DurationMs
	if res.Kind == "" {
		res.Kind = p.kind // a result made without the run (memory-limit)
	}
	if out.RecordError != "" && req.Notice != nil {
		req.Notice(out.RecordError)
	}
	if req.Fixtures.Record != "" && req.Recorded != nil {
		var err error
		if out.RecordError != "" {
			err = errors.New(out.RecordError)
		}
		req.Recorded(err)
	}
	if f := req.Fixtures.RecordText; f != nil {
		res.Mode = dryrun.ModeRecord
		f(recordText(p.reg, res))
	}
	// The one answer check, against the snapshot's descriptions and the
	// store of the session it came from, else the engine's.
	if !snap.ChecksAnswers() {
		snap = snap.WithAnswers(e.answers, &e.attach)
	}
	snap.CheckAnswers(ctx, p.reg, res.Calls, req.Notice)
	e.keep(req, p, res)
	e.log.Debug("dry run", zap.String("script", p.name), zap.String("kind", string(p.kind)), zap.String("mode", res.Mode),
		zap.Int("calls", len(res.Calls)), zap.Duration("duration", time.Since(start)))
	return res, nil
}

// plan is one request with everything decided.
type plan struct {
	name string
	kind config.Kind
	reg  *config.Registry
	iso  isolate.Request
}

// Kind is the kind a run of req against snap has, and why: the kind req
// names, else snap's kind rule for its script (config.KindMap.DecideNamed).
// Run decides with it, once per request; a surface that says beforehand
// what a run will do (the designer's plan) asks it too.
func Kind(snap workspace.Snapshot, req Request) config.KindDecision {
	file := req.Path
	if file == "" {
		file = req.Name
	}
	return snap.Kinds.DecideNamed(req.Kind, filepath.ToSlash(file), req.Text)
}

func (e *Engine) plan(snap workspace.Snapshot, req Request) (*plan, error) {
	p := &plan{name: req.shownName(), kind: Kind(snap, req).Kind}
	var src config.Sources
	if snap.Config != nil {
		src = snap.Config.Sources
		p.reg = snap.Config.For(p.kind)
		if src.RegistryURL == "" && (p.reg == nil || !p.reg.Loaded) {
			return nil, &ConfigError{Kind: p.kind, Registry: p.reg}
		}
	}
	if req.Decided != nil {
		req.Decided(p.kind, p.reg)
	}
	lim := req.Limits.or(e.opts.Limits)
	p.iso = isolate.Request{Text: req.Text, Kind: p.kind, Input: req.Input, Sources: src, Registry: p.reg,
		AllowServices: req.AllowServices, Script: p.name, Trace: req.Trace, LogLevel: cmp.Or(req.LogLevel, e.opts.LogLevel),
		Timeout: lim.Timeout, MaxMemory: lim.MaxMemory, MaxResponseBytes: lim.MaxResponseBytes, EvalTimeout: lim.Eval,
		Observer: req.Observer, Statements: req.Statements, Values: req.Values, Stderr: req.Stderr, Interrupt: req.Interrupt}
	if err := e.fixtures(req, &p.iso); err != nil {
		return nil, err
	}
	return p, nil
}

// ConfigError is a run with no configuration to run against: no
// configuration file of the script's kind was found or read. Nothing
// ran. Registry, when not nil, has the diagnostics that say why.
type ConfigError struct {
	Kind     config.Kind
	Registry *config.Registry
}

func (e *ConfigError) Error() string { return config.NoConfiguration }

// FixturesError is a run whose fixtures cannot be used: a fixtures
// document or file that does not parse (its message names the file as
// shown and the line), a record file that cannot be written. Nothing
// ran. Every surface answers it as a mistake in its request: restls run
// exit 2, restls.runScript InvalidParams, POST /v1/run 400, a failing
// restls test case.
type FixturesError struct {
	// Record: the record file is at fault, else the fixtures that answer.
	Record bool
	Err    error
}

func (e *FixturesError) Error() string { return e.Err.Error() }
func (e *FixturesError) Unwrap() error { return e.Err }

// fixtures decides how req's calls are answered, into iso: the fixtures
// are read and parsed here, once, and travel as text (parsed ones as
// restclient.Mock's JSON).
func (e *Engine) fixtures(req Request, iso *isolate.Request) error {
	f := req.Fixtures
	show := req.show
	file := f.File
	if f.Beside && file == "" && req.Path != "" {
		file = workspace.MockFileBeside(req.Path)
	}
	switch {
	case f.Parsed != nil:
		iso.Parsed = f.Parsed
	case f.Inline != nil:
		name := f.Name
		if name == "" {
			name = restclient.PastedMocks
		}
		if _, err := restclient.ParseMock(name, f.Inline); err != nil {
			return &FixturesError{Err: err}
		}
		iso.Mock, iso.MockName = f.Inline, name
	case file != "":
		name := f.Name
		if name == "" {
			name = show(file)
		}
		if _, err := restclient.LoadMockAs(file, name); err != nil {
			return &FixturesError{Err: err}
		}
		iso.MockFile, iso.MockName = file, name
	case f.None:
		iso.NoFixtures, iso.MockName = true, f.Name
	}
	iso.MockAdvice = f.Advice
	iso.Live = f.Live
	if f.Record != "" {
		if _, err := restclient.NewRecorder(restclient.RecordOptions{File: f.Record, Headers: f.RecordHeaders}); err != nil {
			return &FixturesError{Record: true, Err: err}
		}
		iso.RecordFile, iso.RecordHeaders = f.Record, f.RecordHeaders
	}
	return nil
}

func (e *Engine) execute(ctx context.Context, p *plan) (*isolate.ChildResult, error) {
	if e.opts.Isolation == Child {
		return e.runner.RunChild(isolate.WithSlot(ctx), p.iso)
	}
	creq, err := p.iso.Child(isolate.Limits{})
	if err != nil {
		return nil, err
	}
	out := isolate.InProcess(ctx, creq, p.reg, p.iso.Stderr, e.log.Named("run"), p.iso.Observer)
	if p.iso.Observer != nil {
		p.iso.Observer.Done(out.Result)
	}
	return out, nil
}

// recordText is the fixtures document of res's answers, written by the
// recorder from the masked trace (restclient.TraceFixtures).
func recordText(reg *config.Registry, res *dryrun.Result) ([]byte, []string, error) {
	return restclient.TraceFixtures(res.Calls, func(id string) (string, bool) {
		svc, ok := reg.Service(id)
		if !ok {
			return "", false
		}
		return svc.URL, true
	})
}

// keep adds res to the history when req asks.
func (e *Engine) keep(req Request, p *plan, res *dryrun.Result) {
	k := req.Keep
	if k == nil {
		return
	}
	store := k.Store
	if store == nil {
		store = e.opts.History
	}
	if store == nil {
		return
	}
	key := k.Key
	if key == "" {
		key = req.Path
	}
	if err := store.Add(history.NewEntry(key, k.Source, res).WithInput(req.Input)); err != nil {
		e.log.Info("run not kept in the history", zap.String("script", p.name), zap.Error(err))
	}
}
