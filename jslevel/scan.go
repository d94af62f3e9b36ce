package jslevel

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/token"
)

// MaxUses bounds the uses one scan reports; maxVisits the nodes it visits
// (twice: once to learn the script's names, once to report).
const (
	MaxUses   = 100
	maxVisits = 4_000_000
)

// Use is one use of a feature beyond the level scanned for.
type Use struct {
	Feature *Feature
	// Also are the other builtins of the same method name, for a method
	// whose receiver's type is not known (all beyond the level).
	Also []*Feature
	// Start and End are byte offsets in the script's text.
	Start, End int
}

// Code is the use's diagnostic code.
func (u Use) Code() string { return u.Feature.Kind.Code() }

// Message says what the use is, the level that introduced it, the
// platform's level and what to write instead: the diagnostic's message
// and a refused run's, word for word.
func (u Use) Message(level Level) string {
	f := u.Feature
	what := fmt.Sprintf("%s came in %s", f.Name, f.Level)
	if len(u.Also) > 0 {
		var others []string
		for _, a := range u.Also {
			if a.Level == f.Level {
				others = append(others, a.Name)
			} else {
				others = append(others, fmt.Sprintf("%s in %s", a.Name, a.Level))
			}
		}
		what = fmt.Sprintf("the method %s came in %s (%s; %s)", f.protoMethod, f.Level, f.Name, strings.Join(others, ", "))
	}
	advice := f.Advice
	if f.Kind == Builtin {
		advice += ", or test for it first (typeof)"
	}
	return fmt.Sprintf("%s, after the platform's engine level %s (restls.yaml engine): %s", what, level, advice)
}

// Scan reports the uses in body, a script parsed by goja's parser
// wrapped in a prefix of base bytes (offsets are text's: idx-1-base), of
// what level does not admit, in the order of the text, at most MaxUses.
// Nothing when level is Latest.
func Scan(body ast.Node, text string, base int, level Level) []Use {
	if level == Latest || isNil(body) {
		return nil
	}
	s := &scanner{text: text, base: base, level: level, declared: map[string]bool{}, trusted: map[string]bool{},
		assigns: map[string][]ast.Expression{}, unknown: map[string]bool{}, kinds: map[string]valueKind{}}
	s.visit(body)
	if len(s.pending) > 0 {
		// Builtins depend on what the script declares, assigns and
		// tests for: learnt only for a script that names one.
		s.visits = 0
		s.learn(body)
		s.resolve()
	}
	sort.SliceStable(s.out, func(i, j int) bool { return s.out[i].Start < s.out[j].Start })
	return s.out
}

type valueKind uint8

const (
	unknownValue valueKind = iota
	arrayValue
	stringValue
	resolving
)

type scanner struct {
	text  string
	base  int
	level Level
	// declared: names the script declares or assigns: a global of that
	// name is the script's own (or its polyfill).
	declared map[string]bool
	// trusted: builtins the script tests for or assigns ("Map",
	// "Object.entries", "Array.prototype.includes").
	trusted map[string]bool
	// assigns and unknown: what each name is given, for a receiver's
	// type; unknown names are parameters and the like.
	assigns map[string][]ast.Expression
	unknown map[string]bool
	kinds   map[string]valueKind
	visits  int
	out     []Use
	// pending are the nodes that may be builtins (an Identifier, a
	// DotExpression, a CallExpression), in the order met, judged once the
	// script's names are learnt; reported is the objects of members
	// reported, whose own name is not reported again.
	pending  []ast.Node
	reported map[*ast.Identifier]bool
}

// resolve reports the pending builtins.
func (s *scanner) resolve() {
	for _, n := range s.pending {
		switch n := n.(type) {
		case *ast.Identifier:
			name := n.Name.String()
			if f := featuresByGlobal[name]; f != nil && !s.declared[name] && !s.trusted[name] && !s.reported[n] {
				s.report(f, n)
			}
		case *ast.DotExpression:
			if s.member(n) {
				if id := rootIdent(n.Left); id != nil {
					if s.reported == nil {
						s.reported = map[*ast.Identifier]bool{}
					}
					s.reported[id] = true
				}
			}
		case *ast.CallExpression:
			s.method(n)
		}
	}
}

