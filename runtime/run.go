package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"
	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/jsdepth"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
)

// DefaultTimeout bounds a script's run when Options.Timeout is zero.
const DefaultTimeout = 60 * time.Second

// CodeScriptTimeout is the error code of a script interrupted at its time
// limit; CodeCanceled of one whose run was canceled by the caller.
const (
	CodeScriptTimeout = "script-timeout"
	CodeCanceled      = "canceled"
)

// CodeScriptTooDeep is the error code of a script whose brackets nest
// beyond jsdepth.Max (or that jsdepth cannot judge): it is refused before
// it is parsed. CodeResultTooDeep is the code of a result, console
// argument or PAYLOAD nested beyond jsdepth.MaxValue. Both errors are
// named RangeError, as JavaScript engines name a stack overflow.
const (
	CodeScriptTooDeep = "script-too-deep"
	CodeResultTooDeep = "result-too-deep"
)

// Options describe one run.
type Options struct {
	// Source is the script text: a function body (top-level return).
	Source string
	// Filename names the script in positions and messages.
	Filename string
	// Kind is the script kind; it chose Registry.
	Kind config.Kind
	// Registry holds the services the script may call.
	Registry *config.Registry
	// Client sends the calls; nil makes a new one from MaxResponseBytes
	// and Mock. A long-lived caller (the language server) passes one so
	// connections and OAuth tokens are reused across runs.
	Client *restclient.Client
	// MaxResponseBytes, Mock and Trace are used only when Client is nil.
	MaxResponseBytes int64
	// AllowServices, when not nil, are the only serviceIds the script may
	// call (restclient.Options.AllowServices); used only when Client is nil.
	AllowServices []string
	Mock          *restclient.Mock
	// Trace records each call's timing phases and header blocks as sent
	// (restclient.Options.Trace): for output that shows them.
	Trace bool
	// Record, when set, keeps the answer of every call sent to the
	// network (with Mock: only the calls no fixture answers go there);
	// the caller writes the file with Record.Save after Run, whatever
	// the outcome.
	Record *restclient.Recorder
	// Live, with Mock, sends the calls no fixture answers to the network
	// instead of failing them (restls run --mock F --live), as Record
	// does.
	Live bool
	// Input is context.input as JSON; empty means {}.
	Input json.RawMessage
	// Timeout bounds the run; 0 means DefaultTimeout.
	Timeout time.Duration
	// EvalTimeout bounds one evaluation in a paused frame (a watch, a
	// breakpoint's condition, the debug console); 0 is 2 s. The run's
	// Timeout bounds it too.
	EvalTimeout time.Duration
	// Logger gets lifecycle and per-call debug lines; nil discards them.
	Logger *zap.Logger
	// MaxMemory, when positive, is how much the process may grow while the
	// script runs before it is stopped with CodeMemoryLimit (memory.go).
	// MemoryHardStop, if set, is called when memory reaches MaxMemory
	// before the interrupt took effect; restls run ends the process there.
	MaxMemory      int64
	MemoryHardStop func(msg string)
	// Observer, when set, watches the run as it happens (calls made and
	// answered, console lines, the result); nil costs nothing.
	Observer dryrun.Observer
	// Statements instruments the program so that Observer hears each
	// statement reached (statements.go); ignored without an Observer.
	Statements bool
	// Values keeps the value each variable was last given where the
	// script sets it (values.go): Result.Values. An editor's and the
	// designer's dry runs ask.
	Values bool
}

// Result is the outcome of a run (dryrun.Result): the object that
// `restls run --json` prints and a dry-run child writes to its parent.
type Result = dryrun.Result

// ScriptError is an uncaught error with its place in the script.
type ScriptError = dryrun.ScriptError

// SourceError is one error at a place in the script.
type SourceError = dryrun.SourceError

// MaxSyntaxErrors is how many syntax errors a SyntaxError lists; the
// parser's later errors mostly follow from the first ones.
const MaxSyntaxErrors = 10

// LogEntry is one console call.
type LogEntry = dryrun.LogEntry

