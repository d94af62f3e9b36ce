package hints

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja/ast"
	jstoken "github.com/dop251/goja/token"

	"github.com/restls/restls/openapi"
)

// The flow of answer types through a script (issue 38): where the answer
// of an api.rest.v1 call goes. The analysis is syntactic and
// flow-insensitive: a variable's type is the union of everything
// assigned to it anywhere in its scope (branches, loops and reassignment
// alike), a parameter's the union of the arguments passed to it, a
// function's result the union of its return values. A type is symbolic,
// an origin (the answer of call k, the exception of call k, a function of
// the script) and a path from it ("body", "items", "[]"), so the analysis
// needs no API description: completion, hover, definition and the
// diagnostics resolve the path against the description (or the recorded
// answers) they are given, and the one analysis per document version
// serves them all (Document.flow).
//
// It follows variables, reassignment, destructuring, property reads and
// element reads, array callbacks (forEach, map, filter, find, some,
// every, reduce ...), for and for...of loops, functions declared in the
// script (arguments to parameters, returns to callers, recursion) and
// branches; the catch parameter of a try that calls a service is that
// call's exception. It does not follow anything across scripts, object
// literals and spread, `this`, classes, getters, or values stored in
// object properties (docs/decisions.md, "Answer types").

// Bounds of one analysis (docs/decisions.md, "Answer types"): past one,
// what is known so far is kept and the rest is not followed.
const (
	flowMaxUnion  = 8       // types one value may have at once
	flowMaxDepth  = 16      // steps of a path from its origin
	flowMaxPasses = 8       // passes to a fixed point
	flowMaxWork   = 4 << 20 // node visits, all passes together
	// flowMaxTime bounds the wall time of one analysis on a machine so
	// loaded that the work bound takes longer; the work bound is what
	// normally ends a long one, the same on every machine.
	flowMaxTime = time.Second
)

// okind is what a type starts from.
type okind uint8

const (
	oResponse  okind = iota + 1 // the answer of call id
	oException                  // the exception of call id (-1: of some call)
	oFunc                       // function id of the script
)

// tpath is a path from an origin, interned per analysis: equal paths are
// one pointer.
type tpath struct {
	parent *tpath
	step   string // a property name, "[]" (an element) or "<arr>" (an array of the parent)
	n      int    // steps from the origin
}

// steps returns the path's steps, origin first.
func (p *tpath) steps() []string {
	if p == nil {
		return nil
	}
	out := make([]string, p.n)
	for q := p; q != nil; q = q.parent {
		out[q.n-1] = q.step
	}
	return out
}

// ftype is one type: an origin and a path from it.
type ftype struct {
	o  okind
	id int32
	p  *tpath
}

// tset is the union of the types a value may have. mixed marks a value
// that may also be something else (a literal, the result of a function
// restls does not know): completion still offers what is known, the
// diagnostics say nothing.
type tset struct {
	ts    []ftype
	mixed bool
}

var mixedT = tset{mixed: true}

func (t tset) empty() bool { return len(t.ts) == 0 }

// add adds o to t and reports whether t grew.
func (t *tset) add(o tset) bool {
	grew := false
	if o.mixed && !t.mixed {
		t.mixed, grew = true, true
	}
	for _, x := range o.ts {
		found := false
		for _, y := range t.ts {
			if x == y {
				found = true
				break
			}
		}
		if found {
			continue
		}
		if len(t.ts) >= flowMaxUnion {
			if !t.mixed {
				t.mixed, grew = true, true
			}
			continue
		}
		t.ts = append(t.ts, x)
		grew = true
	}
	return grew
}

func union(a, b tset) tset {
	var out tset
	out.add(a)
	out.add(b)
	return out
}

// flowResult is what one analysis keeps: small, and no syntax tree, so
// that it outlives the tree (the language server drops trees).
type flowResult struct {
	text     string
	calls    []flowCall
	bindings []fbinding
	scopes   []fscope // in the order they open: a scope comes after the one it is in
	names    map[scopeName]int32
	reads    []cread // by start
	// results are the calls' results by the end of the call (its ')'),
	// typed or not, and the elements read with a computed index, by
	// their ']': completion after `f().`, `a.find(...).` and
	// `a[i + 1].`, where no name starts the chain.
	results []cresult
	sets    []tset // the types reads and results refer to, each once
	cmps    []fcmp
	// stopped says a bound ended the analysis early.
	stopped bool
	// ops are the operations of calls for one set of descriptions.
	ops atomic.Pointer[callOps]
}

// callOps are the operations (and descriptions) of a result's calls
// against one set of descriptions, made once.
type callOps struct {
	apis *openapi.Set
	op   []*openapi.Operation
	idx  []*openapi.Index
}

// opOf returns the operation call k addresses with disp's descriptions.
func (r *flowResult) opOf(k int32, disp Display) (*openapi.Operation, *openapi.Index) {
	if k < 0 || int(k) >= len(r.calls) {
		return nil, nil
	}
	c := r.ops.Load()
	if c == nil || c.apis != disp.APIs {
		c = &callOps{apis: disp.APIs, op: make([]*openapi.Operation, len(r.calls)), idx: make([]*openapi.Index, len(r.calls))}
		for i, fc := range r.calls {
			c.op[i], c.idx[i] = operationOf(r.text, fc.call, fc.open, disp, true)
		}
		r.ops.Store(c)
	}
	return c.op[k], c.idx[k]
}

// flowCall is one api.rest.v1 call: which, and where its '(' is.
type flowCall struct {
	call int // index in calls
	open int
}

type fbinding struct {
	name string
	t    tset
}

type fscope struct {
	start, end int
	parent     int32
}

// scopeName is a name declared in a scope (one map for all scopes: most
// scopes declare a name or two).
type scopeName struct {
	sc   int32
	name string
}

// fread is a typed name in the script: a variable read or a property read
// (prop), with the type of what it is read from (base).
type fread struct {
	rng  Range
	name string
	prop bool
	base tset
	t    tset
}

// fresult is a call's result while the analysis runs.
type fresult struct {
	end int
	t   tset
}

// cread is an fread as a result keeps it: small (a script has a read
// every few tokens, and an editor keeps the results of its open
// documents).
type cread struct {
	start, end int32
	base, t    int32 // in sets
	prop       bool
}

