package hints

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja/ast"
	gojatoken "github.com/dop251/goja/token"

	"github.com/restls/restls/config"
)

// The static worst case (issue 38): how long a script's calls may take
// at most, by the timeouts in force, without running it. Each exchange
// waits at most its connection timeout (connect and TLS handshake) and
// then its read timeout (config.TimeoutPair.Effective, the runtime's one
// rule). An OAuth call makes up to four exchanges: a token request (no
// token cached, or it is about to expire), the call, and on a 401 a new
// token request and the retry (runtime/restclient: token, send, 401,
// invalidate, token, send), each under the call's timeouts.
//
// This file holds the analysis and its figure, which the editor shows
// after the first line (WorstCase.Label, lsp's inlay hints); the hover
// is in worstcase_hover.go, the diagnostic in diagnose_worstcase.go.

// oauthExchanges is how many exchanges an OAuth call makes at most.
const oauthExchanges = 4

// worstTimesCap bounds how many times a call is counted when helpers call
// helpers: beyond it the figure says "at least".
const worstTimesCap = 1000

// WorstCall is one call as the worst case counts it.
type WorstCall struct {
	// Name is the call's name ("get"), NameRange where it is written.
	Name      string
	NameRange Range
	// ServiceID is the literal serviceId; "" with Dynamic for one computed
	// at run time (counted as OAuth when any service of the kind is).
	ServiceID string
	Dynamic   bool
	// OAuth: the service authenticates with OAuth (Exchanges is 4).
	OAuth bool
	// ConnectMs and ReadMs are the effective timeouts of one exchange;
	// Exchanges how many the call makes at most.
	ConnectMs, ReadMs, Exchanges int
	// Times is how often one run makes the call outside loops: more than
	// once when a function of the script holding it is called more than
	// once. InLoop: the call is in a loop, an array callback (forEach,
	// map, ...), or a function called from one or recursively; its time
	// is then per iteration.
	Times  int
	InLoop bool
}

// Ms is the call's worst case: Times × Exchanges × (connect + read).
func (c WorstCall) Ms() int64 {
	return int64(c.Times) * int64(c.Exchanges) * int64(c.ConnectMs+c.ReadMs)
}

// WorstCase is a script's static worst-case time.
type WorstCase struct {
	Kind config.Kind
	// OnceMs is what the calls outside loops take at most; PerIterationMs
	// what the calls inside loops take at most in one iteration of each
	// loop (0: no call is in a loop).
	OnceMs, PerIterationMs int64
	// AtLeast: a call is counted worstTimesCap times, and may run more.
	AtLeast bool
	// Calls are the calls counted, in source order. A call to a serviceId
	// the kind does not configure fails at once and is not counted.
	Calls []WorstCall
	// Limit is Display.TimeLimit (0: none).
	Limit time.Duration
}

// Total is what the limit is held against: the calls outside loops plus
// one iteration of each loop.
func (w WorstCase) Total() time.Duration {
	return time.Duration(w.OnceMs+w.PerIterationMs) * time.Millisecond
}

// Above reports whether the worst case is above the limit set.
func (w WorstCase) Above() bool { return w.Limit > 0 && w.Total() > w.Limit }

// Label is the one line the editor shows after the script's first line:
// "worst case 22 s", "worst case 11 s + 11 s per loop iteration".
func (w WorstCase) Label() string {
	s := "worst case " + w.figure()
	if w.Above() {
		s += " (above the " + msText(w.Limit.Milliseconds()) + " limit)"
	}
	return s
}

func (w WorstCase) figure() string {
	s := ""
	if w.AtLeast {
		s = "at least "
	}
	switch {
	case w.PerIterationMs == 0:
		return s + msText(w.OnceMs)
	case w.OnceMs == 0:
		return s + msText(w.PerIterationMs) + " per loop iteration"
	}
	return s + msText(w.OnceMs) + " + " + msText(w.PerIterationMs) + " per loop iteration"
}

