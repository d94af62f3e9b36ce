package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"
	"github.com/dop251/goja/unistring"

	"github.com/restls/restls/jsdepth"
	"github.com/restls/restls/runtime/dryrun"
)

// What a debugger sees beyond the statements (dryrun.StackObserver and
// dryrun.ExceptionObserver): variables by scope, values expanded on
// demand, and the exceptions it may stop at. All of it exists only in a
// run whose observer is a StackObserver: the instrumentation below is
// made only then (instrumentStatements' eval).

// The globals the debugger's instrumentation calls, beside statementHook.
const (
	// throwHook(value, at) is a throw statement's argument: it hears the
	// value thrown and hands it back.
	throwHook = "__restls_throw"
	// caughtHook(value, at) is the first statement of a catch clause.
	caughtHook = "__restls_caught"
	// tryHook(+1 | -1) counts the try blocks with a catch clause the run
	// is in: an exception thrown where it is 0 is uncaught.
	tryHook = "__restls_try"
)

// hookedValue is hook(value, at): a call placed at at whose value is
// value, for the hooks that hear a value and hand it back.
func hookedValue(hook string, value ast.Expression, at file.Idx) ast.Expression {
	return &ast.CallExpression{Callee: &ast.Identifier{Name: unistring.String(hook), Idx: at}, LeftParenthesis: at,
		ArgumentList: []ast.Expression{value, &ast.NumberLiteral{Idx: at, Literal: strconv.Itoa(int(at)), Value: int64(at)}}, RightParenthesis: at}
}

// counted is a try block's body body as
// { tryHook(1); try { body } finally { tryHook(-1) } }: the count goes
// down however the body ends (a throw, a return, a break), before the
// catch clause runs. Its own nodes are placed before the script (offset
// 1), so the walk gives them no statement hook.
func counted(body *ast.BlockStatement) *ast.BlockStatement {
	call := func(n int64) ast.Statement {
		return &ast.ExpressionStatement{Expression: &ast.CallExpression{Callee: &ast.Identifier{Name: tryHook, Idx: 1}, LeftParenthesis: 1,
			ArgumentList: []ast.Expression{&ast.NumberLiteral{Idx: 1, Literal: strconv.FormatInt(n, 10), Value: n}}, RightParenthesis: 1}}
	}
	return &ast.BlockStatement{LeftBrace: 1, RightBrace: 1, List: []ast.Statement{
		call(1),
		&ast.TryStatement{Try: 1, Body: body, Finally: &ast.BlockStatement{LeftBrace: 1, RightBrace: 1, List: []ast.Statement{call(-1)}}},
	}}
}

// stopPlace is the last statement a debugged run reached: its place, its
// hook's offset (the key of its scope) and its evaluator.
type stopPlace struct {
	line, column int
	at           file.Idx
	eval         goja.Callable
}

// paused is the run stopped at p, its stack from stack.
func (r *runner) paused(p stopPlace, stack func() []dryrun.Frame) dryrun.Paused {
	out := dryrun.Paused{Stack: stack, Scopes: func() dryrun.Scopes { return r.scopes[p.at].Scopes() }}
	out.Frame = func(frames []dryrun.Frame, i int) (dryrun.Paused, error) { return r.frame(p, stack, frames, i) }
	if p.eval == nil {
		// A function whose parameters are not plain names
		// (instrumentStatements gives its statements no evaluator).
		err := errors.New("restls dap cannot evaluate in a function with a default, rest or destructured parameter (a limit of its JavaScript engine): stop in a function it calls, or evaluate in an outer frame")
		out.Eval = func(string) (string, error) { return "", err }
		out.Inspect = func(string) (dryrun.Var, error) { return dryrun.Var{}, err }
		out.Expand = func(string, int, int) ([]dryrun.Var, error) { return nil, err }
	}
	if fn := p.eval; fn != nil {
		out.Eval = func(expr string) (string, error) { return r.evaluate(fn, expr) }
		out.Inspect = func(expr string) (dryrun.Var, error) {
			var v dryrun.Var
			err := r.bounded(func() error {
				val, err := fn(goja.Undefined(), r.vm.ToValue(expr))
				if err == nil {
					v = r.describe(expr, expr, val)
				}
				return err
			})
			return v, err
		}
		out.Expand = func(expr string, start, count int) ([]dryrun.Var, error) {
			var vars []dryrun.Var
			err := r.bounded(func() error {
				var val goja.Value = r.vm.GlobalObject()
				if expr != "globalThis" {
					var err error
					if val, err = fn(goja.Undefined(), r.vm.ToValue(expr)); err != nil {
						return err
					}
				}
				vars = r.expand(expr, val, start, count)
				return nil
			})
			return vars, err
		}
	}
	return out
}

