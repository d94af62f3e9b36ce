package dryrun

import "github.com/restls/restls/runtime/restclient"

// Observer watches a run as it happens: the debugger, coverage and
// failure-path exploration plug in here (engine.Request.Observer). The
// runtime calls it on the run's goroutine, in order; a run in a child
// process streams the same events to its parent (runtime/isolate), which
// calls the observer there. Its methods must not block for long: the
// script waits. A run with no observer costs nothing for it.
type Observer interface {
	// CallMade is called when the script makes call number i (from 0),
	// before it is sent: method, serviceId and URL are known.
	CallMade(i int, c *restclient.Call)
	// CallAnswered is called when call i has its answer or its error.
	CallAnswered(i int, c *restclient.Call)
	// Log is called for each console line.
	Log(e LogEntry)
	// Statement is called when the script reaches a statement, at its
	// line and column (1-based, in the script's text), when the request
	// asked for statements (engine.Request.Statements): the program is
	// instrumented only then.
	Statement(line, column int)
	// Done is called once with the run's result.
	Done(r *Result)
}

// StackObserver is an Observer that also wants, where a statement is
// reached, the script's call stack and an evaluator in the statement's
// scope (a debugger): the runtime calls StatementStack in place of
// Statement, and instruments the program for evaluation only for it.
type StackObserver interface {
	Observer
	StatementStack(line, column int, p Paused)
}

// Paused is a run stopped at a statement, valid only during
// StatementStack and only on the run's goroutine.
type Paused struct {
	// Stack is the script's own frames, innermost first, at most a few
	// hundred.
	Stack func() []Frame
	// Eval evaluates an expression in the statement's scope: its value
	// as text (an object as JSON, cut at 16 KiB), or its error, every
	// configured credential hidden; bounded in time (the run goes on
	// after an endless one). Nil when the runtime cannot.
	Eval func(expr string) (string, error)
	// Scopes are the names the script declares where the statement is,
	// by scope (the innermost function's, the enclosing functions', the
	// script's top level); their values come from Inspect. Nil when the
	// runtime cannot.
	Scopes func() Scopes
	// Inspect is expr's value in the statement's scope as a debugger's
	// variable (its Name is expr), bounded as Eval is.
	Inspect func(expr string) (Var, error)
	// Expand lists the value expr evaluates to: an object's own
	// enumerable properties, an array's elements, from start, at most
	// count (and at most a thousand), each a Var whose Expr expands it in
	// turn. "globalThis" lists the globals the runtime and the script
	// defined (not the language's own).
	Expand func(expr string, start, count int) ([]Var, error)
	// Frame is the run as frame i of frames (Stack's, 0 the innermost)
	// stands: an outer frame's scopes, values and evaluation, where its
	// call is. An error says why it cannot (an outer call of a function
	// that called itself: only its innermost call's values are kept).
	// Nil when the runtime cannot.
	Frame func(frames []Frame, i int) (Paused, error)
}

// Scopes are the names seen where a run stands stopped, innermost first
// within each: Local (the innermost function's parameters, vars, and its
// blocks' lets, consts and functions), Closure (the enclosing
// functions'), Script (the script's top level; empty when the run stands
// at the top level, where they are Local).
type Scopes struct {
	Local, Closure, Script []string
}

// Var is a value as a debugger shows it.
type Var struct {
	// Name is the variable's, the property's or the element's name.
	Name string
	// Value is the value as short text: a string quoted, an object as a
	// preview of its first properties ({id: "42", items: Array(2)}), an
	// array as Array(N), a function as its name; every configured
	// credential hidden.
	Value string
	// Type is typeof's answer, "array" for an array, "null" for null.
	Type string
	// Expr is an expression that evaluates to the value where the run
	// stands (a property's is its object's Expr and its key); "" when it
	// has none.
	Expr string
	// Children is how many properties or elements Expand lists; 0 for a
	// value that does not expand.
	Children int
}

// ExceptionObserver is a StackObserver that also hears the exceptions a
// debugger may stop at (its exception breakpoints): a throw statement, an
// api.rest.v1 call that throws (before it throws, where the call is), an
// error caught by a catch clause that was not heard where it was thrown
// (an error the language raises), and an error no catch took, at the
// run's end. Instrumented only for it.
type ExceptionObserver interface {
	StackObserver
	Exception(x Exception, p Paused)
}

// Exception is an exception as the run throws it.
type Exception struct {
	// Kind is ExceptionThrown, ExceptionAPI (the contract's exception:
	// status and status.code set) or ExceptionRestClient.
	Kind string
	// Uncaught: no catch clause takes it (known where a throw statement
	// or a call throws, from the try blocks the run is in).
	Uncaught bool
	// Text describes it ("RestClientError timeout: ...", "404 Not Found
	// from orders", "TypeError: ..."), every credential hidden.
	Text string
	// Line and Column are where it is thrown, or caught.
	Line, Column int
}

// Kinds of Exception.
const (
	ExceptionThrown     = "thrown"
	ExceptionAPI        = "apiError"
	ExceptionRestClient = "restClientError"
)

// Frame is one frame of the script's call stack: the function's name (""
// for an anonymous one, ScriptFrame for the script's body) and where it
// is, 1-based in the script's text.
type Frame struct {
	Function     string
	Line, Column int
}

// ScriptFrame names the outermost frame, the script's own body.
const ScriptFrame = "(script)"

// MoreFrames names a last frame that stands for the outer frames not
// shown: a stack is cut at a few hundred frames (a deep recursion).
const MoreFrames = "(more frames, not shown)"

// CoverageObserver is an Observer that measures coverage: when the run
// asks for statements, the program counts them itself, and its branches'
// arms, instead of calling Statement for each (the runtime instruments
// it so only for a CoverageObserver), and the observer hears the counts
// once, when the run ends.
type CoverageObserver interface {
	Observer
	// Covered is called once, after the script ends and before Done,
	// with what the run counted.
	Covered(c Coverage)
	// CallSite is called before CallMade for call i with where the
	// script made it (1-based, byte column; 0, 0 when unknown).
	CallSite(i, line, column int)
}

// Coverage is what one run counted: how often each statement that ran
// ran, at its place (Observer.Statement's), and by branch point (the
// index in the script's coverage map, runtime.NewCoverageMap) how often
// each arm ran: for an if or a conditional 0 is its consequent and 1 its
// alternate, for &&, || and ?? 1 is the right side evaluated and 0 not,
// for a switch the case's index.
type Coverage struct {
	Statements []Count `json:"statements,omitempty"`
	Arms       [][]int `json:"arms,omitempty"`
}

// Count is how often the statement at Line and Column ran.
type Count struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Count  int `json:"count"`
}