func (s *scanner) off(idx file.Idx) int {
	return min(max(int(idx)-1-s.base, 0), len(s.text))
}

// span is n's range cut at the end of its first line.
func (s *scanner) span(n ast.Node) (int, int) {
	if id, ok := n.(*ast.Identifier); ok {
		start := s.off(id.Idx)
		return start, min(start+len(id.Name.String()), len(s.text))
	}
	start, end := s.off(n.Idx0()), s.off(n.Idx1())
	end = max(start, end)
	if i := strings.IndexAny(s.text[start:end], "\r\n"); i >= 0 {
		end = start + i
	}
	return start, end
}

func (s *scanner) report(f *Feature, n ast.Node) {
	start, end := s.span(n)
	s.reportAt(f, start, end, nil)
}

func (s *scanner) reportAt(f *Feature, start, end int, also []*Feature) {
	if s.level.Admits(f.Level) || len(s.out) >= MaxUses {
		return
	}
	s.out = append(s.out, Use{Feature: f, Also: also, Start: start, End: end})
}

// learn is the first pass: the names the script declares, assigns and
// tests for.
func (s *scanner) learn(n ast.Node) {
	if isNil(n) || s.visits >= maxVisits {
		return
	}
	s.visits++
	switch n := n.(type) {
	case *ast.Binding:
		s.declare(n.Target, n.Initializer)
	case *ast.FunctionLiteral:
		if n.Name != nil {
			s.declareName(n.Name.Name.String())
		}
		s.params(n.ParameterList)
	case *ast.ArrowFunctionLiteral:
		s.params(n.ParameterList)
	case *ast.ClassLiteral:
		if n.Name != nil {
			s.declareName(n.Name.Name.String())
		}
	case *ast.CatchStatement:
		s.declare(n.Parameter, nil)
	case *ast.ForDeclaration:
		s.declare(n.Target, nil)
	case *ast.ForIntoExpression:
		s.declare(n.Expression, nil)
	case *ast.AssignExpression:
		if n.Operator == token.ASSIGN {
			switch l := n.Left.(type) {
			case *ast.Identifier:
				s.declared[l.Name.String()] = true
				s.assigns[l.Name.String()] = append(s.assigns[l.Name.String()], n.Right)
			case *ast.DotExpression:
				if c := builtinChain(l); c != "" {
					s.trusted[c] = true
				}
			case *ast.ObjectPattern, *ast.ArrayPattern:
				s.declare(l, nil)
			}
		}
	case *ast.UnaryExpression:
		if n.Operator == token.TYPEOF || n.Operator == token.NOT {
			s.test(n.Operand)
		}
	case *ast.IfStatement:
		s.test(n.Test)
	case *ast.ConditionalExpression:
		s.test(n.Test)
	case *ast.BinaryExpression:
		if n.Operator == token.LOGICAL_AND || n.Operator == token.LOGICAL_OR || n.Operator == token.COALESCE {
			s.test(n.Left)
		}
	case *ast.CallExpression:
		// Object.defineProperty(Array.prototype, "includes", ...): a polyfill.
		if d, ok := n.Callee.(*ast.DotExpression); ok && chain(d) == "Object.defineProperty" && len(n.ArgumentList) >= 2 {
			if key, ok := n.ArgumentList[1].(*ast.StringLiteral); ok {
				if c := chain(n.ArgumentList[0]); c != "" {
					s.trusted[c+"."+key.Value.String()] = true
				}
			}
		}
	}
	children(n, s.learn)
}

// test marks what a test reads as trusted: the script handles its absence.
func (s *scanner) test(e ast.Expression) {
	switch e := e.(type) {
	case *ast.Identifier:
		s.trusted[e.Name.String()] = true
	case *ast.DotExpression:
		if c := builtinChain(e); c != "" {
			s.trusted[c] = true
		}
	}
}

