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
	// Locals are the names the script declares where the statement is
	// (its function's parameters and vars, its blocks' lets, consts and
	// functions, then the enclosing functions'), innermost first; their
	// values come from Eval. Nil when the runtime cannot.
	Locals func() []string
}

// Frame is one frame of the script's call stack: the function's name (""
// for an anonymous one, ScriptFrame for the script's body) and where it
// is, 1-based in the script's text.
type Frame struct {
	Function     string
	Line, Column int
}

// ScriptFrame names the outermost frame, the script's own body.
const ScriptFrame = "(script)"

// CoverageObserver is an Observer that also wants, when the run asks for
// statements, the arm taken at each branch point and where each call
// was made (coverage): the runtime instruments the program's branches
// only for it.
type CoverageObserver interface {
	Observer
	// Branch is called when the run takes arm of branch point id, the
	// index of the branch in the script's coverage map
	// (runtime.NewCoverageMap): for an if or a conditional 0 is its
	// consequent and 1 its alternate, for &&, || and ?? 1 is the right
	// side evaluated and 0 not, for a switch the case's index.
	Branch(id, arm int)
	// CallSite is called before CallMade for call i with where the
	// script made it (1-based, byte column; 0, 0 when unknown).
	CallSite(i, line, column int)
}