// msText writes milliseconds as "500 ms", "11 s", "1.5 s" or "2 min 5 s".
func msText(ms int64) string {
	switch {
	case ms < 1000:
		return strconv.FormatInt(ms, 10) + " ms"
	case ms < 120000:
		return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) + " s"
	}
	s := strconv.FormatInt(ms/60000, 10) + " min"
	if r := (ms % 60000) / 1000; r > 0 {
		s += " " + strconv.FormatInt(r, 10) + " s"
	}
	return s
}

// FirstLine is the range of the script's first line, without its end:
// where the worst case is shown.
func FirstLine(text string) Range {
	end := strings.IndexAny(text, "\r\n")
	if end < 0 {
		end = len(text)
	}
	return Range{0, end}
}

// WorstCaseOf returns doc's static worst-case time for the kind of reg,
// with disp's TimeLimit; false when doc makes no call that counts (or
// reg is nil: no registry offers hints).
func WorstCaseOf(doc *Document, reg *config.Registry, disp Display) (w WorstCase, ok bool) {
	defer recovered()
	if doc == nil || reg == nil || !strings.Contains(doc.text, "v1") {
		return WorstCase{}, false
	}
	if m := doc.worst.Load(); m != nil && m.reg == reg {
		w = m.w
	} else {
		w = worstCase(doc, reg)
		doc.worst.Store(&worstMemo{reg: reg, w: w})
	}
	w.Limit = disp.TimeLimit
	return w, len(w.Calls) > 0
}

// worstMemo is a Document's worst case for reg (its Calls are shared:
// read only).
type worstMemo struct {
	reg *config.Registry
	w   WorstCase
}

// worstFunc is a function of the script, for the worst case: who calls
// it, from a loop or not. Index 0 is the script's top level.
type worstFunc struct {
	name string
	// callers are the edges into it: the calling function and whether
	// the call is in a loop there.
	callers []worstEdge
	// inPlace: an anonymous function run where it is written (an IIFE,
	// an array callback, a handler): its parent is its only caller.
	inPlace bool
	times   int
	loop    bool
}

type worstEdge struct {
	from int
	loop bool
}

// worstSpan is an open function or loop while walking.
type worstSpan struct {
	start, end int
	fn         int // the function index, -1 for a loop
}

// iterationMethods are the array methods whose callback runs once per
// element.
var iterationMethods = map[string]bool{"forEach": true, "map": true, "filter": true, "find": true, "findIndex": true,
	"findLast": true, "findLastIndex": true, "some": true, "every": true, "reduce": true, "reduceRight": true,
	"flatMap": true, "sort": true}