// cresult is a call's result as a result keeps it.
type cresult struct {
	end int32
	t   int32 // in sets
}

// resultAt returns the types of the call that ends at end, and whether a
// call ends there.
func (r *flowResult) resultAt(end int) (tset, bool) {
	if r == nil {
		return tset{}, false
	}
	i := sort.Search(len(r.results), func(i int) bool { return int(r.results[i].end) >= end })
	if i < len(r.results) && int(r.results[i].end) == end {
		return r.sets[r.results[i].t], true
	}
	return tset{}, false
}

// readEndingAt returns the types of the read that ends at end (the name
// before the ')' of `(r.body)`).
func (r *flowResult) readEndingAt(end int) (tset, bool) {
	if r == nil {
		return tset{}, false
	}
	// Reads are sorted by start and names do not nest: the one ending at
	// end starts before it, and is the last one starting before it.
	i := sort.Search(len(r.reads), func(i int) bool { return int(r.reads[i].start) >= end })
	if i > 0 && int(r.reads[i-1].end) == end {
		return r.sets[r.reads[i-1].t], true
	}
	return tset{}, false
}

// read expands the i-th read.
func (r *flowResult) read(i int) fread {
	c := r.reads[i]
	return fread{rng: Range{int(c.start), int(c.end)}, name: r.text[c.start:c.end], prop: c.prop, base: r.sets[c.base], t: r.sets[c.t]}
}

// fcmp is a comparison of a typed value with a number literal.
type fcmp struct {
	rng   Range // the number
	value string
	t     tset
}

// flowOf returns the document's analysis, computing it once.
func (d *Document) flow() *flowResult {
	if d == nil {
		return nil
	}
	if r := d.flowRes.Load(); r != nil {
		return r
	}
	d.flowMu.Lock()
	defer d.flowMu.Unlock()
	if r := d.flowRes.Load(); r != nil {
		return r
	}
	var r *flowResult
	if strings.Contains(d.text, "api.rest.v1") {
		r = analyze(d.text, d.parse())
	} else {
		r = &flowResult{text: d.text} // nothing to follow: no parse
	}
	d.flowRes.Store(r)
	return r
}

// flowReady returns the document's analysis if it is computed, else nil.
func (d *Document) flowReady() *flowResult {
	if d == nil {
		return nil
	}
	return d.flowRes.Load()
}

// flowBase is an analysis of an earlier version of a document, and how
// the two texts differ: they share text[:pre] and the last suf bytes.
type flowBase struct {
	res *flowResult
	pre int
	suf int
	// grow is len(new text) - len(old text).
	grow int
}

// toBase maps an offset of the new text to the old one: the changed part
// maps to where it starts.
func (b *flowBase) toBase(o int) int {
	if o <= b.pre {
		return o
	}
	newLen := len(b.res.text) + b.grow
	if o >= newLen-b.suf {
		return o - b.grow
	}
	return b.pre
}

// fromBase maps a range of the old text to the new one; ok false when it
// touches the change.
func (b *flowBase) fromBase(r Range) (Range, bool) {
	oldLen := len(b.res.text)
	switch {
	case r.End <= b.pre:
		return r, true
	case r.Start >= oldLen-b.suf:
		return Range{r.Start + b.grow, r.End + b.grow}, true
	}
	return Range{}, false
}

// Next returns the document of a new version of d's script, text: until
// its own analysis of answer types is computed, completion uses d's (or
// the latest analysis d had), so that a keystroke in a long script does
// not wait for a parse, and a half-typed line (which does not parse)
// still completes.
func (d *Document) Next(text string) *Document {
	n := NewDocument(text)
	if d == nil {
		return n
	}
	res := d.flowReady()
	if res == nil || !res.parsed() {
		if d.base == nil {
			return n
		}
		res = d.base.res
	}
	pre := 0
	for pre < len(text) && pre < len(res.text) && text[pre] == res.text[pre] {
		pre++
	}
	suf := 0
	for suf < len(text)-pre && suf < len(res.text)-pre && text[len(text)-1-suf] == res.text[len(res.text)-1-suf] {
		suf++
	}
	n.base = &flowBase{res: res, pre: pre, suf: suf, grow: len(text) - len(res.text)}
	return n
}

// Unparsed returns d without its syntax tree (which takes about 1 MB per
// 1,000 lines), keeping what was computed from it for the hints.
func (d *Document) Unparsed() *Document {
	n := NewDocument(d.Text())
	if d == nil {
		return n
	}
	if w := d.worst.Load(); w != nil {
		n.worst.Store(w) // the worst case needs no tree once made
	}
	if r := d.flowReady(); r != nil {
		n.flowRes.Store(r)
		if r.parsed() {
			return n // its own analysis: the earlier version's text can go
		}
	}
	n.base = d.base
	return n
}

// parsed reports whether the analysis saw a script (it parsed).
func (r *flowResult) parsed() bool { return r != nil && (len(r.scopes) > 0) }

// flowForCompletion returns the analysis completion uses at offset and
// offset in its text: the document's own if computed, else the earlier
// version's (Next), else, when make is set, the document's own made now
// (a parse: the first completion of a document not diagnosed yet).
func (d *Document) flowForCompletion(offset int, make bool) (*flowResult, int) {
	if r := d.flowReady(); r != nil && r.parsed() {
		return r, offset
	}
	if d.base != nil {
		return d.base.res, d.base.toBase(offset)
	}
	if !make {
		return nil, offset
	}
	return d.flow(), offset
}

// flowForRead returns the analysis hover and definition use, and a
// function mapping its ranges to the document's: the document's own when
// it parses, else the earlier version's.
func (d *Document) flowForRead() (*flowResult, func(Range) (Range, bool)) {
	if r := d.flow(); r.parsed() || d.base == nil {
		return r, func(r Range) (Range, bool) { return r, true }
	}
	return d.base.res, d.base.fromBase
}

// lookup returns the types of variable name as seen at offset.
func (r *flowResult) lookup(name string, offset int) (tset, bool) {
	if r == nil {
		return tset{}, false
	}
	sc := int32(-1)
	for i := len(r.scopes) - 1; i >= 0; i-- {
		if s := &r.scopes[i]; s.start <= offset && offset <= s.end {
			sc = int32(i)
			break
		}
	}
	for sc >= 0 {
		if b, ok := r.names[scopeName{sc, name}]; ok {
			return r.bindings[b].t, true
		}
		sc = r.scopes[sc].parent
	}
	return tset{}, false
}