// prefix turns the script into a function body, on its first line so line
// numbers match the file; columns on line 1 are corrected.
const prefix = "(function(){"

// Run executes a script. It never panics and never writes to stdout; the
// Result holds everything, already passed through the credential redactor.
func Run(ctx context.Context, opts Options) *Result {
	start := time.Now()
	log := opts.Logger
	if log == nil {
		log = zap.NewNop()
	}
	client := opts.Client
	if client == nil {
		client = restclient.New(restclient.Options{MaxResponseBytes: opts.MaxResponseBytes, Mock: opts.Mock,
			MockPassThrough: opts.Mock != nil && (opts.Record != nil || opts.Live), Logger: log, Trace: opts.Trace, AllowServices: opts.AllowServices})
	}
	if opts.Filename == "" {
		opts.Filename = "script.js"
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Kind == "" && opts.Registry != nil {
		opts.Kind = opts.Registry.Kind
	}
	res := &Result{Result: json.RawMessage("null"), Calls: []*restclient.Call{}, Logs: []LogEntry{}, Kind: opts.Kind}
	r := &runner{
		vm:      goja.New(),
		opts:    opts,
		session: client.Session(opts.Registry),
		res:     res,
		log:     log,
		thrown:  map[*goja.Object]string{},
	}
	if opts.Record != nil {
		r.session.Record(opts.Record)
	}
	func() {
		defer func() {
			// A bug here must not take a language server down with it.
			if p := recover(); p != nil {
				log.Error("script runtime panic", zap.Any("panic", p), zap.Stack("stack"))
				res.Error = &ScriptError{Name: "InternalError", Message: fmt.Sprintf("restls failed while running the script (%v); please report it", p)}
			}
		}()
		r.run(ctx)
	}()
	r.session.Close()
	if res.Error != nil {
		placeInSource(res.Error, opts.Source)
	}
	r.redact()
	res.Values = r.values(strings.TrimPrefix(opts.Source, "\uFEFF"))
	res.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	if cov, ok := opts.Observer.(dryrun.CoverageObserver); ok && r.counters != nil {
		cov.Covered(r.counters.report(strings.TrimPrefix(opts.Source, "\uFEFF")))
	}
	if opts.Observer != nil {
		opts.Observer.Done(res)
	}
	log.Debug("script run", zap.String("file", opts.Filename), zap.String("kind", string(opts.Kind)),
		zap.Int("calls", len(res.Calls)), zap.Bool("threw", res.Error != nil), zap.Float64("durationMs", res.DurationMs))
	return res
}

type runner struct {
	vm      *goja.Runtime
	opts    Options
	session *restclient.Session
	res     *Result
	log     *zap.Logger
	ctx     context.Context

	// thrown remembers which serviceId a thrown status object came from.
	thrown map[*goja.Object]string

	errorCtor     *goja.Object
	jsonParse     goja.Callable
	jsonStringify goja.Callable
	arrayIsArray  goja.Callable

	// json parses response bodies; see parseJSON.
	json jsonParser

	// stopped is why the run was stopped, set before its context is
	// canceled.
	stopped atomic.Pointer[interruptReason]
	// scopes are the names declared where each hook is, for a debugger
	// (statements.go); nil unless it asked.
	scopes map[file.Idx]*scope
	// What a debugger's exception breakpoints need (debugger.go), set
	// only for a dryrun.ExceptionObserver: the last statement reached,
	// the try blocks with a catch the run is in, the last value heard
	// thrown.
	exObs    dryrun.ExceptionObserver
	last     stopPlace
	lastIn   map[*scope]stopPlace // the last place reached in each function (a debugger's outer frames)
	starts   []int                // the script's line starts
	fns      []*scope             // the script's functions, once a frame asked
	tryDepth int
	reported goja.Value
	// counters are a coverage run's (branches.go); nil unless its
	// observer is a dryrun.CoverageObserver.
	counters *counters
	// valueSites and seen are the places a run with Values keeps values
	// for, and what each was last given (values.go).
	valueSites []valueSite
	seen       []seenValue

	// lastStatus and its script values, see statusValues.
	lastStatus           restclient.Status
	lastCode, lastReason goja.Value
}

type interruptReason struct {
	code, msg string
}

func (r *runner) run(parent context.Context) {
	src := strings.TrimPrefix(r.opts.Source, "\uFEFF")
	// goja's parser and compiler recurse once per nesting level, and a
	// goroutine stack overflow is fatal: nothing deeper than the budget
	// reaches them.
	if depth := jsdepth.Check(src, jsdepth.Max); !depth.OK() {
		r.res.Error = tooDeepError(src, depth)
		return
	}
	// The time limit covers parsing and compiling too: goja's compiler
	// is quadratic on some flat shapes (a 30,000-term constant sum takes
	// seconds) and cannot be interrupted, so it runs on its own goroutine
	// and the run gives up on it at the limit. An abandoned compile ends on
	// its own and holds no lock.
	deadline := time.Now().Add(r.opts.Timeout)
	type compiled struct {
		prg      *goja.Program
		parseErr error
		// endsEarly: the script's end cut an expression or statement
		// short, with every bracket closed (see endsEarly).
		endsEarly bool
		err       error
		panicked  any
		scopes    map[file.Idx]*scope // the debugger's locals by hook (statements.go)
		counters  *counters           // coverage's (branches.go)
		values    []valueSite         // Options.Values' (values.go)
	}
	done := make(chan compiled, 1)
	// A program compiled for an earlier run of the same text is run
	// again (programs.go); an instrumented one is shared only for
	// coverage, whose instrumentation is the same for every run
	// (branches.go), never for a debugger.
	instrumented := r.opts.Statements && r.opts.Observer != nil || r.opts.Values
	cover := coverRun(r.opts)
	var key programKey
	switch {
	case cover && !r.opts.Values:
		key = keyOf(coverKey+r.opts.Filename, src)
		if p := programs.entry(key); p != nil && p.cover != nil {
			done <- compiled{prg: p.prg, counters: &counters{hooks: p.cover.hooks, arms: p.cover.arms}}
		}
	case !instrumented:
		key = keyOf(r.opts.Filename, src)
		if prg := programs.get(key); prg != nil {
			done <- compiled{prg: prg}
		}
	}
	if len(done) == 0 {
		go func() {
			var c compiled
			defer func() {
				c.panicked = recover()
				done <- c
			}()
			// Parse first: the parser's errors carry positions, goja.Compile's
			// only a formatted message. Source maps are never loaded.
			text := prefix + src + "\n})"
			ast, err := parser.ParseFile(nil, r.opts.Filename, text, 0, parser.WithDisableSourceMaps)
			if err != nil {
				c.parseErr = err
				c.endsEarly = endsEarly(err, src)
				return
			}
			positionLoops(ast)
			if r.opts.Statements && r.opts.Observer != nil {
				_, eval := r.opts.Observer.(dryrun.StackObserver)
				var hooks []file.Idx
				hooks, c.scopes = instrumentStatements(ast, file.Idx(len(prefix)+1), text, eval)
				if cover {
					c.counters = &counters{hooks: hooks}
					for _, b := range instrumentCoverage(ast, file.Idx(len(prefix)+1), text, hooks) {
						c.counters.arms = append(c.counters.arms, b.arms)
					}
				}
			}
			if r.opts.Values {
				c.values = instrumentValues(ast, file.Idx(len(prefix)+1))
			}
			c.prg, c.err = goja.CompileAST(ast, false)
			switch {
			case c.err != nil:
			case cover && !r.opts.Values:
				programs.putCover(key, c.prg, len(text), &coverProgram{hooks: c.counters.hooks, arms: c.counters.arms})
			case !instrumented:
				programs.put(key, c.prg, len(text))
			}
		}()
	}
	wait := time.NewTimer(r.opts.Timeout)
	var c compiled
	select {
	case c = <-done:
		wait.Stop()
	case <-wait.C:
		r.res.Error = &ScriptError{Name: "TimeoutError", Code: CodeScriptTimeout,
			Message: fmt.Sprintf("compiling the script took longer than its time limit of %v: look for an expression with tens of thousands of operators, or raise --timeout", r.opts.Timeout)}
		return
	case <-parent.Done():
		wait.Stop()
		r.res.Error = &ScriptError{Name: "CanceledError", Code: CodeCanceled, Message: "the run was canceled"}
		return
	}
	if c.panicked != nil {
		panic(c.panicked) // to Run's recover, on this goroutine
	}
	if c.parseErr != nil {
		r.res.Error = syntaxError(c.parseErr, src, c.endsEarly)
		return
	}
	if c.err != nil {
		r.res.Error = syntaxError(c.err, src, false)
		return
	}
	prg := c.prg
	r.scopes = c.scopes
	if c.scopes != nil {
		r.lastIn = map[*scope]stopPlace{}
	}
	// Before any interrupt can arrive: an interrupt stops whatever the VM
	// runs next, and that must be the script.
	if err := r.install(); err != nil {
		r.res.Error = &ScriptError{Name: "InternalError", Message: err.Error()}
		return
	}
	if r.opts.Values {
		if err := r.installValueHook(c.values); err != nil {
			r.res.Error = &ScriptError{Name: "InternalError", Message: err.Error()}
			return
		}
	}
	var args []goja.Value // the wrapper's: a coverage run's counters
	if c.counters != nil {
		arr, err := r.newCounters(c.counters)
		if err != nil {
			r.res.Error = &ScriptError{Name: "InternalError", Message: err.Error()}
			return
		}
		r.counters, args = c.counters, []goja.Value{arr}
	}
	if r.opts.Statements && r.opts.Observer != nil {
		var err error
		if c.counters == nil {
			err = r.installStatementHook(src)
		} else { // a coverage run counts in place; a hook past its walk's bound does nothing
			err = r.vm.Set(statementHook, func(goja.FunctionCall) goja.Value { return goja.Undefined() })
		}
		if err != nil {
			r.res.Error = &ScriptError{Name: "InternalError", Message: err.Error()}
			return
		}
		if obs, ok := r.opts.Observer.(dryrun.ExceptionObserver); ok {
			if err := r.installExceptionHooks(src, obs); err != nil {
				r.res.Error = &ScriptError{Name: "InternalError", Message: err.Error()}
				return
			}
		}
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	r.ctx = ctx
	var once sync.Once
	stop := func(reason interruptReason) {
		once.Do(func() {
			r.stopped.Store(&reason)
			r.vm.Interrupt(reason)
			cancel()
		})
	}
	timer := time.AfterFunc(time.Until(deadline), func() {
		stop(interruptReason{CodeScriptTimeout, fmt.Sprintf("the script ran longer than its time limit of %v and was interrupted: look for a loop that never ends, or raise --timeout", r.opts.Timeout)})
	})
	defer timer.Stop()
	unwatch := context.AfterFunc(parent, func() {
		stop(interruptReason{CodeCanceled, "the run was canceled"})
	})
	defer unwatch()
	if r.opts.MaxMemory > 0 {
		defer watchMemory(r.opts.MaxMemory, func(msg string) { stop(interruptReason{CodeMemoryLimit, msg}) }, r.opts.MemoryHardStop)()
	}

	fnVal, err := r.vm.RunProgram(prg)
	if err != nil {
		r.res.Error = r.scriptError(err)
		return
	}
	fn, ok := goja.AssertFunction(fnVal)
	if !ok {
		r.res.Error = &ScriptError{Name: "InternalError", Message: "the script did not compile to a function"}
		return
	}
	v, err := fn(goja.Undefined(), args...)
	if err != nil {
		if ex, ok := err.(*goja.Exception); ok {
			r.uncaught(ex)
		}
		r.res.Error = r.scriptError(err)
		return
	}
	r.res.Result, r.res.Error = r.toJSON(v)
}

// tooDeepError describes a script refused by the nesting budget.
func tooDeepError(src string, d jsdepth.Result) *ScriptError {
	se := &ScriptError{Name: "RangeError", Code: CodeScriptTooDeep,
		Message: fmt.Sprintf("the script nests brackets or arrow functions more than %d deep and was not run: "+
			"split the expression into variables or build the value in a loop", jsdepth.Max)}
	switch d.Reason {
	case jsdepth.TooCostly:
		se.Message = "arrow functions without braces or labels nest so much that parsing the script would take too long; it was not run: " +
			"give the arrow functions block bodies ({ return ... }) or split the expression into variables"
	case jsdepth.Ambiguous:
		se.Message = "restls cannot tell whether the / here divides or starts a regular expression, and the two readings " +
			"disagree about the rest of the script; it was not run: put the expression before or after the / in parentheses"
	}
	before := src[:min(max(d.Offset, 0), len(src))]
	se.Line = strings.Count(before, "\n") + 1
	se.Column = utf8.RuneCountInString(before[strings.LastIndexByte(before, '\n')+1:]) + 1
	return se
}

// toJSON converts the returned value as JSON.stringify does; values it
// cannot encode become null with a warning in the logs. A value nested
// beyond jsdepth.MaxValue, or a conversion the time limit stops, fails the
// run instead: its output must stay one bounded JSON object.
func (r *runner) toJSON(v goja.Value) (json.RawMessage, *ScriptError) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return json.RawMessage("null"), nil
	}
	out, defined, err := r.marshal(v)
	switch {
	case errors.Is(err, errStopped):
		return json.RawMessage("null"), r.stoppedError()
	case errors.Is(err, errValueTooDeep):
		return json.RawMessage("null"), &ScriptError{Name: "RangeError", Code: CodeResultTooDeep,
			Message: fmt.Sprintf("the returned value nests more than %d levels deep and cannot be shown: return a flatter value", jsdepth.MaxValue)}
	case err != nil || !defined:
		msg := "the returned value cannot be shown as JSON"
		if err != nil {
			msg += ": " + err.Error()
		}
		r.res.Logs = append(r.res.Logs, LogEntry{Level: "warn", Message: msg + "; result shown as null", AfterCalls: len(r.res.Calls)})
		return json.RawMessage("null"), nil
	}
	return json.RawMessage(out), nil
}