func worstCase(doc *Document, reg *config.Registry) WorstCase {
	out := WorstCase{Kind: reg.Kind}
	p := doc.parse()
	if p.body == nil {
		return out
	}
	text := doc.text
	t := reg.InForce()
	// Whether a serviceId computed at run time may name an OAuth service:
	// asked once, on the first such call.
	anyOAuth := sync.OnceValue(func() bool {
		for _, id := range reg.IDs() {
			if s, ok := reg.Service(id); ok && s.Auth.Type == config.AuthOAuth {
				return true
			}
		}
		return false
	})

	funcs := []worstFunc{{name: ""}}
	// By a function literal's start: its name, whether it is an array
	// callback, whether it is called where written. Made when first
	// written: most scripts have few functions.
	var names map[int]string
	var callbacks, invoked map[int]bool
	type named struct {
		name string
		from int
		loop bool
	}
	var calls []named // calls (and callback references) of names
	type apiCall struct {
		c    WorstCall
		fn   int
		loop bool
	}
	var apis []apiCall
	var stack []worstSpan

	// where is the innermost function around offset o and whether a loop
	// inside it holds o.
	where := func(o int) (fn int, loop bool) {
		// The walk goes in source order: a span that ends before o is
		// left behind. (Some nodes start at 0 in goja's tree, an if
		// statement for one: they leave nothing behind and match no span.)
		for len(stack) > 0 && stack[len(stack)-1].end <= o {
			stack = stack[:len(stack)-1]
		}
		for i := len(stack) - 1; i >= 0; i-- {
			if o < stack[i].start {
				continue
			}
			if stack[i].fn >= 0 {
				return stack[i].fn, loop
			}
			loop = true
		}
		return 0, loop
	}
	span := func(n ast.Node) (int, int) { return offsetOf(text, n.Idx0()), offsetOf(text, n.Idx1()) }

	walk(p.body, func(n ast.Node) {
		var start, end, fn int
		var loop bool
		switch n.(type) {
		case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral, *ast.CallExpression,
			*ast.ForStatement, *ast.ForInStatement, *ast.ForOfStatement, *ast.WhileStatement, *ast.DoWhileStatement:
			start, end = span(n)
			fn, loop = where(start)
		}
		if f, ok := functionOf(text, n); ok {
			if m, isMethod := n.(*ast.MethodDefinition); isMethod && m.Body != nil {
				f.r.Start = offsetOf(text, m.Body.Idx0())
			}
			if names == nil {
				names = map[int]string{}
			}
			names[f.r.Start] = f.name
		}
		switch n := n.(type) {
		case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral:
			name := names[start]
			wf := worstFunc{name: name}
			// Named functions are run by their calls; anonymous ones (and
			// callbacks written in place, named or not) where written.
			if name == "" || callbacks[start] || invoked[start] {
				wf.inPlace = true
				wf.callers = []worstEdge{{from: fn, loop: loop || callbacks[start]}}
			}
			funcs = append(funcs, wf)
			stack = append(stack, worstSpan{start, end, len(funcs) - 1})
		case *ast.ForStatement, *ast.ForInStatement, *ast.ForOfStatement, *ast.WhileStatement, *ast.DoWhileStatement:
			stack = append(stack, worstSpan{start, end, -1})
		case *ast.AssignExpression:
			// x = function () {} and obj.x = function () {}
			if name, _ := lastName(n.Left); name != "" && !isNil(n.Right) {
				switch r := n.Right.(type) {
				case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral:
					if s, _ := span(r); names[s] == "" {
						if names == nil {
							names = map[int]string{}
						}
						names[s] = name
					}
				}
			}
		case *ast.CallExpression:
			if name, ok := apiCallName(n.Callee); ok {
				if c, ok := worstAPICall(text, n, name, reg, t, anyOAuth); ok {
					apis = append(apis, apiCall{c, fn, loop})
				}
				return
			}
			last, dotted := lastName(n.Callee)
			iter := dotted && iterationMethods[last]
			for _, a := range n.ArgumentList {
				switch a := a.(type) {
				case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral:
					if iter {
						if callbacks == nil {
							callbacks = map[int]bool{}
						}
						s, _ := span(a)
						callbacks[s] = true
					}
				case *ast.Identifier:
					// A function of the script passed on: run once, or
					// per element by an array method.
					if a != nil {
						calls = append(calls, named{a.Name.String(), fn, loop || iter})
					}
				}
			}
			switch c := n.Callee.(type) {
			case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral:
				if invoked == nil {
					invoked = map[int]bool{}
				}
				s, _ := span(c)
				invoked[s] = true
			default:
				if last != "" {
					calls = append(calls, named{last, fn, loop})
				}
			}
		}
	})
	if len(apis) == 0 {
		return out
	}

	// The edges of calls by name; a named function nothing calls counts
	// once, from the top level (restls cannot tell that nothing does).
	byName := map[string][]int{}
	for i, f := range funcs {
		if f.name != "" && !f.inPlace {
			byName[f.name] = append(byName[f.name], i)
		}
	}
	for _, c := range calls {
		for _, f := range byName[c.name] {
			funcs[f].callers = append(funcs[f].callers, worstEdge{from: c.from, loop: c.loop})
		}
	}
	for i := 1; i < len(funcs); i++ {
		if len(funcs[i].callers) == 0 {
			funcs[i].callers = []worstEdge{{from: 0}}
		}
	}
	atLeast := worstTimes(funcs)

	for _, a := range apis {
		f := funcs[a.fn]
		a.c.Times = max(f.times, 1)
		a.c.InLoop = a.loop || f.loop
		if a.c.InLoop {
			out.PerIterationMs = satAdd(out.PerIterationMs, a.c.Ms())
		} else {
			out.OnceMs = satAdd(out.OnceMs, a.c.Ms())
		}
		out.Calls = append(out.Calls, a.c)
	}
	out.AtLeast = atLeast
	return out
}