// readAt returns the typed name whose range holds offset.
func (r *flowResult) readAt(offset int, mapRange func(Range) (Range, bool)) (fread, Range, bool) {
	if r == nil {
		return fread{}, Range{}, false
	}
	// reads are sorted by start; ranges of names do not nest.
	for i := sort.Search(len(r.reads), func(i int) bool { return int(r.reads[i].end) >= offset }); i < len(r.reads); i++ {
		rd := r.read(i)
		rng, ok := mapRange(rd.rng)
		if !ok {
			continue
		}
		if rng.Start > offset {
			break
		}
		if rng.Start <= offset && offset <= rng.End && !rd.t.empty() {
			return rd, rng, true
		}
	}
	return fread{}, Range{}, false
}

// analyzer computes a flowResult.
type analyzer struct {
	res      *flowResult
	text     string
	paths    map[pathKey]*tpath
	scopeOf  map[int]int32 // by the node's start: two scopes never start at one offset
	resolved map[*ast.Identifier]int32
	funcOf   map[int]int32 // by the function's start
	funcs    []ffunc
	callOf   map[*ast.CallExpression]int32
	singles  map[ftype][]ftype // one-type sets, shared (cap 1: add copies)
	reads    []fread           // of the last pass, compacted into the result
	results  []fresult         // of the last pass, compacted into the result
	tryOf    map[*ast.TryStatement]tset
	cur      int32 // current scope
	fn       int32 // current function, -1 at the top
	changed  bool
	work     int
	deadline time.Time
	record   bool
}

type pathKey struct {
	parent *tpath
	step   string
}

type ffunc struct {
	params []tset
	ret    tset
	api    bool // it calls a service itself
}

// analyzePool recycles the analyzers' maps: an analysis runs for every
// diagnosed version of every script.
var analyzePool = sync.Pool{New: func() any {
	return &analyzer{paths: map[pathKey]*tpath{}, scopeOf: map[int]int32{},
		resolved: map[*ast.Identifier]int32{}, funcOf: map[int]int32{},
		callOf: map[*ast.CallExpression]int32{}, tryOf: map[*ast.TryStatement]tset{}, singles: map[ftype][]ftype{}}
}}

// analyze computes the answer types of a parsed script; a script that
// did not parse gets an empty analysis.
func analyze(text string, p *parseResult) (res *flowResult) {
	res = &flowResult{text: text, names: map[scopeName]int32{}}
	if p == nil || p.body == nil {
		return res
	}
	defer func() {
		if e := recover(); e != nil {
			onPanic(e)
			res = &flowResult{text: text}
		}
	}()
	a := analyzePool.Get().(*analyzer)
	defer func() {
		clear(a.paths)
		clear(a.scopeOf)
		clear(a.resolved)
		clear(a.funcOf)
		clear(a.callOf)
		clear(a.tryOf)
		clear(a.singles)
		a.funcs = a.funcs[:0]
		clear(a.reads)
		a.reads = a.reads[:0]
		clear(a.results)
		a.results = a.results[:0]
		a.res = nil
		analyzePool.Put(a)
	}()
	a.res, a.text, a.work, a.record = res, text, 0, false
	a.deadline = time.Now().Add(flowMaxTime)
	for pass := 0; pass < flowMaxPasses; pass++ {
		a.changed = false
		a.script(p.body)
		if !a.changed || a.spent() {
			break
		}
	}
	res.stopped = a.spent()
	a.reads = a.reads[:0]
	a.results = a.results[:0]
	// A last pass notes the types of the names read, with an allowance
	// of its own: a stopped analysis still says what it knows.
	a.record = true
	a.work = 0
	a.deadline = time.Now().Add(flowMaxTime)
	a.script(p.body)
	res.stopped = res.stopped || a.spent()
	a.compact()
	return res
}

// compact moves the reads into the result, each type set once, and
// keeps only the variables completion may look up: those that hold
// types, and those whose name such a variable has (they may hide it).
func (a *analyzer) compact() {
	res := a.res
	sort.SliceStable(a.reads, func(i, j int) bool { return a.reads[i].rng.Start < a.reads[j].rng.Start })
	type setKey struct {
		p     *ftype
		n     int
		mixed bool
	}
	index := map[setKey]int32{}
	set := func(t tset) int32 {
		k := setKey{n: len(t.ts), mixed: t.mixed}
		if len(t.ts) > 0 {
			k.p = &t.ts[0]
		}
		if i, ok := index[k]; ok {
			return i
		}
		i := int32(len(res.sets))
		res.sets = append(res.sets, t)
		index[k] = i
		return i
	}
	res.reads = make([]cread, len(a.reads))
	for i, rd := range a.reads {
		res.reads[i] = cread{start: int32(rd.rng.Start), end: int32(rd.rng.End), base: set(rd.base), t: set(rd.t), prop: rd.prop}
	}
	sort.SliceStable(a.results, func(i, j int) bool { return a.results[i].end < a.results[j].end })
	res.results = make([]cresult, 0, len(a.results))
	for i := 0; i < len(a.results); {
		// A call analysed more than once (a function's body for each of
		// its callers) has the union of its results.
		c := a.results[i]
		for i++; i < len(a.results) && a.results[i].end == c.end; i++ {
			c.t = union(c.t, a.results[i].t)
		}
		res.results = append(res.results, cresult{end: int32(c.end), t: set(c.t)})
	}
	typed := map[string]bool{}
	for _, b := range res.bindings {
		if values(b.t) {
			typed[b.name] = true
		}
	}
	keep := make([]int32, len(res.bindings))
	var bindings []fbinding
	for i, b := range res.bindings {
		keep[i] = -1
		if typed[b.name] {
			keep[i] = int32(len(bindings))
			bindings = append(bindings, b)
		}
	}
	names := make(map[scopeName]int32, len(bindings))
	for k, b := range res.names {
		if keep[b] >= 0 {
			names[k] = keep[b]
		}
	}
	res.bindings, res.names = bindings, names
}

// spent reports whether a bound ended the analysis.
func (a *analyzer) spent() bool {
	if a.work > flowMaxWork {
		return true
	}
	if a.work&0xfff == 0 && time.Now().After(a.deadline) {
		a.work = flowMaxWork + 1
		return true
	}
	return false
}