// stoppedError is the error of a run stopped outside the script's own
// code (while converting a value).
func (r *runner) stoppedError() *ScriptError {
	reason := interruptReason{CodeScriptTimeout, "the script was interrupted"}
	if p := r.stopped.Load(); p != nil {
		reason = *p
	}
	return reason.scriptError()
}

// scriptError is the error a script sees when it is stopped for reason.
func (reason interruptReason) scriptError() *ScriptError {
	se := &ScriptError{Name: "TimeoutError", Code: reason.code, Message: reason.msg}
	switch reason.code {
	case CodeCanceled:
		se.Name = "CanceledError"
	case CodeMemoryLimit:
		se.Name = "MemoryLimitError"
	}
	return se
}

// tryJS runs f, turning a JS exception into an error.
func (r *runner) tryJS(f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			switch x := p.(type) {
			case *goja.Exception:
				err = errors.New(x.Value().String())
			case goja.Value:
				err = errors.New(x.String())
			case error:
				err = x
			default:
				panic(p)
			}
		}
	}()
	f()
	return nil
}

// Messages for an error the parser finds on the wrapper's closing line,
// past the script.
const (
	msgNotClosed = "Unexpected end of input: a block, bracket or string is not closed"
	msgEndsEarly = "Unexpected end of input: the script ends before its last expression or statement is complete"
)