// frame is the run as frame i of frames stands, the run stopped at p
// (frame 0) with stack.
func (r *runner) frame(p stopPlace, stack func() []dryrun.Frame, frames []dryrun.Frame, i int) (dryrun.Paused, error) {
	if i <= 0 || i >= len(frames) {
		return r.paused(p, stack), nil
	}
	f := r.fnAt(frames[i])
	if f == nil || frames[i].Function == dryrun.MoreFrames {
		return dryrun.Paused{}, fmt.Errorf("restls cannot tell which function frame %d is in", i+1)
	}
	for j := 0; j < i; j++ {
		if r.fnAt(frames[j]) == f {
			return dryrun.Paused{}, fmt.Errorf("%s calls itself: restls dap keeps the values of its innermost call only (frame %d)", frames[i].Function, j+1)
		}
	}
	at, ok := r.lastIn[f]
	if !ok {
		return dryrun.Paused{}, fmt.Errorf("frame %d has reached no statement", i+1)
	}
	return r.paused(at, func() []dryrun.Frame { return frames[i:] }), nil
}

// fnAt is the innermost function of the script whose text holds the
// frame's place.
func (r *runner) fnAt(fr dryrun.Frame) *scope {
	if fr.Line < 1 || fr.Line > len(r.starts) {
		return nil
	}
	at := file.Idx(r.starts[fr.Line-1] + fr.Column - 1 + 1 + len(prefix))
	if r.fns == nil {
		seen := map[*scope]bool{}
		for _, sc := range r.scopes {
			if f := sc.fnOf(); f != nil && !seen[f] {
				seen[f] = true
				r.fns = append(r.fns, f)
			}
		}
	}
	var best *scope
	for _, f := range r.fns {
		if f.from <= at && at < f.to && (best == nil || f.from > best.from) {
			best = f
		}
	}
	return best
}

// bounded runs f, an evaluation on the run's goroutine, within
// DefaultEvalTimeout or Options.EvalTimeout (and the run's limit): past it the
// evaluation is stopped and the run goes on. A JavaScript error becomes an error with its text,
// credentials hidden.
func (r *runner) bounded(f func() error) (err error) {
	limit := DefaultEvalTimeout
	if r.opts.EvalTimeout > 0 {
		limit = r.opts.EvalTimeout
	}
	limit = min(limit, r.opts.Timeout)
	stop := time.AfterFunc(limit, func() { r.vm.Interrupt(evalInterrupt) })
	defer func() {
		if !stop.Stop() {
			r.vm.ClearInterrupt()
			if p := r.stopped.Load(); p != nil {
				r.vm.Interrupt(*p) // the run's own stop, which came meanwhile
			}
		}
	}()
	err = func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				switch x := p.(type) {
				case *goja.Exception:
					err = x
				case *goja.InterruptedError:
					err = x
				case goja.Value:
					err = errors.New(x.String())
				default:
					panic(p)
				}
			}
		}()
		return f()
	}()
	if err == nil {
		return nil
	}
	red := r.session.Redactor()
	var ie *goja.InterruptedError
	if errors.As(err, &ie) && ie.Value() == evalInterrupt {
		return fmt.Errorf("the evaluation took longer than %v: it was stopped, the run goes on", limit)
	}
	if ex, ok := err.(*goja.Exception); ok {
		return errors.New(red.String(ex.Value().String()))
	}
	return errors.New(red.String(err.Error()))
}

// maxExpand bounds the children one Expand lists; maxPreview the text of
// a value's preview.
const (
	maxExpand  = 1000
	maxPreview = 100
)