// script analyzes the script's body: the top-level function.
func (a *analyzer) script(body *ast.BlockStatement) {
	a.fn = -1
	a.cur = -1
	sc := a.scope(body, offsetOf(a.text, body.LeftBrace), len(a.text), func(sc int32) {
		a.hoist(sc, body.List, true)
	})
	a.cur = sc
	a.stmts(body.List)
}

// scope enters the scope of node n (made on the first pass, declare
// filling its names) and returns its index.
func (a *analyzer) scope(n ast.Node, start, end int, declare func(int32)) int32 {
	key := int(n.Idx0())
	if sc, ok := a.scopeOf[key]; ok {
		return sc
	}
	sc := int32(len(a.res.scopes))
	a.res.scopes = append(a.res.scopes, fscope{start: start, end: end, parent: a.cur})
	a.scopeOf[key] = sc
	if declare != nil {
		declare(sc)
	}
	return sc
}

// declare adds name to scope sc (once) and returns its binding.
func (a *analyzer) declare(sc int32, name string) int32 {
	k := scopeName{sc, name}
	if b, ok := a.res.names[k]; ok {
		return b
	}
	b := int32(len(a.res.bindings))
	a.res.bindings = append(a.res.bindings, fbinding{name: name})
	a.res.names[k] = b
	return b
}

// declareTarget declares the names a binding target introduces.
func (a *analyzer) declareTarget(sc int32, t ast.Expression) {
	switch t := t.(type) {
	case *ast.Identifier:
		if t != nil {
			a.declare(sc, t.Name.String())
		}
	case *ast.ObjectPattern:
		if t == nil {
			return
		}
		for _, p := range t.Properties {
			switch p := p.(type) {
			case *ast.PropertyShort:
				if p != nil {
					a.declare(sc, p.Name.Name.String())
				}
			case *ast.PropertyKeyed:
				if p != nil {
					a.declareTarget(sc, p.Value)
				}
			}
		}
		a.declareTarget(sc, t.Rest)
	case *ast.ArrayPattern:
		if t == nil {
			return
		}
		for _, e := range t.Elements {
			a.declareTarget(sc, e)
		}
		a.declareTarget(sc, t.Rest)
	case *ast.AssignExpression:
		if t != nil {
			a.declareTarget(sc, t.Left)
		}
	}
}

// hoist declares the var and function declarations of a function body
// in its scope sc (through blocks, not into nested functions), and, with
// lexical, the let, const and class declarations of the list itself.
func (a *analyzer) hoist(sc int32, list []ast.Statement, lexical bool) {
	for _, s := range list {
		a.hoistStmt(sc, s, lexical)
	}
}

func (a *analyzer) hoistStmt(sc int32, s ast.Statement, lexical bool) {
	if isNil(s) {
		return
	}
	switch s := s.(type) {
	case *ast.VariableStatement:
		for _, b := range s.List {
			if b != nil {
				a.declareTarget(sc, b.Target)
			}
		}
	case *ast.LexicalDeclaration:
		if lexical {
			for _, b := range s.List {
				if b != nil {
					a.declareTarget(sc, b.Target)
				}
			}
		}
	case *ast.ClassDeclaration:
		if lexical && s.Class != nil && s.Class.Name != nil {
			a.declare(sc, s.Class.Name.Name.String())
		}
	case *ast.FunctionDeclaration:
		if s.Function != nil && s.Function.Name != nil {
			b := a.declare(sc, s.Function.Name.Name.String())
			f := a.funcIndex(s.Function, s.Function.ParameterList)
			a.res.bindings[b].t.add(tset{ts: []ftype{{o: oFunc, id: f}}})
		}
	case *ast.BlockStatement:
		a.hoist(sc, s.List, false)
	case *ast.IfStatement:
		a.hoistStmt(sc, s.Consequent, false)
		a.hoistStmt(sc, s.Alternate, false)
	case *ast.ForStatement:
		if v, ok := s.Initializer.(*ast.ForLoopInitializerVarDeclList); ok && v != nil {
			for _, b := range v.List {
				if b != nil {
					a.declareTarget(sc, b.Target)
				}
			}
		}
		a.hoistStmt(sc, s.Body, false)
	case *ast.ForInStatement:
		a.hoistInto(sc, s.Into)
		a.hoistStmt(sc, s.Body, false)
	case *ast.ForOfStatement:
		a.hoistInto(sc, s.Into)
		a.hoistStmt(sc, s.Body, false)
	case *ast.WhileStatement:
		a.hoistStmt(sc, s.Body, false)
	case *ast.DoWhileStatement:
		a.hoistStmt(sc, s.Body, false)
	case *ast.LabelledStatement:
		a.hoistStmt(sc, s.Statement, false)
	case *ast.TryStatement:
		if s.Body != nil {
			a.hoist(sc, s.Body.List, false)
		}
		if s.Catch != nil && s.Catch.Body != nil {
			a.hoist(sc, s.Catch.Body.List, false)
		}
		if s.Finally != nil {
			a.hoist(sc, s.Finally.List, false)
		}
	case *ast.SwitchStatement:
		for _, c := range s.Body {
			if c != nil {
				a.hoist(sc, c.Consequent, false)
			}
		}
	case *ast.WithStatement:
		a.hoistStmt(sc, s.Body, false)
	}
}

func (a *analyzer) hoistInto(sc int32, into ast.ForInto) {
	if v, ok := into.(*ast.ForIntoVar); ok && v != nil && v.Binding != nil {
		a.declareTarget(sc, v.Binding.Target)
	}
}

// funcIndex returns the index of function n, made on first sight.
func (a *analyzer) funcIndex(n ast.Node, params *ast.ParameterList) int32 {
	key := int(n.Idx0())
	if f, ok := a.funcOf[key]; ok {
		return f
	}
	f := int32(len(a.funcs))
	np := 0
	if params != nil {
		np = len(params.List)
	}
	a.funcs = append(a.funcs, ffunc{params: make([]tset, np)})
	a.funcOf[key] = f
	return f
}