// endsEarly reports whether err is the parser stopping at the wrapper's
// closing line because the script ended inside an expression or statement
// (return 1+, var x =) rather than inside a block, bracket, string or
// comment: then the script parses once an operand ends it. It parses a
// second time only for an error past the script.
func endsEarly(err error, src string) bool {
	var list parser.ErrorList
	if !errors.As(err, &list) || len(list) == 0 || list[0].Position.Line <= strings.Count(src, "\n")+1 {
		return false
	}
	_, err = parser.ParseFile(nil, "", prefix+src+"\n_;\n})", 0, parser.WithDisableSourceMaps)
	return err == nil
}

func syntaxError(err error, src string, endsEarly bool) *ScriptError {
	se := &ScriptError{Name: "SyntaxError", Message: err.Error()}
	var list parser.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		last := strings.Count(src, "\n") + 1 // the wrapper's "})" is on the line after
		for _, e := range list {
			line, col := fixPos(e.Position.Line, e.Position.Column)
			msg := e.Message
			if line > last {
				// Only an unclosed block or bracket reaches the wrapper's
				// closing line; what the parser says of our "})" means
				// nothing to the author. placeInSource moves it to the end
				// of the script.
				msg = msgNotClosed
				if endsEarly {
					msg = msgEndsEarly
				}
			}
			if n := len(se.Errors); n > 0 && (se.Errors[n-1].Line > last && line > last ||
				se.Errors[n-1].Line == line && se.Errors[n-1].Column == col && se.Errors[n-1].Message == msg) {
				continue // the parser repeats itself at the end of input
			}
			if len(se.Errors) == MaxSyntaxErrors {
				break
			}
			se.Errors = append(se.Errors, SourceError{Message: msg, Line: line, Column: col})
		}
		se.Message = se.Errors[0].Message
		se.Line, se.Column = se.Errors[0].Line, se.Errors[0].Column
		return se
	}
	var ce *goja.CompilerSyntaxError
	if errors.As(err, &ce) {
		se.Message = ce.Message
		if ce.File != nil {
			p := ce.File.Position(ce.Offset)
			se.Line, se.Column = fixPos(p.Line, p.Column)
		}
	}
	return se
}