// worstTimes sets each function's times (how often one run calls it,
// outside loops, at most worstTimesCap) and loop (it runs in a loop, or
// recursion reaches it), in the order of the call graph's strongly
// connected components; it reports whether a count was capped.
func worstTimes(funcs []worstFunc) (capped bool) {
	callees := make([][]int, len(funcs))
	for i, f := range funcs {
		for _, e := range f.callers {
			callees[e.from] = append(callees[e.from], i)
		}
	}
	comp := sccs(callees)
	// sccs lists components callees first: walk them backwards, callers
	// first.
	member := make([]int, len(funcs))
	for ci, c := range comp {
		for _, v := range c {
			member[v] = ci
		}
	}
	funcs[0].times = 1
	for ci := len(comp) - 1; ci >= 0; ci-- {
		c := comp[ci]
		recursive := len(c) > 1
		for _, v := range c {
			for _, e := range funcs[v].callers {
				if e.from == v {
					recursive = true
				}
			}
		}
		for _, v := range c {
			if v == 0 {
				continue
			}
			f := &funcs[v]
			f.loop = recursive
			times := 0
			for _, e := range f.callers {
				if member[e.from] == ci {
					continue
				}
				from := funcs[e.from]
				f.loop = f.loop || e.loop || from.loop
				times += from.times
				if times > worstTimesCap {
					times, capped = worstTimesCap, true
				}
			}
			f.times = max(times, 1)
		}
	}
	return capped
}

// sccs returns the strongly connected components of the graph, each
// after every component it reaches (Tarjan's order), without recursion.
func sccs(next [][]int) [][]int {
	n := len(next)
	index, low := make([]int, n), make([]int, n)
	on := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var out [][]int
	var st []int
	counter := 0
	type frame struct{ v, i int }
	for root := 0; root < n; root++ {
		if index[root] >= 0 {
			continue
		}
		work := []frame{{root, 0}}
		index[root], low[root] = counter, counter
		counter++
		st = append(st, root)
		on[root] = true
		for len(work) > 0 {
			f := &work[len(work)-1]
			if f.i < len(next[f.v]) {
				w := next[f.v][f.i]
				f.i++
				if index[w] < 0 {
					index[w], low[w] = counter, counter
					counter++
					st = append(st, w)
					on[w] = true
					work = append(work, frame{w, 0})
				} else if on[w] {
					low[f.v] = min(low[f.v], index[w])
				}
				continue
			}
			v := f.v
			work = work[:len(work)-1]
			if len(work) > 0 {
				p := work[len(work)-1].v
				low[p] = min(low[p], low[v])
			}
			if low[v] == index[v] {
				var c []int
				for {
					w := st[len(st)-1]
					st = st[:len(st)-1]
					on[w] = false
					c = append(c, w)
					if w == v {
						break
					}
				}
				out = append(out, c)
			}
		}
	}
	return out
}

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// lastName is the name after the last dot of a callee ("c" of a.b.c or
// f().c), and whether there is a dot; a plain name's own; "" for any
// other expression. It allocates nothing (dotChain does), as it runs on
// every call of every script checked.
func lastName(e ast.Expression) (string, bool) {
	switch x := e.(type) {
	case *ast.DotExpression:
		if x != nil {
			return x.Identifier.Name.String(), true
		}
	case *ast.Identifier:
		if x != nil {
			return x.Name.String(), false
		}
	}
	return "", false
}

