package runtime

import (
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
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
func instrumentStatements(prg *ast.Program, base file.Idx, text string) {
	stack := []reflect.Value{reflect.ValueOf(prg)}
	seen := map[uintptr]bool{}
	nodeType := reflect.TypeOf((*ast.Node)(nil)).Elem()
	pkg := reflect.TypeOf(ast.Program{}).PkgPath()
	for n := 0; len(stack) > 0 && n < maxInstrumentWalk; n++ {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch v.Kind() {
		case reflect.Interface:
			if !v.IsNil() {
				stack = append(stack, v.Elem())
			}
			continue
		case reflect.Slice:
			for i := v.Len() - 1; i >= 0; i-- {
				stack = append(stack, v.Index(i))
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
			case *ast.BlockStatement:
				s.List = withHooks(s.List, base, text)
			case *ast.CaseStatement:
				s.Consequent = withHooks(s.Consequent, base, text)
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
				s.Body = asBlock(s.Body, base)
			case *ast.ForInStatement:
				s.Body = asBlock(s.Body, base)
			case *ast.ForOfStatement:
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
					stack = append(stack, f)
				}
			}
		}
	}
}

// withHooks is list with a hook call before each statement of the
// script.
func withHooks(list []ast.Statement, base file.Idx, text string) []ast.Statement {
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
				out = append(out, hookCall(at))
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

// hookCall is statementHook(at), placed at at.
func hookCall(at file.Idx) ast.Statement {
	return &ast.ExpressionStatement{Expression: &ast.CallExpression{
		Callee:           &ast.Identifier{Name: statementHook, Idx: at},
		LeftParenthesis:  at,
		ArgumentList:     []ast.Expression{&ast.NumberLiteral{Idx: at, Literal: strconv.Itoa(int(at)), Value: int64(at)}},
		RightParenthesis: at,
	}}
}

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

// installStatementHook defines statementHook, which hands the place of
// the statement at offset (a file.Idx of the wrapped source) to the
// observer as a line and a 1-based byte column of src.
func (r *runner) installStatementHook(src string) error {
	starts := lineStarts(src)
	obs := r.opts.Observer
	return r.vm.Set(statementHook, func(call goja.FunctionCall) goja.Value {
		off := int(call.Argument(0).ToInteger()) - 1 - len(prefix)
		if off < 0 || off > len(src) {
			return goja.Undefined()
		}
		line := sort.Search(len(starts), func(i int) bool { return starts[i] > off })
		obs.Statement(line, off-starts[line-1]+1)
		return goja.Undefined()
	})
}
