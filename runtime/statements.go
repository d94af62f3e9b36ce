package runtime

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"

	"github.com/restls/restls/runtime/dryrun"
)

// Statements reached (dryrun.Observer.Statement). goja has no debugger
// hooks, so a run whose observer asks for statements gets a program with
// a call to statementHook before each statement: the parsed program is
// rewritten (instrumentStatements) before it is compiled, and the hook
// hands the statement's place to the observer. A run that does not ask
// is not rewritten and pays nothing; one that does pays a function call
// per statement reached (docs/decisions.md, "Statements reached").

// statementHook is the global the instrumented program calls; a script
// that names it itself only reports statements.
const statementHook = "__restls_statement"

// maxInstrumentWalk bounds the nodes instrumentStatements visits; past
// it, the rest of the program is left as it is (its statements unseen).
const maxInstrumentWalk = 1 << 20

// instrumentStatements puts a call statementHook(offset) before every
// statement of the script in prg (not the wrapper around it, not
// function declarations, which run when hoisted, nor a directive
// prologue's strings), where offset is the statement's file.Idx; the
// body of an if, a loop or a with that is one statement becomes a block
// so that it gets its call too. base is the offset of the script's first
// character (after the wrapper's prefix).
//
// With eval, each hook also gets the statement's evaluator (hookCall),
// and scopes holds, by hook, the names the script declares where the
// statement is (the debugger's locals).
func instrumentStatements(prg *ast.Program, base file.Idx, text string, eval bool) (hooks []file.Idx, scopes map[file.Idx]*scope) {
	type item struct {
		v  reflect.Value
		sc *scope
	}
	if eval {
		scopes = map[file.Idx]*scope{}
	}
	stack := []item{{reflect.ValueOf(prg), nil}}
	seen := map[uintptr]bool{}
	nodeType := reflect.TypeOf((*ast.Node)(nil)).Elem()
	pkg := reflect.TypeOf(ast.Program{}).PkgPath()
	for n := 0; len(stack) > 0 && n < maxInstrumentWalk; n++ {
		it := stack[len(stack)-1]
		v, sc := it.v, it.sc
		stack = stack[:len(stack)-1]
		switch v.Kind() {
		case reflect.Interface:
			if !v.IsNil() {
				stack = append(stack, item{v.Elem(), sc})
			}
			continue
		case reflect.Slice:
			for i := v.Len() - 1; i >= 0; i-- {
				stack = append(stack, item{v.Index(i), sc})
			}
			continue
		case reflect.Pointer:
			if v.IsNil() || v.Elem().Kind() != reflect.Struct || v.Elem().Type().PkgPath() != pkg || seen[v.Pointer()] {
				continue
			}
			seen[v.Pointer()] = true
		default:
			continue
		}
		if v.Type().Implements(nodeType) {
			switch s := v.Interface().(type) {
			case *ast.FunctionLiteral:
				if eval {
					sc = sc.function(s.ParameterList, s.DeclarationList, s.Idx0(), s.Idx1())
				}
			case *ast.ArrowFunctionLiteral:
				if eval {
					sc = sc.function(s.ParameterList, s.DeclarationList, s.Idx0(), s.Idx1())
				}
			case *ast.BlockStatement:
				if eval {
					sc = sc.block(s.List)
				}
				s.List = withHooks(s.List, base, text, &hooks, eval, sc, scopes)
			case *ast.CaseStatement:
				s.Consequent = withHooks(s.Consequent, base, text, &hooks, eval, sc, scopes)
			case *ast.ThrowStatement:
				if eval {
					s.Argument = hookedValue(throwHook, s.Argument, s.Throw)
				}
			case *ast.TryStatement:
				if eval && s.Catch != nil {
					s.Body = counted(s.Body)
				}
			case *ast.CatchStatement:
				if id, ok := s.Parameter.(*ast.Identifier); ok && eval && s.Body != nil {
					call := hookedValue(caughtHook, &ast.Identifier{Name: id.Name, Idx: 1}, s.Catch)
					s.Body.List = append([]ast.Statement{&ast.ExpressionStatement{Expression: call}}, s.Body.List...)
				}
			case *ast.IfStatement:
				s.Consequent = asBlock(s.Consequent, base)
				if s.Alternate != nil {
					s.Alternate = asBlock(s.Alternate, base)
				}
			case *ast.WhileStatement:
				s.Body = asBlock(s.Body, base)
			case *ast.DoWhileStatement:
				s.Body = asBlock(s.Body, base)
			case *ast.ForStatement:
				if d, ok := s.Initializer.(*ast.ForLoopInitializerLexicalDecl); ok && eval {
					sc = sc.loopScope(appendBindings(nil, d.LexicalDeclaration.List))
				}
				s.Body = asBlock(s.Body, base)
			case *ast.ForInStatement:
				if d, ok := s.Into.(*ast.ForDeclaration); ok && eval {
					sc = sc.loopScope(appendTarget(nil, d.Target, 0))
				}
				s.Body = asBlock(s.Body, base)
			case *ast.ForOfStatement:
				if d, ok := s.Into.(*ast.ForDeclaration); ok && eval {
					sc = sc.loopScope(appendTarget(nil, d.Target, 0))
				}
				s.Body = asBlock(s.Body, base)
			case *ast.WithStatement:
				s.Body = asBlock(s.Body, base)
			}
		}
		s := v.Elem()
		for i := s.NumField() - 1; i >= 0; i-- {
			switch f := s.Field(i); f.Kind() {
			case reflect.Interface, reflect.Slice, reflect.Pointer:
				if s.Type().Field(i).IsExported() {
					stack = append(stack, item{f, sc})
				}
			}
		}
	}
	return hooks, scopes
}