// builtinChain is chain(d) when d's member may be a builtin's, else "":
// most member reads are the script's own, and need no string built.
func builtinChain(d *ast.DotExpression) string {
	if name := d.Identifier.Name.String(); !staticNames[name] && featuresByMethod[name] == nil {
		return ""
	}
	return chain(d)
}

func (s *scanner) declareName(name string) {
	s.declared[name] = true
	s.unknown[name] = true
}

func (s *scanner) params(p *ast.ParameterList) {
	if p == nil {
		return
	}
	for _, b := range p.List {
		if b != nil {
			s.declare(b.Target, nil)
		}
	}
	if !isNil(p.Rest) {
		s.declare(p.Rest, nil)
	}
}

// declare records the names a binding target declares; init is the
// value of a plain name, nil when unknown.
func (s *scanner) declare(target ast.Expression, init ast.Expression) {
	s.visits++
	if isNil(target) || s.visits >= maxVisits {
		return
	}
	switch t := target.(type) {
	case *ast.Identifier:
		name := t.Name.String()
		s.declared[name] = true
		if isNil(init) {
			s.unknown[name] = true
		} else {
			s.assigns[name] = append(s.assigns[name], init)
		}
	case *ast.Binding:
		s.declare(t.Target, nil)
	case *ast.ObjectPattern:
		for _, p := range t.Properties {
			switch p := p.(type) {
			case *ast.PropertyShort:
				s.declare(&p.Name, nil)
			case *ast.PropertyKeyed:
				s.declare(p.Value, nil)
			}
		}
		s.declare(t.Rest, nil)
	case *ast.ArrayPattern:
		for _, e := range t.Elements {
			s.declare(e, nil)
		}
		s.declare(t.Rest, nil)
	case *ast.AssignExpression: // a default in a pattern: a = 1
		s.declare(t.Left, nil)
	}
}

// chain is "X.m" or "X.prototype.m" for a member of a name, else "".
func chain(e ast.Expression) string {
	switch e := e.(type) {
	case *ast.Identifier:
		return e.Name.String()
	case *ast.DotExpression:
		switch l := e.Left.(type) {
		case *ast.Identifier:
			return l.Name.String() + "." + e.Identifier.Name.String()
		case *ast.DotExpression:
			if id, ok := l.Left.(*ast.Identifier); ok && l.Identifier.Name == "prototype" {
				return id.Name.String() + ".prototype." + e.Identifier.Name.String()
			}
		}
	}
	return ""
}

// root is the name an a.b.c chain starts from, "" for none.
func root(e ast.Expression) string {
	for i := 0; i < 64; i++ {
		switch x := e.(type) {
		case *ast.Identifier:
			return x.Name.String()
		case *ast.DotExpression:
			e = x.Left
		case *ast.Optional:
			e = x.Expression
		default:
			return ""
		}
	}
	return ""
}

// namespaces are globals whose members are statics, never a value's
// methods; api, context and console are the platform's.
var namespaces = map[string]bool{"Object": true, "Array": true, "Number": true, "Math": true, "String": true, "JSON": true,
	"Promise": true, "Date": true, "RegExp": true, "Reflect": true, "Symbol": true, "Map": true, "Set": true, "Error": true,
	"Function": true, "Boolean": true, "Proxy": true, "BigInt": true, "Intl": true, "api": true, "context": true, "console": true}