// apiCallName is the name of an api.rest.v1.<name> callee.
func apiCallName(e ast.Expression) (string, bool) {
	d, ok := e.(*ast.DotExpression)
	if !ok || d == nil {
		return "", false
	}
	v1, ok := d.Left.(*ast.DotExpression)
	if !ok || v1 == nil || v1.Identifier.Name != "v1" {
		return "", false
	}
	rest, ok := v1.Left.(*ast.DotExpression)
	if !ok || rest == nil || rest.Identifier.Name != "rest" {
		return "", false
	}
	api, ok := rest.Left.(*ast.Identifier)
	if !ok || api == nil || api.Name != "api" {
		return "", false
	}
	return d.Identifier.Name.String(), true
}

// worstAPICall is one api.rest.v1 call's worst case; false when it makes
// no exchange (an unknown call or serviceId, a refused TIMEOUTS).
func worstAPICall(text string, call *ast.CallExpression, name string, reg *config.Registry, t config.Timeouts, anyOAuth func() bool) (WorstCall, bool) {
	ci := callIndex(name)
	if ci < 0 || len(call.ArgumentList) <= argServiceID {
		return WorstCall{}, false
	}
	id := call.ArgumentList[argServiceID]
	c := WorstCall{Name: name, Exchanges: 1}
	start := offsetOf(text, call.Callee.(*ast.DotExpression).Identifier.Idx)
	c.NameRange = Range{start, min(start+len(name), len(text))}
	if s, ok := id.(*ast.StringLiteral); ok && s != nil {
		svc, ok := reg.Service(s.Value.String())
		if !ok {
			return WorstCall{}, false // fails at once
		}
		c.ServiceID = svc.ID
		c.OAuth = svc.Auth.Type == config.AuthOAuth
	} else {
		c.Dynamic, c.OAuth = true, anyOAuth()
	}
	if c.OAuth {
		c.Exchanges = oauthExchanges
	}
	c.ConnectMs, c.ReadMs = t.Connection.Default, t.Read.Default
	ti := len(calls[ci].Params) - 1 // TIMEOUTS is the last parameter
	args := call.ArgumentList
	for _, a := range args {
		if _, spread := a.(*ast.SpreadElement); spread {
			c.ConnectMs, c.ReadMs = t.Connection.Maximum, t.Read.Maximum
			return c, true
		}
	}
	if len(args) <= ti || isNil(args[ti]) {
		return c, true
	}
	switch a := args[ti].(type) {
	case *ast.NullLiteral:
		return c, true
	case *ast.ObjectLiteral:
		for _, p := range a.Value {
			key, _ := propKey(p)
			var pair config.TimeoutPair
			var dst *int
			switch key {
			case keyConnectionTimeout:
				pair, dst = t.Connection, &c.ConnectMs
			case keyReadTimeout:
				pair, dst = t.Read, &c.ReadMs
			default:
				if _, plain := p.(*ast.PropertyKeyed); !plain || key == "" {
					// A spread or a computed key: any value.
					c.ConnectMs, c.ReadMs = t.Connection.Maximum, t.Read.Maximum
				}
				continue
			}
			pk, ok := p.(*ast.PropertyKeyed)
			if !ok || pk == nil {
				*dst = pair.Maximum
				continue
			}
			switch v := pk.Value.(type) {
			case *ast.UnaryExpression:
				if _, num := v.Operand.(*ast.NumberLiteral); num && v.Operator == gojatoken.MINUS {
					return WorstCall{}, false // negative: refused before any exchange
				}
				*dst = pair.Maximum
			case *ast.NumberLiteral:
				f, ok := numberValue(v)
				if !ok || f <= 0 || f != math.Trunc(f) || f > math.MaxInt32 {
					return WorstCall{}, false // refused before any exchange
				}
				*dst, _ = pair.Effective(int(f))
			case *ast.Identifier:
				if v != nil && v.Name == "undefined" {
					continue
				}
				*dst = pair.Maximum
			default:
				*dst = pair.Maximum
			}
		}
	default:
		// Built at run time: any value up to the maximum.
		c.ConnectMs, c.ReadMs = t.Connection.Maximum, t.Read.Maximum
	}
	return c, true
}

func numberValue(n *ast.NumberLiteral) (float64, bool) {
	if n == nil {
		return 0, false
	}
	switch x := n.Value.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}