// withHooks is list with a hook call before each statement of the
// script, each hook's place appended to hooks; eval gives each hook the
// statement's evaluator (hookCall).
func withHooks(list []ast.Statement, base file.Idx, text string, hooks *[]file.Idx, eval bool, sc *scope, scopes map[file.Idx]*scope) []ast.Statement {
	out := make([]ast.Statement, 0, 2*len(list))
	prologue := true
	for _, st := range list {
		if prologue {
			if es, ok := st.(*ast.ExpressionStatement); ok {
				if _, ok := es.Expression.(*ast.StringLiteral); ok {
					out = append(out, st) // "use strict" must stay first
					continue
				}
			}
			prologue = false
		}
		switch st.(type) {
		case *ast.FunctionDeclaration, *ast.EmptyStatement:
		default:
			if at := start(st, text); at >= base {
				// goja fails (an index out of range, or a rest parameter
				// left empty) on a direct eval in a closure made right in a
				// function whose parameters are not simple names: such a
				// function's statements get no evaluator.
				out = append(out, hookCall(at, eval && sc.fnOf().simpleParams()))
				*hooks = append(*hooks, at)
				if scopes != nil {
					scopes[at] = sc
				}
			}
		}
		out = append(out, st)
	}
	return out
}

// start is where st starts in text, the parsed source. goja's parser
// leaves an if statement without its place: it is the "if" before its
// test (only "(", spaces and comments are between them).
func start(st ast.Statement, text string) file.Idx {
	if s, ok := st.(*ast.IfStatement); ok && s.If == 0 && s.Test != nil {
		if off := int(s.Test.Idx0()) - 1; off > 0 && off <= len(text) {
			if i := strings.LastIndex(text[:off], "if"); i >= 0 {
				return file.Idx(i + 1)
			}
		}
		return 0
	}
	return st.Idx0()
}

// asBlock is st as a block, so withHooks reaches it when the walk gets
// there; a block, or a statement before the script, stays as it is.
func asBlock(st ast.Statement, _ file.Idx) ast.Statement {
	switch st.(type) {
	case *ast.BlockStatement, nil:
		return st
	}
	return &ast.BlockStatement{LeftBrace: st.Idx0(), List: []ast.Statement{st}, RightBrace: st.Idx1()}
}