// visit is the second pass: the uses.
func (s *scanner) visit(n ast.Node) {
	if isNil(n) || s.visits >= maxVisits || len(s.out) >= MaxUses {
		return
	}
	s.visits++
	switch n := n.(type) {
	case *ast.Identifier:
		if featuresByGlobal[n.Name.String()] != nil {
			s.pending = append(s.pending, n)
		}
	case *ast.DotExpression:
		if name := n.Identifier.Name.String(); staticNames[name] || featuresByMethod[name] != nil {
			s.pending = append(s.pending, n)
		}
	case *ast.CallExpression:
		if d, ok := unwrapOptional(n.Callee).(*ast.DotExpression); ok && d != nil && featuresByMethod[d.Identifier.Name.String()] != nil {
			s.pending = append(s.pending, n)
		}
		s.args(n.ArgumentList, n.RightParenthesis)
	case *ast.NewExpression:
		if n.RightParenthesis > 0 {
			s.args(n.ArgumentList, n.RightParenthesis)
		}
	case *ast.ArrowFunctionLiteral:
		s.report(fArrow, n)
		if n.Async {
			s.report(fAsync, n)
		}
		s.paramFeatures(n.ParameterList)
	case *ast.FunctionLiteral:
		if n.Async {
			s.report(fAsync, n)
		}
		if n.Generator {
			s.report(fGenerator, n)
		}
		s.paramFeatures(n.ParameterList)
	case *ast.LexicalDeclaration:
		s.reportAt(fLexical, s.off(n.Idx), s.off(n.Idx)+len(n.Token.String()), nil)
	case *ast.ForLoopInitializerLexicalDecl:
		s.reportAt(fLexical, s.off(n.LexicalDeclaration.Idx), s.off(n.LexicalDeclaration.Idx)+len(n.LexicalDeclaration.Token.String()), nil)
	case *ast.ForDeclaration:
		s.report(fLexical, n)
	case *ast.TemplateLiteral:
		if isNil(n.Tag) {
			s.report(fTemplate, n)
		} else {
			s.report(fTagged, n)
		}
	case *ast.ClassLiteral:
		s.reportAt(fClass, s.off(n.Class), s.off(n.Class)+len("class"), nil)
	case *ast.FieldDefinition:
		s.report(fClassField, n)
		if _, ok := n.Key.(*ast.PrivateIdentifier); ok {
			s.report(fPrivate, n.Key)
		}
	case *ast.MethodDefinition:
		if _, ok := n.Key.(*ast.PrivateIdentifier); ok {
			s.report(fPrivate, n.Key)
		}
	case *ast.ClassStaticBlock:
		s.report(fStaticBlock, n)
	case *ast.PrivateDotExpression:
		s.reportAt(fPrivate, s.off(n.Identifier.Idx)-1, s.off(n.Identifier.Idx)+len(n.Identifier.Name.String()), nil)
	case *ast.ObjectPattern:
		s.report(fDestructuring, n)
		if !isNil(n.Rest) {
			s.report(fObjectRest, n.Rest)
		}
		s.patternChildren(n)
		return
	case *ast.ArrayPattern:
		s.report(fDestructuring, n)
		s.patternChildren(n)
		return
	case *ast.ArrayLiteral:
		for _, e := range n.Value {
			if sp, ok := e.(*ast.SpreadElement); ok && sp != nil {
				s.reportAt(fSpread, s.off(sp.Idx0())-3, s.off(sp.Idx0()), nil)
			}
		}
	case *ast.ObjectLiteral:
		for _, p := range n.Value {
			switch p := p.(type) {
			case *ast.PropertyShort:
				s.report(fShorthand, &p.Name)
			case *ast.PropertyKeyed:
				if p.Computed {
					s.report(fComputed, p.Key)
				}
				if p.Kind == ast.PropertyKindMethod {
					s.report(fMethod, p.Key)
				}
			case *ast.SpreadElement:
				s.reportAt(fObjectRest, s.off(p.Idx0())-3, s.off(p.Idx0()), nil)
			}
		}
	case *ast.ForOfStatement:
		s.reportAt(fForOf, s.off(n.For), s.off(n.For)+len("for"), nil)
	case *ast.MetaProperty:
		if n.Meta != nil && n.Meta.Name == "new" {
			s.report(fNewTarget, n)
		}
	case *ast.BinaryExpression:
		switch n.Operator {
		case token.EXPONENT:
			s.report(fExponent, n)
		case token.COALESCE:
			s.report(fNullish, n)
		}
		if _, ok := n.Left.(*ast.PrivateIdentifier); ok {
			s.report(fPrivate, n.Left)
		}
	case *ast.AssignExpression:
		switch n.Operator {
		case token.EXPONENT:
			s.report(fExponent, n)
		case token.LOGICAL_AND, token.LOGICAL_OR, token.COALESCE:
			s.report(fLogicalAssign, n)
		}
	case *ast.OptionalChain:
		s.report(fOptionalChain, n)
	case *ast.CatchStatement:
		if isNil(n.Parameter) {
			s.reportAt(fOptionalCatch, s.off(n.Catch), s.off(n.Catch)+len("catch"), nil)
		}
	case *ast.NumberLiteral:
		s.number(n)
	case *ast.StringLiteral:
		s.str(n)
	case *ast.RegExpLiteral:
		s.regexp(n)
	}
	children(n, s.visit)
}

