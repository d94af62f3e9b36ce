package runtime

import (
	"encoding/binary"
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"
	"github.com/dop251/goja/token"
	"github.com/dop251/goja/unistring"

	"github.com/restls/restls/jsdepth"
	"github.com/restls/restls/runtime/dryrun"
)

// Coverage (dryrun.CoverageObserver). A run whose observer is a
// CoverageObserver and asks for statements counts in the program itself
// instead of calling out at each statement (a call into Go per statement
// costs ten times the statement): after the statement hooks are placed
// (statements.go), instrumentCoverage turns each into an increment of
// its counter in coverCounters, a Uint32Array over memory the runner
// reads when the run ends; it wraps each branch point so that the arm
// taken counts too (an if's or a conditional's test, the left side of
// &&, || and ??, which hand their value on unchanged) and starts each
// case of a switch with its arm's count. Branch points are numbered in
// the order of the walk, the same for the run and for CoverageMap.

// coverCounters is the array of counters the instrumented program
// increments: statements first, then each branch's arms. coverTemp holds
// a logical operator's left side between its test and its value (no
// script code runs between them). Both are parameters of the function
// the script is wrapped in, so the script reaches them as locals (a
// global is looked up by name at each use), and the runner passes the
// array in.
const (
	coverCounters = "__restls_cov"
	coverTemp     = "__restls_t"
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
	for _, b := range instrumentCoverage(prg, base, text, hooks) {
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

// instrumentCoverage makes prg, after instrumentStatements placed hooks
// (their offsets, in order), count: each hook becomes an increment of
// its statement's counter, and each branch point counts its arms after
// the statements' counters. It returns the branch points in order.
func instrumentCoverage(prg *ast.Program, base file.Idx, text string, hooks []file.Idx) []branchPoint {
	stmt := make(map[file.Idx]int, len(hooks))
	for i, h := range hooks {
		stmt[h] = i
	}
	next := len(hooks) // the next free counter
	if len(prg.Body) > 0 {
		if es, ok := prg.Body[0].(*ast.ExpressionStatement); ok {
			if fn, ok := es.Expression.(*ast.FunctionLiteral); ok && fn.ParameterList != nil {
				for _, name := range []string{coverCounters, coverTemp} {
					fn.ParameterList.List = append(fn.ParameterList.List, &ast.Binding{Target: &ast.Identifier{Name: unistring.String(name), Idx: 1}})
				}
			}
		}
	}
	var out []branchPoint
	add := func(at file.Idx, kind string, arms int) int {
		out = append(out, branchPoint{at, kind, arms})
		first := next
		next += arms
		return first
	}
	// mine are the conditionals made here, which the walk then meets.
	mine := map[*ast.ConditionalExpression]bool{}
	keep := func(e *ast.ConditionalExpression) ast.Expression {
		mine[e] = true
		return e
	}
	walkNodes(prg, maxCoverageWalk, func(n ast.Node) {
		switch s := n.(type) {
		case *ast.ExpressionStatement:
			if c, ok := s.Expression.(*ast.CallExpression); ok {
				if id, ok := c.Callee.(*ast.Identifier); ok && id.Name == statementHook && len(c.ArgumentList) == 1 {
					if i, ok := stmt[id.Idx]; ok {
						s.Expression = count(id.Idx, i)
					}
				}
			}
		case *ast.IfStatement:
			if at := start(s, text); at >= base && s.Test != nil {
				s.Test = keep(countTest(at, add(at, "if", 2), s.Test))
			}
		case *ast.ConditionalExpression:
			if at := s.Test.Idx0(); at >= base && !mine[s] {
				s.Test = keep(countTest(at, add(at, "?:", 2), s.Test))
			}
		case *ast.BinaryExpression:
			var op string
			switch s.Operator {
			case token.LOGICAL_AND:
				op = "&&"
			case token.LOGICAL_OR:
				op = "||"
			case token.COALESCE:
				op = "??"
			default:
				return
			}
			if at := operatorAt(text, s.Left.Idx1(), s.Right.Idx0(), op); at >= base {
				s.Left = keep(countLogical(at, add(at, op, 2), s.Operator, s.Left))
			}
		case *ast.SwitchStatement:
			if s.Switch < base || len(s.Body) == 0 {
				return
			}
			first := add(s.Switch, "switch", len(s.Body))
			for i, c := range s.Body {
				inc := &ast.ExpressionStatement{Expression: count(1, first+i)}
				c.Consequent = append([]ast.Statement{inc}, c.Consequent...)
			}
		}
	})
	return out
}

// count is coverCounters[i]++, placed at at.
func count(at file.Idx, i int) ast.Expression {
	return &ast.UnaryExpression{Operator: token.INCREMENT, Postfix: true, Idx: at,
		Operand: &ast.BracketExpression{Left: &ast.Identifier{Name: coverCounters, Idx: at}, LeftBracket: at, RightBracket: at,
			Member: &ast.NumberLiteral{Idx: at, Literal: strconv.Itoa(i), Value: int64(i)}}}
}

// countTest is test ? (counter first++, true) : (counter first+1++, false):
// an if or a conditional needs only the test's truth.
func countTest(at file.Idx, first int, test ast.Expression) *ast.ConditionalExpression {
	return &ast.ConditionalExpression{Test: test,
		Consequent: &ast.SequenceExpression{Sequence: []ast.Expression{count(at, first), &ast.BooleanLiteral{Idx: at, Literal: "true", Value: true}}},
		Alternate:  &ast.SequenceExpression{Sequence: []ast.Expression{count(at, first+1), &ast.BooleanLiteral{Idx: at, Literal: "false", Value: false}}}}
}

// countLogical is left, counted: arm 1 when op goes on to its right
// side, 0 when left decides; the value is left's.
func countLogical(at file.Idx, first int, op token.Token, left ast.Expression) *ast.ConditionalExpression {
	tmp := func() *ast.Identifier { return &ast.Identifier{Name: coverTemp, Idx: at} }
	var test ast.Expression = &ast.AssignExpression{Operator: token.ASSIGN, Left: tmp(), Right: left}
	right, decided := first+1, first // && goes on when left is truthy
	switch op {
	case token.LOGICAL_OR:
		right, decided = first, first+1 // the test is left's truth: || decides then
	case token.COALESCE:
		test = &ast.BinaryExpression{Operator: token.EQUAL, Left: test, Right: &ast.NullLiteral{Idx: at}}
		right, decided = first+1, first
	}
	return &ast.ConditionalExpression{Test: test,
		Consequent: &ast.SequenceExpression{Sequence: []ast.Expression{count(at, right), tmp()}},
		Alternate:  &ast.SequenceExpression{Sequence: []ast.Expression{count(at, decided), tmp()}}}
}

// maxCoverageWalk bounds walkNodes: it meets the hooks instrumentStatements
// placed too (four values a statement), so it goes further, for the
// statements of a program whose statement walk finished to be counted
// (a hook it leaves calls a no-op: the run goes on, the statement counts
// as not run).
const maxCoverageWalk = 8 * maxInstrumentWalk

// walkNodes calls f for each node of prg, parents before children, each
// node once, visiting at most limit values (iterative: a chain of a
// million terms is a tree a million deep); f may replace a node's
// children (the walk then goes into the new ones).
func walkNodes(prg *ast.Program, limit int, f func(ast.Node)) {
	stack := []reflect.Value{reflect.ValueOf(prg)}
	seen := map[uintptr]bool{}
	nodeType := reflect.TypeOf((*ast.Node)(nil)).Elem()
	pkg := reflect.TypeOf(ast.Program{}).PkgPath()
	for n := 0; len(stack) > 0 && n < limit; n++ {
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
	walkNodes(prg, maxCoverageWalk, func(n ast.Node) {
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

// coverRun says whether a run with opts counts coverage: its observer
// is a CoverageObserver (and no debugger's) and it asks for statements.
func coverRun(opts Options) bool {
	if !opts.Statements || opts.Observer == nil {
		return false
	}
	_, cover := opts.Observer.(dryrun.CoverageObserver)
	_, stack := opts.Observer.(dryrun.StackObserver)
	return cover && !stack
}

// coverProgram is what a coverage run's compiled program needs beside
// it to count (programs.go keeps it with the program).
type coverProgram struct {
	hooks []file.Idx
	arms  []int
}

// coverKey starts the cache key of a coverage run's program
// (programs.go), which differs from the plain program of the same text.
const coverKey = "coverage\x00"

// counters are a coverage run's counts, which the program increments
// in place.
type counters struct {
	buf   []byte
	hooks []file.Idx
	arms  []int // by branch point, how many arms
}

// newCounters is the array of c's counters, over c.buf, which the run
// passes to the script's wrapper as coverCounters.
func (r *runner) newCounters(c *counters) (goja.Value, error) {
	n := len(c.hooks)
	for _, a := range c.arms {
		n += a
	}
	c.buf = make([]byte, 4*n)
	return r.vm.New(r.vm.Get("Uint32Array"), r.vm.ToValue(r.vm.NewArrayBuffer(c.buf)))
}

// report is what the counters counted: the statements that ran, by
// place in src, and each branch point's arms.
func (c *counters) report(src string) dryrun.Coverage {
	at := func(i int) int { return int(binary.NativeEndian.Uint32(c.buf[4*i:])) }
	var out dryrun.Coverage
	starts := lineStarts(src)
	for i, h := range c.hooks {
		if n := at(i); n > 0 {
			line, column := place(starts, int(h)-1-len(prefix))
			out.Statements = append(out.Statements, dryrun.Count{Line: line, Column: column, Count: n})
		}
	}
	k := len(c.hooks)
	out.Arms = make([][]int, len(c.arms))
	for b, a := range c.arms {
		out.Arms[b] = make([]int, a)
		for j := range a {
			out.Arms[b][j] = at(k)
			k++
		}
	}
	return out
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
