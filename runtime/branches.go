package runtime

import (
	"errors"
	"reflect"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"
	"github.com/dop251/goja/token"

	"github.com/restls/restls/jsdepth"
	"github.com/restls/restls/runtime/dryrun"
)

// Branches and call sites (coverage, dryrun.CoverageObserver). A run
// whose observer is a CoverageObserver and asks for statements gets,
// after the statement hooks (statements.go), a call to branchHook at
// each branch point: an if's or a conditional's test and the left side
// of &&, || and ?? are wrapped, and hand their value back unchanged;
// each case of a switch starts with one. The hook says which arm the
// run takes; branch points are numbered in the order of one walk, the
// same for the run and for CoverageMap, so that a number names the same
// branch in both.

// branchHook is the global the instrumented program calls for branches.
const branchHook = "__restls_branch"

// Kinds of branch point, as branchHook's second argument.
const (
	branchTest    = iota // if and ?: test: arm 0 taken when truthy, 1 else
	branchAnd            // &&: arm 1 when the right side is evaluated
	branchOr             // ||
	branchNullish        // ??
	branchCase           // switch: arm is the case's index
)

// Branch is one branch point of a script: where it is (1-based, byte
// column), what it is ("if", "?:", "&&", "||", "??", "switch") and how
// many arms it has.
type Branch struct {
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Kind   string `json:"kind"`
	Arms   int    `json:"arms"`
}

// CallSite is an api.rest.v1 call written in a script: where its callee
// starts and its method (get, post...).
type CallSite struct {
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Method string `json:"method"`
	// ServiceID is the serviceId when the call writes it as a string.
	ServiceID string `json:"serviceId,omitempty"`
	// paren is its "(": where a run says the call was made.
	paren Position
}

// CallSiteAt is the index of the call site a run made a call from
// (dryrun.CoverageObserver.CallSite's place), false when none is there
// (a call through a name of the script's own: rest.get).
func (m *CoverageMap) CallSiteAt(line, column int) (int, bool) {
	for i, s := range m.CallSites {
		if s.paren == (Position{line, column}) {
			return i, true
		}
	}
	return 0, false
}

// Position is a place in a script, 1-based, byte column.
type Position struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// CoverageMap is what a run with coverage can reach in a script: its
// statements (dryrun.Observer.Statement's places, in walk order), its
// branch points (dryrun.CoverageObserver.Branch's numbers index them)
// and its api.rest.v1 call sites.
type CoverageMap struct {
	Statements []Position
	Branches   []Branch
	CallSites  []CallSite
}

// NewCoverageMap is src's coverage map; a script that does not parse
// has none, and the parser's error.
func NewCoverageMap(src string) (*CoverageMap, error) {
	src = strings.TrimPrefix(src, "\uFEFF")
	if d := jsdepth.Check(src, jsdepth.Max); !d.OK() {
		return nil, errors.New(tooDeepError(src, d).Message)
	}
	text := prefix + src + "\n})"
	prg, err := parser.ParseFile(nil, "", text, 0, parser.WithDisableSourceMaps)
	if err != nil {
		return nil, err
	}
	base := file.Idx(len(prefix) + 1)
	starts := lineStarts(src)
	at := func(off file.Idx) Position {
		l, c := place(starts, int(off)-1-len(prefix))
		return Position{l, c}
	}
	positionLoops(prg)
	hooks, _ := instrumentStatements(prg, base, text, false)
	m := &CoverageMap{}
	for _, h := range hooks {
		m.Statements = append(m.Statements, at(h))
	}
	for _, b := range instrumentBranches(prg, base, text) {
		p := at(b.at)
		m.Branches = append(m.Branches, Branch{Line: p.Line, Column: p.Column, Kind: b.kind, Arms: b.arms})
	}
	for _, s := range callSites(prg, base) {
		p := at(s.at)
		m.CallSites = append(m.CallSites, CallSite{Line: p.Line, Column: p.Column, Method: s.method, ServiceID: s.service, paren: at(s.paren)})
	}
	return m, nil
}

// branchPoint is a branch point as the walk finds it.
type branchPoint struct {
	at   file.Idx
	kind string
	arms int
}

// instrumentBranches wraps each branch point of prg (after
// instrumentStatements) in a call to branchHook with its number, and
// returns them in that order. Nodes it adds sit at the branch point, and
// its statements before the script (offset 1), which no statement hook
// follows.
func instrumentBranches(prg *ast.Program, base file.Idx, text string) []branchPoint {
	var out []branchPoint
	add := func(at file.Idx, kind string, arms int) int {
		out = append(out, branchPoint{at, kind, arms})
		return len(out) - 1
	}
	walkNodes(prg, func(n ast.Node) {
		switch s := n.(type) {
		case *ast.IfStatement:
			if at := start(s, text); at >= base && s.Test != nil {
				s.Test = branchCall(at, add(at, "if", 2), branchTest, s.Test)
			}
		case *ast.ConditionalExpression:
			if at := s.Test.Idx0(); at >= base {
				s.Test = branchCall(at, add(at, "?:", 2), branchTest, s.Test)
			}
		case *ast.BinaryExpression:
			kind, op := 0, ""
			switch s.Operator {
			case token.LOGICAL_AND:
				kind, op = branchAnd, "&&"
			case token.LOGICAL_OR:
				kind, op = branchOr, "||"
			case token.COALESCE:
				kind, op = branchNullish, "??"
			default:
				return
			}
			at := operatorAt(text, s.Left.Idx1(), s.Right.Idx0(), op)
			if at >= base {
				s.Left = branchCall(at, add(at, op, 2), kind, s.Left)
			}
		case *ast.SwitchStatement:
			if s.Switch < base || len(s.Body) == 0 {
				return
			}
			id := add(s.Switch, "switch", len(s.Body))
			for i, c := range s.Body {
				hook := &ast.ExpressionStatement{Expression: branchCall(1, id, branchCase, &ast.NumberLiteral{Idx: 1, Literal: "0", Value: int64(i)})}
				c.Consequent = append([]ast.Statement{hook}, c.Consequent...)
			}
		}
	})
	return out
}