// resolve returns the binding of a variable read or written at id.
func (a *analyzer) resolve(id *ast.Identifier) int32 {
	if b, ok := a.resolved[id]; ok {
		return b
	}
	name := id.Name.String()
	for sc := a.cur; sc >= 0; sc = a.res.scopes[sc].parent {
		if b, ok := a.res.names[scopeName{sc, name}]; ok {
			a.resolved[id] = b
			return b
		}
	}
	// Undeclared: a global, which the platform may set to anything.
	b := a.declare(0, name)
	a.res.bindings[b].t.mixed = true
	a.resolved[id] = b
	return b
}

// addTo adds t to binding b.
func (a *analyzer) addTo(b int32, t tset) {
	if a.record {
		return
	}
	if a.res.bindings[b].t.add(t) {
		a.changed = true
	}
}

// path returns the interned path parent+step, nil when too deep.
func (a *analyzer) path(parent *tpath, step string) *tpath {
	if step == "[]" && parent != nil && parent.step == "<arr>" {
		return parent.parent // an element of an array of x is x
	}
	n := 1
	if parent != nil {
		n = parent.n + 1
	}
	if n > flowMaxDepth {
		return nil
	}
	k := pathKey{parent, step}
	if p, ok := a.paths[k]; ok {
		return p
	}
	p := &tpath{parent: parent, step: step, n: n}
	a.paths[k] = p
	return p
}

// single returns the set of x alone, shared.
func (a *analyzer) single(x ftype) tset {
	ts, ok := a.singles[x]
	if !ok {
		ts = []ftype{x}
		a.singles[x] = ts
	}
	return tset{ts: ts[:1:1]}
}

// step is the type of reading step from a value of type t.
func (a *analyzer) step(t tset, step string) tset {
	var out tset
	for _, x := range t.ts {
		if x.o == oFunc {
			continue
		}
		if x.p != nil && x.p.step == "<arr>" && step != "[]" {
			continue // .length of an array made by map
		}
		p := a.path(x.p, step)
		if p == nil {
			out.mixed = true
			continue
		}
		y := ftype{o: x.o, id: x.id, p: p}
		switch {
		case len(t.ts) == 1:
			m := out.mixed
			out = a.single(y)
			out.mixed = m
		case !slices.Contains(out.ts, y):
			out.ts = append(out.ts, y)
		}
	}
	if t.mixed && out.empty() {
		out.mixed = true
	}
	return out
}

// values reports whether t has a type that is not a function.
func values(t tset) bool {
	for _, x := range t.ts {
		if x.o != oFunc {
			return true
		}
	}
	return false
}

func (a *analyzer) stmts(list []ast.Statement) {
	for _, s := range list {
		a.stmt(s)
	}
}

func (a *analyzer) rng(n ast.Node) Range {
	return Range{offsetOf(a.text, n.Idx0()), offsetOf(a.text, n.Idx1())}
}

// block enters the block scope of n for list.
func (a *analyzer) block(n ast.Node, list []ast.Statement) {
	outer := a.cur
	r := a.rng(n)
	a.cur = a.scope(n, r.Start, r.End, func(sc int32) {
		for _, s := range list {
			switch s := s.(type) {
			case *ast.LexicalDeclaration, *ast.ClassDeclaration:
				a.hoistStmt(sc, s, true)
			}
		}
	})
	a.stmts(list)
	a.cur = outer
}

func (a *analyzer) stmt(s ast.Statement) {
	if isNil(s) || a.spent() {
		return
	}
	a.work++
	switch s := s.(type) {
	case *ast.BlockStatement:
		a.block(s, s.List)
	case *ast.ExpressionStatement:
		a.expr(s.Expression)
	case *ast.VariableStatement:
		a.bindings(s.List)
	case *ast.LexicalDeclaration:
		a.bindings(s.List)
	case *ast.FunctionDeclaration:
		if s.Function != nil {
			a.function(s.Function, s.Function.ParameterList, s.Function.Body)
		}
	case *ast.IfStatement:
		a.expr(s.Test)
		a.stmt(s.Consequent)
		a.stmt(s.Alternate)
	case *ast.ForStatement:
		outer := a.cur
		r := a.rng(s)
		a.cur = a.scope(s, r.Start, r.End, func(sc int32) {
			if l, ok := s.Initializer.(*ast.ForLoopInitializerLexicalDecl); ok && l != nil {
				for _, b := range l.LexicalDeclaration.List {
					if b != nil {
						a.declareTarget(sc, b.Target)
					}
				}
			}
		})
		switch in := s.Initializer.(type) {
		case *ast.ForLoopInitializerExpression:
			if in != nil {
				a.expr(in.Expression)
			}
		case *ast.ForLoopInitializerVarDeclList:
			if in != nil {
				a.bindings(in.List)
			}
		case *ast.ForLoopInitializerLexicalDecl:
			if in != nil {
				a.bindings(in.LexicalDeclaration.List)
			}
		}
		a.expr(s.Test)
		a.expr(s.Update)
		a.stmt(s.Body)
		a.cur = outer
	case *ast.ForOfStatement:
		a.forInto(s, s.Into, a.step(a.expr(s.Source), "[]"), s.Body)
	case *ast.ForInStatement:
		a.expr(s.Source)
		a.forInto(s, s.Into, mixedT, s.Body)
	case *ast.WhileStatement:
		a.expr(s.Test)
		a.stmt(s.Body)
	case *ast.DoWhileStatement:
		a.stmt(s.Body)
		a.expr(s.Test)
	case *ast.ReturnStatement:
		t := a.expr(s.Argument)
		if isNil(s.Argument) {
			t = tset{}
		}
		if a.fn >= 0 && !a.record && a.funcs[a.fn].ret.add(t) {
			a.changed = true
		}
	case *ast.ThrowStatement:
		a.expr(s.Argument)
	case *ast.TryStatement:
		if s.Body != nil {
			a.block(s.Body, s.Body.List)
		}
		if c := s.Catch; c != nil {
			outer := a.cur
			r := a.rng(c)
			a.cur = a.scope(c, r.Start, r.End, func(sc int32) { a.declareTarget(sc, c.Parameter) })
			if !isNil(c.Parameter) {
				a.bind(c.Parameter, a.exceptionOf(s))
			}
			if c.Body != nil {
				a.block(c.Body, c.Body.List)
			}
			a.cur = outer
		}
		if s.Finally != nil {
			a.block(s.Finally, s.Finally.List)
		}
	case *ast.SwitchStatement:
		a.expr(s.Discriminant)
		outer := a.cur
		r := a.rng(s)
		a.cur = a.scope(s, r.Start, r.End, func(sc int32) {
			for _, c := range s.Body {
				if c == nil {
					continue
				}
				for _, st := range c.Consequent {
					switch st := st.(type) {
					case *ast.LexicalDeclaration, *ast.ClassDeclaration:
						a.hoistStmt(sc, st, true)
					}
				}
			}
		})
		for _, c := range s.Body {
			if c != nil {
				a.expr(c.Test)
				a.stmts(c.Consequent)
			}
		}
		a.cur = outer
	case *ast.LabelledStatement:
		a.stmt(s.Statement)
	case *ast.WithStatement:
		a.expr(s.Object)
		a.stmt(s.Body)
	}
}