// placeInSource fills the source lines of an error's positions. A place
// past the end of the script (an unclosed block is found on the wrapper's
// closing line) moves to the end of the file.
func placeInSource(e *ScriptError, src string) {
	lines := strings.Split(strings.TrimPrefix(src, "\uFEFF"), "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\r")
	}
	end := len(lines) // the last line with text, where "the end" is shown
	for end > 1 && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	place := func(line, col *int) string {
		if *line <= 0 {
			return ""
		}
		if *line > len(lines) {
			*line, *col = end, utf8.RuneCountInString(lines[end-1])+1
		}
		return lines[*line-1]
	}
	e.SourceLine = place(&e.Line, &e.Column)
	for i := range e.Errors {
		x := &e.Errors[i]
		x.SourceLine = place(&x.Line, &x.Column)
	}
}

// fixPos undoes the shift the function prefix causes on line 1.
func fixPos(line, col int) (int, int) {
	if line == 1 {
		col -= len(prefix)
		if col < 1 {
			col = 1
		}
	}
	return line, col
}

// position finds the innermost frame of the script in a stack (a byte
// column).
func (r *runner) position(stack []goja.StackFrame) (int, int) {
	for _, f := range stack {
		p := f.Position()
		if p.Filename == r.opts.Filename && p.Line > 0 {
			return fixPos(p.Line, p.Column)
		}
	}
	return 0, 0
}