// patternChildren visits a pattern's parts without reporting the
// patterns nested in it again.
func (s *scanner) patternChildren(n ast.Node) {
	children(n, func(c ast.Node) {
		switch c.(type) {
		case *ast.ObjectPattern, *ast.ArrayPattern:
			if op, ok := c.(*ast.ObjectPattern); ok && !isNil(op.Rest) {
				s.report(fObjectRest, op.Rest)
			}
			s.patternChildren(c)
		default:
			s.visit(c)
		}
	})
}

// member reports X.m and X.prototype.m; true when it did.
func (s *scanner) member(d *ast.DotExpression) bool {
	if name := d.Identifier.Name.String(); !staticNames[name] && featuresByMethod[name] == nil {
		return false // the common case, without building the chain
	}
	c := chain(d)
	if c == "" || s.trusted[c] {
		return false
	}
	global, _, _ := strings.Cut(c, ".")
	if s.declared[global] {
		return false
	}
	if f := featuresByStatic[c]; f != nil && !s.level.Admits(f.Level) {
		s.report(f, d)
		return true
	}
	if typ, m, ok := strings.Cut(c, ".prototype."); ok {
		for _, f := range featuresByMethod[m] {
			if f.protoType == typ && !s.level.Admits(f.Level) {
				s.report(f, d)
				return true
			}
		}
	}
	return false
}

// method reports a builtin method called on a value: x.includes(y).
func (s *scanner) method(call *ast.CallExpression) {
	d, ok := unwrapOptional(call.Callee).(*ast.DotExpression)
	if !ok || d == nil {
		return
	}
	name := d.Identifier.Name.String()
	cands := featuresByMethod[name]
	if len(cands) == 0 {
		return
	}
	if r := root(d.Left); r != "" && !s.declared[r] && (namespaces[r] || featuresByGlobal[r] != nil) {
		return // a static (Object.keys) or the platform's (api.rest.v1.get)
	}
	if c := chain(d); strings.Contains(c, ".prototype.") {
		return // member reports it
	}
	var typ string
	switch s.kindOf(d.Left, 0) {
	case arrayValue:
		typ = "Array"
	case stringValue:
		typ = "String"
	}
	start := s.off(d.Identifier.Idx)
	end := start + len(name)
	if typ != "" {
		for _, f := range cands {
			if f.protoType == typ && !s.trusted[typ+".prototype."+name] {
				s.reportAt(f, start, end, nil)
			}
		}
		return
	}
	// Unknown receiver: only when no builtin of that name is admitted.
	var first *Feature
	var also []*Feature
	for _, f := range cands {
		if s.level.Admits(f.Level) || s.trusted[f.protoType+".prototype."+name] {
			return
		}
		if first == nil || f.Level < first.Level {
			if first != nil {
				also = append(also, first)
			}
			first = f
		} else {
			also = append(also, f)
		}
	}
	sort.SliceStable(also, func(i, j int) bool { return also[i].Level < also[j].Level })
	s.reportAt(first, start, end, also)
}

// rootIdent is the name X of X or X.prototype, else nil.
func rootIdent(e ast.Expression) *ast.Identifier {
	if d, ok := e.(*ast.DotExpression); ok && d != nil && d.Identifier.Name == "prototype" {
		e = d.Left
	}
	id, _ := e.(*ast.Identifier)
	return id
}