// forInto binds the variable of a for...of (elem) or for...in loop.
func (a *analyzer) forInto(s ast.Node, into ast.ForInto, elem tset, body ast.Statement) {
	outer := a.cur
	r := a.rng(s)
	a.cur = a.scope(s, r.Start, r.End, func(sc int32) {
		if d, ok := into.(*ast.ForDeclaration); ok && d != nil {
			a.declareTarget(sc, d.Target)
		}
	})
	switch in := into.(type) {
	case *ast.ForIntoVar:
		if in != nil && in.Binding != nil {
			a.bind(in.Binding.Target, elem)
		}
	case *ast.ForDeclaration:
		if in != nil {
			a.bind(in.Target, elem)
		}
	case *ast.ForIntoExpression:
		if in != nil {
			a.assign(in.Expression, elem)
		}
	}
	a.stmt(body)
	a.cur = outer
}

// exceptionOf is the type of the catch parameter of try s: the exception
// of each call in its block, or, when it calls only functions of the
// script that call services, the exception of some call.
func (a *analyzer) exceptionOf(s *ast.TryStatement) tset {
	if t, ok := a.tryOf[s]; ok {
		return t
	}
	var t tset
	helper := false
	if s.Body != nil {
		walk(s.Body, func(n ast.Node) {
			c, ok := n.(*ast.CallExpression)
			if !ok || c == nil {
				return
			}
			if k, ok := a.apiCall(c); ok {
				t.add(tset{ts: []ftype{{o: oException, id: k, p: nil}}})
				return
			}
			if id, ok := c.Callee.(*ast.Identifier); ok && id != nil {
				helper = true
			}
		})
	}
	if t.empty() && helper {
		t.add(tset{ts: []ftype{{o: oException, id: -1}}})
	}
	a.tryOf[s] = t
	return t
}

// apiCall returns the index of api.rest.v1 call c, registered on first
// sight; ok false for any other call.
func (a *analyzer) apiCall(c *ast.CallExpression) (int32, bool) {
	if k, ok := a.callOf[c]; ok {
		return k, k >= 0
	}
	k := int32(-1)
	if dot, ok := c.Callee.(*ast.DotExpression); ok && dot != nil {
		if name, ok := apiCallName(dot); ok {
			if ci := callIndex(name); ci >= 0 {
				k = int32(len(a.res.calls))
				a.res.calls = append(a.res.calls, flowCall{call: ci, open: offsetOf(a.text, c.LeftParenthesis)})
			}
		}
	}
	a.callOf[c] = k
	return k, k >= 0
}

func (a *analyzer) bindings(list []*ast.Binding) {
	for _, b := range list {
		if b == nil {
			continue
		}
		if isNil(b.Initializer) {
			a.declTarget(b.Target)
			continue
		}
		a.bind(b.Target, a.expr(b.Initializer))
	}
}

// declTarget visits a target declared without a value (for the reads in
// its defaults).
func (a *analyzer) declTarget(t ast.Expression) {
	if id, ok := t.(*ast.Identifier); ok && id != nil {
		a.note(id, a.resolve(id))
		return
	}
	a.bind(t, tset{})
}

// note records a variable read or declaration (last pass only).
func (a *analyzer) note(id *ast.Identifier, b int32) {
	if !a.record {
		return
	}
	t := a.res.bindings[b].t
	if t.empty() {
		return
	}
	start := offsetOf(a.text, id.Idx)
	a.reads = append(a.reads, fread{rng: Range{start, min(start+len(id.Name.String()), len(a.text))},
		name: id.Name.String(), t: t})
}

// bind gives the names of target (a variable or a destructuring pattern)
// the parts of t.
func (a *analyzer) bind(target ast.Expression, t tset) {
	switch x := target.(type) {
	case *ast.Identifier:
		if x == nil {
			return
		}
		b := a.resolve(x)
		a.addTo(b, t)
		a.note(x, b)
	case *ast.ObjectPattern:
		if x == nil {
			return
		}
		for _, p := range x.Properties {
			switch p := p.(type) {
			case *ast.PropertyShort:
				if p == nil {
					continue
				}
				v := a.step(t, p.Name.Name.String())
				if !isNil(p.Initializer) {
					v = union(v, a.expr(p.Initializer))
				}
				b := a.resolve(&p.Name)
				a.addTo(b, v)
				if a.record && !v.empty() {
					start := offsetOf(a.text, p.Name.Idx)
					a.reads = append(a.reads, fread{rng: Range{start, start + len(p.Name.Name.String())},
						name: p.Name.Name.String(), prop: true, base: t, t: a.res.bindings[b].t})
				}
			case *ast.PropertyKeyed:
				if p == nil {
					continue
				}
				key, ok := literalKey(p.Key)
				v := mixedT
				if ok && !p.Computed {
					v = a.step(t, key)
					a.noteProp(p.Key, key, t, v)
				} else {
					a.expr(p.Key)
				}
				a.bind(p.Value, v)
			}
		}
		if !isNil(x.Rest) {
			a.bind(x.Rest, mixedT)
		}
	case *ast.ArrayPattern:
		if x == nil {
			return
		}
		e := a.step(t, "[]")
		for _, el := range x.Elements {
			if !isNil(el) {
				a.bind(el, e)
			}
		}
		if !isNil(x.Rest) {
			a.bind(x.Rest, t)
		}
	case *ast.AssignExpression:
		if x == nil {
			return
		}
		a.bind(x.Left, union(t, a.expr(x.Right)))
	default:
		if !isNil(target) {
			a.expr(target)
		}
	}
}