// hookCall is statementHook(at), placed at at; with eval,
// statementHook(at, function(e) { return eval(e) }): a direct eval in a
// closure made where the statement is, so that it sees the statement's
// scope (its locals, the closures' variables, the globals). The
// closure's own statement is placed before the script (offset 1), so
// that the walk leaves it without a hook.
func hookCall(at file.Idx, eval bool) ast.Statement {
	args := []ast.Expression{&ast.NumberLiteral{Idx: at, Literal: strconv.Itoa(int(at)), Value: int64(at)}}
	if eval {
		param := &ast.Identifier{Name: evalParam, Idx: 1}
		args = append(args, &ast.FunctionLiteral{Function: 1,
			ParameterList: &ast.ParameterList{Opening: 1, List: []*ast.Binding{{Target: param}}, Closing: 1},
			Body: &ast.BlockStatement{LeftBrace: 1, RightBrace: 1, List: []ast.Statement{&ast.ReturnStatement{Return: 1,
				Argument: &ast.CallExpression{Callee: &ast.Identifier{Name: "eval", Idx: 1}, LeftParenthesis: 1,
					ArgumentList: []ast.Expression{&ast.Identifier{Name: evalParam, Idx: 1}}, RightParenthesis: 1}}}},
		})
	}
	return &ast.ExpressionStatement{Expression: &ast.CallExpression{
		Callee:           &ast.Identifier{Name: statementHook, Idx: at},
		LeftParenthesis:  at,
		ArgumentList:     args,
		RightParenthesis: at,
	}}
}

// evalParam is the evaluator's parameter: an expression evaluated sees
// it beside the script's names.
const evalParam = "__restls_expr"