// errorPlace is where an uncaught error is shown: its innermost frame in
// the script, as a line and a column in characters (as restls check
// counts them); an error about the serviceId (code) is placed at the
// call's first argument, where check places its diagnostic.
func (r *runner) errorPlace(stack []goja.StackFrame, code string) (int, int) {
	line, col := r.position(stack)
	if line == 0 {
		return 0, 0
	}
	src := strings.TrimPrefix(r.opts.Source, "\uFEFF")
	if aboutServiceID(code) {
		line, col = firstArgument(src, line, col)
	}
	return line, charColumn(src, line, col)
}

func (r *runner) scriptError(err error) *ScriptError {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		reason, ok := ie.Value().(interruptReason)
		if !ok {
			reason = interruptReason{CodeScriptTimeout, "the script was interrupted"}
		}
		se := reason.scriptError()
		se.Line, se.Column = r.errorPlace(ie.Stack(), se.Code)
		return se
	}
	var ex *goja.Exception
	if !errors.As(err, &ex) {
		return &ScriptError{Name: "Error", Message: err.Error()}
	}
	if p := r.stopped.Load(); p != nil {
		// The run was stopped while the script waited in a call: the
		// call failed (canceled) and its error reached the top before
		// the interrupt did. What the user must see is why it stopped,
		// where the script was: the call.
		se := p.scriptError()
		thrown := r.describeThrown(ex.Value())
		if thrown.ServiceID != "" && p.code == CodeScriptTimeout {
			se.Message = fmt.Sprintf("the script ran longer than its time limit of %v and was interrupted while its call to %s waited for an answer: "+
				"lower the call's TIMEOUTS, or raise --timeout", r.opts.Timeout, thrown.ServiceID)
		}
		se.Line, se.Column = r.errorPlace(ex.Stack(), se.Code)
		return se
	}
	se := r.describeThrown(ex.Value())
	se.Line, se.Column = r.errorPlace(ex.Stack(), se.Code)
	return se
}