// noteProp records a property key read from a value of type base.
func (a *analyzer) noteProp(key ast.Expression, name string, base, t tset) {
	if !a.record || base.empty() {
		return
	}
	r := a.rng(key)
	if s, ok := key.(*ast.StringLiteral); ok && s != nil {
		r = Range{r.Start + 1, max(r.Start+1, r.End-1)} // inside the quotes
	}
	a.reads = append(a.reads, fread{rng: r, name: name, prop: true, base: base, t: t})
}

// literalKey returns the name of a property key written as an identifier
// or a string.
func literalKey(k ast.Expression) (string, bool) {
	switch k := k.(type) {
	case *ast.Identifier:
		if k != nil {
			return k.Name.String(), true
		}
	case *ast.StringLiteral:
		if k != nil {
			return k.Value.String(), true
		}
	}
	return "", false
}

// assign assigns t to the target of an assignment.
func (a *analyzer) assign(left ast.Expression, t tset) {
	switch x := left.(type) {
	case *ast.Identifier, *ast.ObjectPattern, *ast.ArrayPattern:
		a.bind(left, t)
	case *ast.DotExpression:
		a.expr(x.Left) // a property written is not read
	case *ast.BracketExpression:
		a.expr(x.Left)
		a.expr(x.Member)
	default:
		a.expr(left)
	}
}

// function visits a function literal (its parameters get the arguments
// passed to it, its returns make its result). It returns its type.
func (a *analyzer) function(n ast.Node, params *ast.ParameterList, body ast.Node) tset {
	f := a.funcIndex(n, params)
	outerScope, outerFn := a.cur, a.fn
	r := a.rng(n)
	a.cur = a.scope(n, r.Start, r.End, func(sc int32) {
		if params != nil {
			for _, p := range params.List {
				if p != nil {
					a.declareTarget(sc, p.Target)
				}
			}
			a.declareTarget(sc, params.Rest)
		}
		if fl, ok := n.(*ast.FunctionLiteral); ok && fl.Name != nil {
			// A named function expression sees its own name.
			b := a.declare(sc, fl.Name.Name.String())
			a.res.bindings[b].t.add(tset{ts: []ftype{{o: oFunc, id: f}}})
		}
		if b, ok := body.(*ast.BlockStatement); ok && b != nil {
			a.hoist(sc, b.List, true)
		}
	})
	a.fn = f
	if params != nil {
		for i, p := range params.List {
			if p == nil {
				continue
			}
			t := a.funcs[f].params[i]
			if !isNil(p.Initializer) {
				t = union(t, a.expr(p.Initializer))
			}
			a.bind(p.Target, t)
		}
		if !isNil(params.Rest) {
			a.bind(params.Rest, mixedT)
		}
	}
	switch b := body.(type) {
	case *ast.BlockStatement:
		if b != nil {
			a.stmts(b.List)
		}
	case *ast.ExpressionBody:
		if b != nil {
			t := a.expr(b.Expression)
			if !a.record && a.funcs[f].ret.add(t) {
				a.changed = true
			}
		}
	}
	a.cur, a.fn = outerScope, outerFn
	return a.single(ftype{o: oFunc, id: f})
}

// funcLiteral returns the function node of e and its parts, if e is a
// function literal.
func funcLiteral(e ast.Expression) (ast.Node, *ast.ParameterList, ast.Node, bool) {
	switch f := e.(type) {
	case *ast.FunctionLiteral:
		if f != nil {
			return f, f.ParameterList, f.Body, true
		}
	case *ast.ArrowFunctionLiteral:
		if f != nil {
			return f, f.ParameterList, f.Body, true
		}
	}
	return nil, nil, nil, false
}

// expr returns the type of e, visiting what is inside it.
func (a *analyzer) expr(e ast.Expression) tset {
	if isNil(e) || a.spent() {
		return tset{}
	}
	a.work++
	switch e := e.(type) {
	case *ast.Identifier:
		if e.Name == "undefined" {
			return tset{}
		}
		b := a.resolve(e)
		a.note(e, b)
		return a.res.bindings[b].t
	case *ast.DotExpression:
		base := a.expr(e.Left)
		t := a.step(base, e.Identifier.Name.String())
		if a.record && values(base) {
			start := offsetOf(a.text, e.Identifier.Idx)
			a.reads = append(a.reads, fread{rng: Range{start, min(start+len(e.Identifier.Name.String()), len(a.text))},
				name: e.Identifier.Name.String(), prop: true, base: base, t: t})
		}
		return t
	case *ast.BracketExpression:
		base := a.expr(e.Left)
		if s, ok := e.Member.(*ast.StringLiteral); ok && s != nil {
			t := a.step(base, s.Value.String())
			a.noteProp(s, s.Value.String(), base, t)
			return t
		}
		a.expr(e.Member)
		if !values(base) {
			return mixedT
		}
		t := a.step(base, "[]")
		if a.record {
			// Completion after `a[i + 1].`: the scanner cannot see
			// where such an index starts.
			a.results = append(a.results, fresult{end: offsetOf(a.text, e.Idx1()), t: t})
		}
		return t
	case *ast.CallExpression:
		t := a.call(e)
		if a.record {
			a.results = append(a.results, fresult{end: offsetOf(a.text, e.Idx1()), t: t})
		}
		return t
	case *ast.AssignExpression:
		r := a.expr(e.Right)
		if e.Operator == jstoken.ASSIGN {
			a.assign(e.Left, r)
			return r
		}
		a.expr(e.Left)
		return mixedT
	case *ast.ConditionalExpression:
		a.expr(e.Test)
		return union(a.expr(e.Consequent), a.expr(e.Alternate))
	case *ast.BinaryExpression:
		l := a.expr(e.Left)
		r := a.expr(e.Right)
		switch e.Operator {
		case jstoken.LOGICAL_OR, jstoken.COALESCE:
			return union(l, r)
		case jstoken.LOGICAL_AND:
			return r
		case jstoken.EQUAL, jstoken.STRICT_EQUAL, jstoken.NOT_EQUAL, jstoken.STRICT_NOT_EQUAL:
			a.compare(e.Left, l, e.Right)
			a.compare(e.Right, r, e.Left)
		}
		return mixedT
	case *ast.SequenceExpression:
		var t tset
		for _, x := range e.Sequence {
			t = a.expr(x)
		}
		return t
	case *ast.FunctionLiteral:
		return a.function(e, e.ParameterList, e.Body)
	case *ast.ArrowFunctionLiteral:
		return a.function(e, e.ParameterList, e.Body)
	case *ast.ObjectLiteral:
		for _, p := range e.Value {
			switch p := p.(type) {
			case *ast.PropertyKeyed:
				if p != nil {
					if p.Computed {
						a.expr(p.Key)
					}
					a.expr(p.Value)
				}
			case *ast.PropertyShort:
				if p != nil {
					a.note(&p.Name, a.resolve(&p.Name))
					a.expr(p.Initializer)
				}
			case *ast.SpreadElement:
				if p != nil {
					a.expr(p.Expression)
				}
			}
		}
		if len(e.Value) == 0 {
			return tset{} // {}: no property to read, nothing else
		}
		return mixedT
	case *ast.ArrayLiteral:
		for _, x := range e.Value {
			a.expr(x)
		}
		if len(e.Value) == 0 {
			return tset{}
		}
		return mixedT
	case *ast.NullLiteral:
		return tset{}
	case *ast.UnaryExpression:
		a.expr(e.Operand)
	case *ast.NewExpression:
		a.expr(e.Callee)
		for _, x := range e.ArgumentList {
			a.expr(x)
		}
	case *ast.TemplateLiteral:
		a.expr(e.Tag)
		for _, x := range e.Expressions {
			a.expr(x)
		}
	case *ast.OptionalChain:
		return a.expr(e.Expression)
	case *ast.Optional:
		return a.expr(e.Expression)
	case *ast.SpreadElement:
		a.expr(e.Expression)
	case *ast.AwaitExpression:
		return a.expr(e.Argument)
	case *ast.YieldExpression:
		a.expr(e.Argument)
	}
	return mixedT
}