// lineStarts are the offsets in src at which its lines start.
func lineStarts(src string) []int {
	starts := []int{0}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// StatementLines are the lines of src (1-based) that have a statement a
// run asked for statements stops at (dryrun.Observer.Statement), in
// order: a debugger verifies its breakpoints against them. A script that
// does not parse has none, and the parser's error.
func StatementLines(src string) ([]int, error) {
	text := prefix + src + "\n})"
	prg, err := parser.ParseFile(nil, "", text, 0, parser.WithDisableSourceMaps)
	if err != nil {
		return nil, err
	}
	starts := lineStarts(src)
	var lines []int
	hooks, _ := instrumentStatements(prg, file.Idx(len(prefix)+1), text, false)
	for _, at := range hooks {
		line, _ := place(starts, int(at)-1-len(prefix))
		if line > 0 && (len(lines) == 0 || lines[len(lines)-1] != line) {
			lines = append(lines, line)
		}
	}
	sort.Ints(lines)
	return slices.Compact(lines), nil
}

// place is the line and 1-based column of byte off of a source whose
// lines start at starts; 0, 0 when off is outside it.
func place(starts []int, off int) (line, column int) {
	if off < 0 || len(starts) == 0 {
		return 0, 0
	}
	line = sort.Search(len(starts), func(i int) bool { return starts[i] > off })
	return line, off - starts[line-1] + 1
}

// maxStackFrames bounds the frames a paused run's stack shows.
const maxStackFrames = 256

// installStatementHook defines statementHook, which hands the place of
// the statement at offset (a file.Idx of the wrapped source) to the
// observer as a line and a 1-based byte column of src; an observer that
// is a dryrun.StackObserver also gets the script's stack there.
func (r *runner) installStatementHook(src string) error {
	starts := lineStarts(src)
	r.starts = starts
	obs := r.opts.Observer
	stackObs, _ := obs.(dryrun.StackObserver)
	return r.vm.Set(statementHook, func(call goja.FunctionCall) goja.Value {
		off := int(call.Argument(0).ToInteger()) - 1 - len(prefix)
		if off < 0 || off > len(src) {
			return goja.Undefined()
		}
		line, column := place(starts, off)
		if line == 0 {
			return goja.Undefined()
		}
		if stackObs == nil {
			obs.Statement(line, column)
			return goja.Undefined()
		}
		at := file.Idx(off + 1 + len(prefix))
		fn, _ := goja.AssertFunction(call.Argument(1))
		r.last = stopPlace{line: line, column: column, at: at, eval: fn}
		if f := r.scopes[at].fnOf(); f != nil {
			r.lastIn[f] = r.last // the frame's place when a call from here stops inside
		}
		stackObs.StatementStack(line, column, r.paused(r.last, func() []dryrun.Frame { return r.stack(line, column) }))
		return goja.Undefined()
	})
}

// stack is the script's call stack at the statement at line and column,
// innermost first: the script's own frames, the outermost named
// dryrun.ScriptFrame.
func (r *runner) stack(line, column int) []dryrun.Frame {
	var out []dryrun.Frame
	// Two more than shown: the hook's own frame, and one that tells a
	// stack cut short from a whole one.
	for _, f := range r.vm.CaptureCallStack(maxStackFrames+2, nil) {
		if f.SrcName() != r.opts.Filename {
			continue // the hook itself, and native functions
		}
		p := f.Position()
		fr := dryrun.Frame{Function: f.FuncName(), Line: p.Line, Column: p.Column}
		if fr.Line == 1 {
			fr.Column -= len(prefix)
		}
		if len(out) == 0 && line > 0 {
			fr.Line, fr.Column = line, column // where the hook was called from is the statement
		}
		out = append(out, fr)
	}
	return outermost(out)
}

// outermost names the last of frames the script's body, or, when there
// are more than maxStackFrames, cuts them there and says so.
func outermost(frames []dryrun.Frame) []dryrun.Frame {
	switch n := len(frames); {
	case n > maxStackFrames:
		frames = append(frames[:maxStackFrames], dryrun.Frame{Function: dryrun.MoreFrames})
	case n > 0:
		frames[n-1].Function = dryrun.ScriptFrame
	}
	return frames
}

// DefaultEvalTimeout bounds one evaluation in a paused frame unless
// Options.EvalTimeout says otherwise (and the run's time limit, when
// shorter): restls dap's --max-eval default. maxEvalText bounds the
// text of its value.
const (
	DefaultEvalTimeout = 2 * time.Second
	maxEvalText        = 16 << 10
)

// evalInterrupt is what stops an evaluation past DefaultEvalTimeout.
var evalInterrupt = &interruptReason{code: CodeScriptTimeout, msg: "the evaluation took too long"}

// evaluate is expr evaluated by fn, a statement's evaluator, on the
// run's goroutine: its value as the debugger shows it (a string, a
// number, an object as JSON, cut at maxEvalText), or its error, with
// every credential the session knows hidden. An endless expression is
// interrupted after DefaultEvalTimeout; the run goes on.
func (r *runner) evaluate(fn goja.Callable, expr string) (string, error) {
	var text string
	err := r.bounded(func() error {
		v, err := fn(goja.Undefined(), r.vm.ToValue(expr))
		if err == nil {
			text = r.session.Redactor().String(r.show(v))
		}
		return err
	})
	return text, err
}

// show is v as the debugger shows it.
func (r *runner) show(v goja.Value) string {
	var text string
	switch {
	case v == nil || goja.IsUndefined(v):
		text = "undefined"
	case goja.IsNull(v):
		text = "null"
	default:
		if _, ok := v.(*goja.Object); ok {
			if _, fn := goja.AssertFunction(v); !fn {
				if b, err := json.Marshal(v); err == nil && len(b) <= maxEvalText {
					text = string(b)
					break
				}
			}
		}
		if s, ok := v.Export().(string); ok {
			b, _ := json.Marshal(s)
			text = string(b)
		} else {
			text = v.String()
		}
	}
	if len(text) > maxEvalText {
		text = text[:maxEvalText] + "…"
	}
	return text
}

// scope is the names the script declares in a function or a block, and
// the scope around it: a debugger's locals where a statement is.
// Destructuring patterns and a for loop's let are not followed yet.
type scope struct {
	names  []string
	parent *scope
	fn     bool // a function's (its blocks' scopes are inside it)
	// from and to are a function's place in the wrapped source.
	from, to file.Idx
	// complex: a function whose parameters are not all plain names (a
	// default, a rest parameter, a destructuring pattern).
	complex bool
}

// simpleParams reports whether sc, a function's scope (nil: none), has
// only plain names as parameters.
func (sc *scope) simpleParams() bool { return sc == nil || !sc.complex }

// function is the function sc is in: sc, or the nearest around it that
// is a function's.
func (sc *scope) fnOf() *scope {
	for s := sc; s != nil; s = s.parent {
		if s.fn {
			return s
		}
	}
	return nil
}

// maxLocals bounds the names a stopped frame lists.
const maxLocals = 200

// function is the scope of a function inside sc: its parameters and its
// var declarations (hoisted to it).
func (sc *scope) function(params *ast.ParameterList, decls []*ast.VariableDeclaration, from, to file.Idx) *scope {
	out := &scope{parent: sc, fn: true, from: from, to: to}
	if params != nil {
		out.complex = params.Rest != nil
		for _, b := range params.List {
			if _, ok := b.Target.(*ast.Identifier); !ok || b.Initializer != nil {
				out.complex = true
			}
		}
		out.names = appendBindings(out.names, params.List)
		if params.Rest != nil {
			out.names = appendTarget(out.names, params.Rest, 0)
		}
	}
	for _, d := range decls {
		out.names = appendBindings(out.names, d.List)
	}
	return out
}

// block is the scope of a block inside sc: its let, const, class and
// function declarations; sc itself when it has none.
func (sc *scope) block(list []ast.Statement) *scope {
	var names []string
	for _, st := range list {
		switch d := st.(type) {
		case *ast.LexicalDeclaration:
			names = appendBindings(names, d.List)
		case *ast.FunctionDeclaration:
			if d.Function != nil && d.Function.Name != nil {
				names = append(names, d.Function.Name.Name.String())
			}
		}
	}
	if len(names) == 0 {
		return sc
	}
	return &scope{names: names, parent: sc}
}

func appendBindings(names []string, list []*ast.Binding) []string {
	for _, b := range list {
		names = appendTarget(names, b.Target, 0)
	}
	return names
}

// maxPatternDepth bounds how deep appendTarget follows nested
// destructuring patterns.
const maxPatternDepth = 32

// appendTarget appends the names a binding target declares: a name, or
// each name of a destructuring pattern ({a, b: [c, ...d] = x}).
func appendTarget(names []string, t ast.Node, depth int) []string {
	if depth > maxPatternDepth {
		return names
	}
	switch x := t.(type) {
	case *ast.Identifier:
		names = append(names, x.Name.String())
	case *ast.AssignExpression: // a default: the name is on the left
		names = appendTarget(names, x.Left, depth+1)
	case *ast.ObjectPattern:
		for _, p := range x.Properties {
			switch p := p.(type) {
			case *ast.PropertyShort:
				names = append(names, p.Name.Name.String())
			case *ast.PropertyKeyed:
				names = appendTarget(names, p.Value, depth+1)
			}
		}
		if x.Rest != nil {
			names = appendTarget(names, x.Rest, depth+1)
		}
	case *ast.ArrayPattern:
		for _, e := range x.Elements {
			if e != nil {
				names = appendTarget(names, e, depth+1)
			}
		}
		if x.Rest != nil {
			names = appendTarget(names, x.Rest, depth+1)
		}
	}
	return names
}

// loopScope is the scope of a for loop's let or const inside sc (sc
// when it declares none).
func (sc *scope) loopScope(names []string) *scope {
	if len(names) == 0 {
		return sc
	}
	return &scope{names: names, parent: sc}
}

// Scopes are the names seen from sc by function, the innermost first,
// each once (an inner name hides an outer one), at most maxLocals in
// all: the innermost function's are Local, the outermost's (the
// script's top level) Script, those between Closure.
func (sc *scope) Scopes() dryrun.Scopes {
	var groups [][]string
	seen := map[string]bool{}
	n := 0
	var cur []string
	for s := sc; s != nil; s = s.parent {
		for _, name := range s.names {
			if !seen[name] && n < maxLocals {
				seen[name] = true
				n++
				cur = append(cur, name)
			}
		}
		if s.fn || s.parent == nil {
			groups = append(groups, cur)
			cur = nil
		}
	}
	var out dryrun.Scopes
	switch len(groups) {
	case 0:
	case 1:
		out.Local = groups[0]
	default:
		out.Local, out.Script = groups[0], groups[len(groups)-1]
		for _, g := range groups[1 : len(groups)-1] {
			out.Closure = append(out.Closure, g...)
		}
	}
	return out
}