func unwrapOptional(e ast.Expression) ast.Expression {
	if o, ok := e.(*ast.Optional); ok && o != nil {
		return o.Expression
	}
	return e
}

// kindOf is what an expression evidently is.
func (s *scanner) kindOf(e ast.Expression, depth int) valueKind {
	if depth > 8 || isNil(e) {
		return unknownValue
	}
	switch e := e.(type) {
	case *ast.ArrayLiteral:
		return arrayValue
	case *ast.StringLiteral:
		return stringValue
	case *ast.TemplateLiteral:
		if isNil(e.Tag) {
			return stringValue
		}
	case *ast.BinaryExpression:
		if e.Operator == token.PLUS && (s.kindOf(e.Left, depth+1) == stringValue || s.kindOf(e.Right, depth+1) == stringValue) {
			return stringValue
		}
	case *ast.NewExpression:
		if id, ok := e.Callee.(*ast.Identifier); ok && id.Name == "Array" && !s.declared["Array"] {
			return arrayValue
		}
	case *ast.Identifier:
		return s.nameKind(e.Name.String(), depth)
	case *ast.CallExpression:
		d, ok := e.Callee.(*ast.DotExpression)
		if !ok || d == nil {
			if id, ok := e.Callee.(*ast.Identifier); ok && id.Name == "String" && !s.declared["String"] {
				return stringValue
			}
			return unknownValue
		}
		switch c := chain(d); c {
		case "Object.keys", "Object.getOwnPropertyNames", "Object.values", "Object.entries", "Array.from", "Array.of":
			if !s.declared["Object"] && !s.declared["Array"] {
				return arrayValue
			}
		case "JSON.stringify":
			if !s.declared["JSON"] {
				return stringValue
			}
		}
		switch d.Identifier.Name {
		case "map", "filter", "sort", "reverse", "splice", "flat", "flatMap", "toSorted", "toReversed", "toSpliced":
			return arrayValue
		case "split", "match":
			if s.kindOf(d.Left, depth+1) == stringValue || d.Identifier.Name == "split" {
				return arrayValue
			}
		case "slice", "concat":
			return s.kindOf(d.Left, depth+1)
		case "toLowerCase", "toUpperCase", "trim", "substring", "substr", "charAt", "replace", "join", "toFixed",
			"toString", "toISOString", "padStart", "padEnd", "repeat", "trimStart", "trimEnd", "replaceAll", "normalize":
			return stringValue
		}
	}
	return unknownValue
}

// nameKind is the kind of every value a name is given, when they agree.
func (s *scanner) nameKind(name string, depth int) valueKind {
	if s.unknown[name] {
		return unknownValue
	}
	if k, ok := s.kinds[name]; ok {
		if k == resolving {
			return unknownValue
		}
		return k
	}
	vals := s.assigns[name]
	if len(vals) == 0 {
		return unknownValue
	}
	s.kinds[name] = resolving
	k := s.kindOf(vals[0], depth+1)
	for _, v := range vals[1:] {
		if k == unknownValue {
			break
		}
		if s.kindOf(v, depth+1) != k {
			k = unknownValue
		}
	}
	s.kinds[name] = k
	return k
}

func (s *scanner) paramFeatures(p *ast.ParameterList) {
	if p == nil {
		return
	}
	for _, b := range p.List {
		if b != nil && !isNil(b.Initializer) {
			s.report(fDefaultParam, b)
		}
	}
	if !isNil(p.Rest) {
		s.reportAt(fRestParam, s.off(p.Rest.Idx0())-3, s.off(p.Rest.Idx1()), nil)
		return
	}
	if len(p.List) > 0 && p.List[len(p.List)-1] != nil && p.Closing > 0 {
		s.trailingComma(p.List[len(p.List)-1].Idx1(), p.Closing)
	}
}

// args reports spread arguments and a trailing comma.
func (s *scanner) args(list []ast.Expression, closing file.Idx) {
	for _, e := range list {
		if sp, ok := e.(*ast.SpreadElement); ok && sp != nil {
			s.reportAt(fSpread, s.off(sp.Idx0())-3, s.off(sp.Idx0()), nil)
		}
	}
	if len(list) > 0 && !isNil(list[len(list)-1]) && closing > 0 {
		s.trailingComma(list[len(list)-1].Idx1(), closing)
	}
}