// compare notes the comparison of value v (of type t) with a number.
func (a *analyzer) compare(v ast.Expression, t tset, other ast.Expression) {
	if !a.record || !values(t) {
		return
	}
	n, ok := other.(*ast.NumberLiteral)
	if !ok || n == nil {
		return
	}
	_ = v
	a.res.cmps = append(a.res.cmps, fcmp{rng: a.rng(n), value: n.Literal, t: t})
}

// arrayMethods are the array methods whose callbacks get the elements,
// and what they return: "elem" (one element), "same" (an array like the
// receiver), "map" (an array of what the callback returns), "reduce".
var arrayMethods = map[string]string{
	"forEach": "", "some": "", "every": "", "findIndex": "", "findLastIndex": "",
	"map": "map", "filter": "same", "find": "elem", "findLast": "elem",
	"reduce": "reduce", "reduceRight": "reduce", "flatMap": "",
	"sort": "same", "slice": "same", "concat": "same", "reverse": "same",
	"pop": "elem", "shift": "elem", "at": "elem",
}

// call returns the type of a call: the answer of an api.rest.v1 call,
// what a function of the script returns, the result of an array method.
func (a *analyzer) call(c *ast.CallExpression) tset {
	if k, ok := a.apiCall(c); ok {
		for _, x := range c.ArgumentList {
			a.expr(x)
		}
		if !a.record {
			if a.fn >= 0 && !a.funcs[a.fn].api {
				a.funcs[a.fn].api = true
			}
		}
		return a.single(ftype{o: oResponse, id: k})
	}
	if dot, ok := c.Callee.(*ast.DotExpression); ok && dot != nil {
		recv := a.expr(dot.Left)
		name := dot.Identifier.Name.String()
		if a.record && values(recv) {
			start := offsetOf(a.text, dot.Identifier.Idx)
			a.reads = append(a.reads, fread{rng: Range{start, start + len(name)}, name: name, prop: true, base: recv, t: tset{}})
		}
		kind, isArray := arrayMethods[name]
		if !isArray || !values(recv) {
			for _, x := range c.ArgumentList {
				a.expr(x)
			}
			return mixedT
		}
		elem := a.step(recv, "[]")
		var out tset
		for i, x := range c.ArgumentList {
			if i != 0 {
				t := a.expr(x)
				if i == 1 && kind == "reduce" {
					out.add(t)
				}
				continue
			}
			// The callback: a literal gets the elements before its body
			// is visited; a function named here gets them as any call.
			var fns []int32
			n, params, body, isFn := funcLiteral(x)
			if isFn {
				fns = append(fns, a.funcIndex(n, params))
			} else {
				for _, y := range a.expr(x).ts {
					if y.o == oFunc {
						fns = append(fns, y.id)
					}
				}
			}
			for _, f := range fns {
				if kind == "reduce" {
					a.argTo(f, 0, a.funcs[f].ret)
					a.argTo(f, 1, elem)
				} else {
					a.argTo(f, 0, elem)
					a.argTo(f, 2, recv)
				}
			}
			if isFn {
				a.function(n, params, body)
			}
			for _, f := range fns {
				switch kind {
				case "map":
					out.add(a.step(a.funcs[f].ret, "<arr>"))
				case "reduce":
					out.add(a.funcs[f].ret)
				}
			}
		}
		switch kind {
		case "elem":
			return elem
		case "same":
			return recv
		case "map", "reduce":
			if out.empty() {
				return mixedT
			}
			return out
		}
		return mixedT
	}
	fnT := a.expr(c.Callee)
	called := false
	for _, x := range fnT.ts {
		called = called || x.o == oFunc
	}
	if !called {
		// Something restls does not know (its callbacks are visited).
		for _, x := range c.ArgumentList {
			a.expr(x)
		}
		return mixedT
	}
	var out tset
	for i, arg := range c.ArgumentList {
		t := a.expr(arg)
		for _, x := range fnT.ts {
			if x.o == oFunc {
				a.argTo(x.id, i, t)
			}
		}
	}
	for _, x := range fnT.ts {
		if x.o == oFunc {
			out.add(a.funcs[x.id].ret)
		}
	}
	return out
}

// argTo adds t to parameter i of function f.
func (a *analyzer) argTo(f int32, i int, t tset) {
	if a.record || i >= len(a.funcs[f].params) {
		return
	}
	if a.funcs[f].params[i].add(t) {
		a.changed = true
	}
}