// operatorAt is where op is between from and to in text (a file.Idx),
// 0 when it is not there.
func operatorAt(text string, from, to file.Idx, op string) file.Idx {
	lo, hi := int(from)-1, int(to)-1
	if lo < 0 || hi > len(text) || lo > hi {
		return 0
	}
	i := strings.Index(text[lo:hi], op)
	if i < 0 {
		return 0
	}
	return file.Idx(lo + i + 1)
}

// branchCall is branchHook(id, kind, x), placed at at.
func branchCall(at file.Idx, id, kind int, x ast.Expression) *ast.CallExpression {
	num := func(v int) ast.Expression { return &ast.NumberLiteral{Idx: at, Literal: "0", Value: int64(v)} }
	return &ast.CallExpression{Callee: &ast.Identifier{Name: branchHook, Idx: at}, LeftParenthesis: at,
		ArgumentList: []ast.Expression{num(id), num(kind), x}, RightParenthesis: at}
}

// walkNodes calls f for each node of prg, parents before children, each
// node once, at most maxInstrumentWalk of them; f may replace a node's
// children (the walk then goes into the new ones).
func walkNodes(prg *ast.Program, f func(ast.Node)) {
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
			f(v.Interface().(ast.Node))
		}
		s := v.Elem()
		for i := s.NumField() - 1; i >= 0; i-- {
			switch fv := s.Field(i); fv.Kind() {
			case reflect.Interface, reflect.Slice, reflect.Pointer:
				if s.Type().Field(i).IsExported() {
					stack = append(stack, fv)
				}
			}
		}
	}
}

// siteAt is an api.rest.v1 call as the walk finds it.
type siteAt struct {
	at, paren       file.Idx
	method, service string
}

// callSites are the calls api.rest.v1.METHOD(...) written in prg, in
// walk order.
func callSites(prg *ast.Program, base file.Idx) []siteAt {
	var out []siteAt
	walkNodes(prg, func(n ast.Node) {
		c, ok := n.(*ast.CallExpression)
		if !ok {
			return
		}
		d, ok := c.Callee.(*ast.DotExpression)
		if !ok || !isRESTv1(d.Left) {
			return
		}
		switch m := string(d.Identifier.Name); m {
		case "get", "post", "put", "patch", "delete":
			if at := c.Callee.Idx0(); at >= base {
				st := siteAt{at: at, paren: c.LeftParenthesis, method: m}
				if len(c.ArgumentList) > 0 {
					if lit, ok := c.ArgumentList[0].(*ast.StringLiteral); ok {
						st.service = string(lit.Value)
					}
				}
				out = append(out, st)
			}
		}
	})
	return out
}

// isRESTv1 says whether e is api.rest.v1.
func isRESTv1(e ast.Expression) bool {
	for _, name := range []string{"v1", "rest"} {
		d, ok := e.(*ast.DotExpression)
		if !ok || string(d.Identifier.Name) != name {
			return false
		}
		e = d.Left
	}
	id, ok := e.(*ast.Identifier)
	return ok && id.Name == "api"
}

// installBranchHook defines branchHook for obs: it tells obs the arm the
// run takes at each branch point and hands the value on.
func (r *runner) installBranchHook(obs dryrun.CoverageObserver) error {
	return r.vm.Set(branchHook, func(call goja.FunctionCall) goja.Value {
		id := int(call.Argument(0).ToInteger())
		v := call.Argument(2)
		arm := 0
		switch call.Argument(1).ToInteger() {
		case branchTest:
			if !v.ToBoolean() {
				arm = 1
			}
		case branchAnd:
			if v.ToBoolean() {
				arm = 1
			}
		case branchOr:
			if !v.ToBoolean() {
				arm = 1
			}
		case branchNullish:
			if goja.IsUndefined(v) || goja.IsNull(v) {
				arm = 1
			}
		case branchCase:
			arm = int(v.ToInteger())
			v = goja.Undefined()
		}
		obs.Branch(id, arm)
		return v
	})
}

// callSite is where the script made the api.rest.v1 call now running:
// the innermost frame of the script, 0, 0 when there is none.
func (r *runner) callSite() (line, column int) {
	var buf [4]goja.StackFrame
	for _, f := range r.vm.CaptureCallStack(len(buf), buf[:0]) {
		if f.SrcName() != r.opts.Filename {
			continue
		}
		p := f.Position()
		line, column = p.Line, p.Column
		if line == 1 {
			column -= len(prefix)
		}
		return line, column
	}
	return 0, 0
}