func (s *scanner) trailingComma(lastEnd, closing file.Idx) {
	from, to := s.off(lastEnd), s.off(closing)
	if from >= to {
		return
	}
	if i := TrailingComma(s.text[from:to]); i >= 0 {
		s.reportAt(fTrailingComma, from+i, from+i+1, nil)
	}
}

// TrailingComma is the offset of the one comma in between, the text
// from the end of a list's last element to its closing parenthesis,
// when nothing but spaces, comments and closing parentheses surround it;
// -1 otherwise (no comma, or text the parser's positions did not
// account for: then nothing is reported).
func TrailingComma(between string) int {
	comma := -1
	for i := 0; i < len(between); i++ {
		switch c := between[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == ')':
		case c == ',':
			if comma >= 0 {
				return -1
			}
			comma = i
		case c == '/' && i+1 < len(between) && between[i+1] == '/':
			j := strings.IndexAny(between[i:], "\r\n")
			if j < 0 {
				return -1 // the comment runs to the closing parenthesis: impossible
			}
			i += j
		case c == '/' && i+1 < len(between) && between[i+1] == '*':
			j := strings.Index(between[i+2:], "*/")
			if j < 0 {
				return -1
			}
			i += j + 3
		default:
			return -1
		}
	}
	return comma
}

func (s *scanner) number(n *ast.NumberLiteral) {
	lit := n.Literal
	if len(lit) > 1 && lit[0] == '0' && strings.ContainsRune("bBoO", rune(lit[1])) {
		s.report(fBinOct, n)
	}
	if strings.HasSuffix(lit, "n") {
		s.report(fBigIntLiteral, n)
	}
	if strings.Contains(lit, "_") {
		s.report(fNumSeparator, n)
	}
}

func (s *scanner) str(n *ast.StringLiteral) {
	lit := n.Literal
	if strings.Contains(lit, "\u2028") || strings.Contains(lit, "\u2029") {
		s.report(fLineSeparator, n)
	}
	for i := 0; i+1 < len(lit); i++ {
		if lit[i] == '\\' {
			if lit[i+1] == 'u' && i+2 < len(lit) && lit[i+2] == '{' {
				s.report(fCodePoint, n)
				return
			}
			i++
		}
	}
}

func (s *scanner) regexp(n *ast.RegExpLiteral) {
	if strings.ContainsAny(n.Flags, "yu") {
		s.report(fRegexpYU, n)
	}
	if strings.Contains(n.Flags, "s") {
		s.report(fRegexpS, n)
	}
	for _, f := range RegexpFeatures(n.Pattern, strings.Contains(n.Flags, "u")) {
		s.report(f, n)
	}
}

// RegexpFeatures are the ES2018 features a regular expression's pattern
// uses: named groups, lookbehind, and (with the u flag) \p{...}.
func RegexpFeatures(pattern string, unicode bool) []*Feature {
	var out []*Feature
	seen := map[*Feature]bool{}
	add := func(f *Feature) {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	class := false
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '\\':
			if unicode && i+2 < len(pattern) && (pattern[i+1] == 'p' || pattern[i+1] == 'P') && pattern[i+2] == '{' {
				add(fPropertyEscape)
			}
			i++
		case class:
			class = c != ']'
		case c == '[':
			class = true
		case c == '(' && strings.HasPrefix(pattern[i:], "(?<="), c == '(' && strings.HasPrefix(pattern[i:], "(?<!"):
			add(fLookbehind)
		case c == '(' && strings.HasPrefix(pattern[i:], "(?<"):
			add(fNamedGroup)
		}
	}
	return out
}

// isNil reports whether n is nil or a typed nil pointer: the parser
// leaves typed nils in interfaces.
func isNil(n any) bool {
	if n == nil {
		return true
	}
	v := reflect.ValueOf(n)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