// describeThrown turns a thrown value into a ScriptError.
func (r *runner) describeThrown(v goja.Value) *ScriptError {
	obj, ok := v.(*goja.Object)
	if !ok || v == nil {
		s := "undefined"
		if v != nil {
			s = v.String()
		}
		return &ScriptError{Name: "Error", Message: "uncaught " + s}
	}
	if r.vm.InstanceOf(obj, r.errorCtor) {
		se := &ScriptError{Name: str(obj.Get("name")), Message: str(obj.Get("message"))}
		if se.Name == "" {
			se.Name = "Error"
		}
		if c := obj.Get("code"); c != nil && !goja.IsUndefined(c) {
			se.Code = c.String()
		}
		if s := obj.Get("serviceId"); s != nil && !goja.IsUndefined(s) {
			se.ServiceID = s.String()
		}
		return se
	}
	if st, ok := obj.Get("status").(*goja.Object); ok {
		if code := st.Get("code"); code != nil && !goja.IsUndefined(code) {
			status := &restclient.Status{Code: int(code.ToInteger()), Message: str(st.Get("message"))}
			body := str(obj.Get("body"))
			who := r.thrown[obj]
			if who == "" {
				who = "the service"
			}
			msg := fmt.Sprintf("%s answered %d %s and the script did not catch it (docs/api.md#errors: test e.status && e.status.code)", who, status.Code, status.Message)
			if status.Code == 401 {
				if hint := r.referenceAuthHint(r.thrown[obj]); hint != "" {
					msg += "; " + hint
				}
			}
			return &ScriptError{Name: "ResponseError", ServiceID: r.thrown[obj], Status: status, Body: &body, Message: msg}
		}
	}
	msg, defined, err := r.marshal(obj)
	if err != nil || !defined {
		msg = r.shallowString(obj)
	}
	return &ScriptError{Name: "Error", Message: "uncaught " + msg}
}

// referenceAuthHint is the hint of the last call of serviceId id when
// it carries one (restclient.EventReferenceAuth: a live 401 of a service
// that did not inherit its base's credentials), else "".
func (r *runner) referenceAuthHint(id string) string {
	for i := len(r.res.Calls) - 1; i >= 0; i-- {
		c := r.res.Calls[i]
		if c.ServiceID != id {
			continue
		}
		for _, e := range c.Events {
			if e.Kind == restclient.EventReferenceAuth {
				return e.Message
			}
		}
		return ""
	}
	return ""
}

func str(v goja.Value) string {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return ""
	}
	return v.String()
}

// redact passes every text of the result through the session's redactor.
func (r *runner) redact() {
	red := r.session.Redactor()
	res := r.res
	res.Result = redactJSON(red, res.Result)
	if e := res.Error; e != nil {
		e.Message = red.String(e.Message)
		e.SourceLine = red.String(e.SourceLine)
		for i := range e.Errors {
			e.Errors[i].SourceLine = red.String(e.Errors[i].SourceLine)
		}
		if e.Body != nil {
			b := red.String(*e.Body)
			e.Body = &b
		}
	}
	for i := range res.Logs {
		res.Logs[i].Message = red.String(res.Logs[i].Message)
	}
}

func redactJSON(red *restclient.Redactor, raw json.RawMessage) json.RawMessage {
	s := red.String(string(raw))
	if s == string(raw) {
		return raw
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}