// identifier is a name a preview writes as a.b, not a["b"]; compiled on
// first use, as everything of this package only runs need
// (TestStartupWorkOfRunPackages).
var identifier = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`) })

// member is the expression of parent's property key.
func member(parent, key string, index bool) string {
	switch {
	case parent == "globalThis" && identifier().MatchString(key):
		return key
	case index:
		return parent + "[" + key + "]"
	case identifier().MatchString(key):
		return parent + "." + key
	}
	b, _ := json.Marshal(key)
	return parent + "[" + string(b) + "]"
}

// expand lists val's own enumerable properties (an array's elements)
// from start, at most count (maxExpand when 0 or more).
func (r *runner) expand(expr string, val goja.Value, start, count int) []dryrun.Var {
	obj, ok := val.(*goja.Object)
	if !ok {
		return nil
	}
	if count <= 0 || count > maxExpand {
		count = maxExpand
	}
	start = max(start, 0)
	var out []dryrun.Var
	if r.isArray(obj) {
		n := int(obj.Get("length").ToInteger())
		for i := start; i < n && len(out) < count; i++ {
			k := strconv.Itoa(i)
			out = append(out, r.describe(k, member(expr, k, true), obj.Get(k)))
		}
		return out
	}
	keys := obj.Keys()
	global := obj == r.vm.GlobalObject()
	for _, k := range keys {
		if global && strings.HasPrefix(k, "__restls_") {
			continue
		}
		if start > 0 {
			start--
			continue
		}
		if len(out) == count {
			break
		}
		out = append(out, r.describe(k, member(expr, k, false), obj.Get(k)))
	}
	return out
}

func (r *runner) isArray(obj *goja.Object) bool {
	v, err := r.arrayIsArray(goja.Undefined(), obj)
	return err == nil && v.ToBoolean()
}

// describe is val, named name and reached by expr, as a debugger shows
// it, credentials hidden.
func (r *runner) describe(name, expr string, val goja.Value) dryrun.Var {
	red := r.session.Redactor()
	v := dryrun.Var{Name: red.String(name), Expr: expr}
	switch {
	case val == nil || goja.IsUndefined(val):
		v.Value, v.Type = "undefined", "undefined"
	case goja.IsNull(val):
		v.Value, v.Type = "null", "null"
	default:
		obj, ok := val.(*goja.Object)
		if !ok {
			v.Value, v.Type = r.preview(val, 0), typeOf(val)
			break
		}
		if _, fn := goja.AssertFunction(obj); fn {
			v.Type, v.Value = "function", r.preview(val, 0)
			break
		}
		v.Type, v.Value = "object", r.preview(val, 0)
		if r.isArray(obj) {
			v.Type, v.Children = "array", int(obj.Get("length").ToInteger())
		} else {
			v.Children = len(obj.Keys())
		}
	}
	v.Value = red.String(v.Value)
	return v
}

func typeOf(v goja.Value) string {
	switch v.ExportType().Kind().String() {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "int64", "float64", "int", "int32", "uint32":
		return "number"
	}
	return "object"
}

// preview is val as short text: a string quoted, an array as Array(N),
// a function as its name, an object as its first properties, each
// previewed one level deep.
func (r *runner) preview(val goja.Value, depth int) string {
	switch {
	case val == nil || goja.IsUndefined(val):
		return "undefined"
	case goja.IsNull(val):
		return "null"
	}
	obj, ok := val.(*goja.Object)
	if !ok {
		if s, ok := val.Export().(string); ok {
			if len(s) > maxEvalText {
				s = s[:maxEvalText] + "…"
			}
			b, _ := json.Marshal(s)
			return string(b)
		}
		return val.String()
	}
	if _, fn := goja.AssertFunction(obj); fn {
		name := obj.Get("name")
		switch {
		case name == nil || name.String() == "":
			return "function (anonymous)"
		case strings.ContainsAny(name.String(), "/()*"):
			return "function (native)" // a Go function's: its Go name says nothing to the script
		}
		return "function " + name.String()
	}
	if r.isArray(obj) {
		return fmt.Sprintf("Array(%d)", obj.Get("length").ToInteger())
	}
	if ex := errorText(obj); ex != "" {
		return ex
	}
	if depth > 0 {
		return "{…}"
	}
	var b strings.Builder
	b.WriteString("{")
	for i, k := range obj.Keys() {
		if b.Len() > maxPreview {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k + ": " + r.preview(obj.Get(k), depth+1))
	}
	b.WriteString("}")
	return b.String()
}

// errorText is "Name: message" for an Error object, "" for another.
func errorText(obj *goja.Object) string {
	if obj.ClassName() != "Error" {
		return ""
	}
	return obj.String()
}

// The exceptions a debugger hears (dryrun.ExceptionObserver).

// installExceptionHooks defines throwHook, caughtHook and tryHook for
// obs.
func (r *runner) installExceptionHooks(src string, obs dryrun.ExceptionObserver) error {
	starts := lineStarts(src)
	placeOf := func(v goja.Value) (int, int) {
		off := int(v.ToInteger()) - 1 - len(prefix)
		if off < 0 || off > len(src) {
			return 0, 0
		}
		return place(starts, off)
	}
	r.exObs = obs
	if err := r.vm.Set(throwHook, func(call goja.FunctionCall) goja.Value {
		v := call.Argument(0)
		line, column := placeOf(call.Argument(1))
		r.exception(dryrun.ExceptionThrown, v, r.thrownText(v), line, column, r.tryDepth == 0, nil)
		return v
	}); err != nil {
		return err
	}
	if err := r.vm.Set(caughtHook, func(call goja.FunctionCall) goja.Value {
		v := call.Argument(0)
		if r.reported != nil && v.SameAs(r.reported) {
			return goja.Undefined() // heard where it was thrown
		}
		line, column := placeOf(call.Argument(1))
		r.exception(dryrun.ExceptionThrown, v, r.thrownText(v), line, column, false, nil)
		return goja.Undefined()
	}); err != nil {
		return err
	}
	return r.vm.Set(tryHook, func(call goja.FunctionCall) goja.Value {
		r.tryDepth += int(call.Argument(0).ToInteger())
		return goja.Undefined()
	})
}

// thrownText describes a thrown value for the debugger.
func (r *runner) thrownText(v goja.Value) string {
	if obj, ok := v.(*goja.Object); ok {
		if t := errorText(obj); t != "" {
			return r.session.Redactor().String(t)
		}
	}
	return r.session.Redactor().String(r.preview(v, 0))
}

// exception tells the debugger that v is thrown (or caught) at line and
// column, with the stack from frames (nil: the stack as it stands), and
// the scope of the last statement reached.
func (r *runner) exception(kind string, v goja.Value, text string, line, column int, uncaught bool, frames []dryrun.Frame) {
	if r.exObs == nil {
		return
	}
	r.reported = v
	stack := func() []dryrun.Frame {
		if frames != nil {
			return frames
		}
		return r.stack(line, column)
	}
	r.exObs.Exception(dryrun.Exception{Kind: kind, Uncaught: uncaught, Text: text, Line: line, Column: column}, r.paused(r.last, stack))
}

// callThrows tells the debugger that an api.rest.v1 call throws obj
// (kind dryrun.ExceptionAPI or ExceptionRestClient), where the call is.
func (r *runner) callThrows(kind string, obj *goja.Object, text string) {
	if r.exObs == nil {
		return
	}
	frames := r.stack(0, 0)
	line, column := r.last.line, r.last.column
	if len(frames) > 0 {
		line, column = frames[0].Line, frames[0].Column
	}
	r.exception(kind, obj, r.session.Redactor().String(text), line, column, r.tryDepth == 0, frames)
}

// uncaught tells the debugger of the error ex that ended the run, unless
// it heard it where it was thrown: its stack is the error's.
func (r *runner) uncaught(ex *goja.Exception) {
	if r.exObs == nil || (r.reported != nil && ex.Value().SameAs(r.reported)) {
		return
	}
	var frames []dryrun.Frame
	for _, f := range ex.Stack() {
		if f.SrcName() != r.opts.Filename || len(frames) > maxStackFrames {
			continue
		}
		p := f.Position()
		fr := dryrun.Frame{Function: f.FuncName(), Line: p.Line, Column: p.Column}
		if fr.Line == 1 {
			fr.Column -= len(prefix)
		}
		frames = append(frames, fr)
	}
	frames = outermost(frames)
	line, column := r.last.line, r.last.column
	if len(frames) > 0 {
		line, column = frames[0].Line, frames[0].Column
	}
	r.exception(dryrun.ExceptionThrown, ex.Value(), r.thrownText(ex.Value()), line, column, true, frames)
}

// CheckExpression reports whether expr parses as an expression (a
// breakpoint's condition, a logpoint's {expression}).
func CheckExpression(expr string) error {
	if d := jsdepth.Check(expr, jsdepth.Max); !d.OK() {
		return errors.New("it nests too deep")
	}
	_, err := parser.ParseFile(nil, "", "(function(){return (\n"+expr+"\n)})", 0, parser.WithDisableSourceMaps)
	if err != nil {
		var list parser.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			return errors.New(list[0].Message)
		}
	}
	return err
}
