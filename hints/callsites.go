package hints

import (
	"strings"

	"github.com/dop251/goja/ast"
)

// CallSite is one api.rest.v1 call of a script, as written: what the
// project index (references, rename, symbols) reads of every script.
type CallSite struct {
	// Name is the call's name as written ("get"); Method its HTTP method,
	// "" when the name is not one of the five calls.
	Name, Method string
	Call         Range // the whole call expression
	NameRange    Range // the name after api.rest.v1.
	// ServiceID is the serviceId when it is a string literal, IDRange the
	// literal's content (inside the quotes) and Quote its quote. Dynamic
	// is set when the serviceId is built at run time (any other
	// expression); IDRange then covers that expression. A call without
	// arguments has neither.
	ServiceID string
	IDRange   Range
	Quote     byte
	Dynamic   bool
	// Path is PATH's pathParams joined with "/", each literal as written
	// and any other expression as {name} ({…} when it is not a name);
	// "" when there are none or PATH is not an object literal.
	Path string
	// Func is the name of the innermost named function around the call,
	// FuncRange its span; "" and the zero range at the top level.
	Func      string
	FuncRange Range
}

// CallSites returns the api.rest.v1 calls of doc in source order, from its
// AST (parsed once per Document). A script that does not parse yields the
// calls of what the parser recovered; one beyond jsdepth.Max yields none.
func CallSites(doc *Document) (out []CallSite) {
	defer recovered()
	if doc == nil || !strings.Contains(doc.text, "v1") {
		// Every call is spelt api.rest.v1.<name>: a script without "v1"
		// has none, and is not parsed.
		return nil
	}
	p := doc.parse()
	if p.body == nil {
		return nil
	}
	text := doc.text
	var funcs []namedFunc
	walk(p.body, func(n ast.Node) {
		if f, ok := functionOf(text, n); ok {
			funcs = append(funcs, f)
			return
		}
		call, ok := n.(*ast.CallExpression)
		if !ok || call == nil {
			return
		}
		name, ok := apiCallName(call.Callee)
		if !ok {
			return
		}
		dot := call.Callee.(*ast.DotExpression)
		start := offsetOf(text, dot.Identifier.Idx)
		cs := CallSite{Name: name, Call: Range{offsetOf(text, call.Idx0()), offsetOf(text, call.Idx1())},
			NameRange: Range{start, min(start+len(name), len(text))}}
		if c := callIndex(name); c >= 0 {
			cs.Method = calls[c].Method
		}
		if len(call.ArgumentList) > argServiceID {
			arg := call.ArgumentList[argServiceID]
			if s, ok := arg.(*ast.StringLiteral); ok && s != nil && len(s.Literal) >= 2 {
				r := Range{offsetOf(text, s.Idx0()), offsetOf(text, s.Idx1())}
				cs.ServiceID, cs.IDRange, cs.Quote = s.Value.String(), Range{r.Start + 1, r.End - 1}, s.Literal[0]
			} else if !isNil(arg) {
				cs.Dynamic = true
				cs.IDRange = Range{offsetOf(text, arg.Idx0()), offsetOf(text, arg.Idx1())}
			}
		}
		if len(call.ArgumentList) > argPath {
			cs.Path = pathOf(text, call.ArgumentList[argPath])
		}
		out = append(out, cs)
	})
	for i := range out {
		// The innermost function holding the call: funcs are in walk
		// order (parents first), so the last one that holds it.
		for _, f := range funcs {
			if f.r.Start <= out[i].Call.Start && out[i].Call.End <= f.r.End {
				out[i].Func, out[i].FuncRange = f.name, f.r
			}
		}
	}
	return out
}

type namedFunc struct {
	name string
	r    Range
}

// functionOf returns the named function n declares: a function
// declaration or named function expression, a variable or property whose
// value is a function, or a class method.
func functionOf(text string, n ast.Node) (namedFunc, bool) {
	fnRange := func(e ast.Node) (Range, bool) {
		switch f := e.(type) {
		case *ast.FunctionLiteral:
			if f != nil {
				return Range{offsetOf(text, f.Idx0()), offsetOf(text, f.Idx1())}, true
			}
		case *ast.ArrowFunctionLiteral:
			if f != nil {
				return Range{offsetOf(text, f.Idx0()), offsetOf(text, f.Idx1())}, true
			}
		}
		return Range{}, false
	}
	switch n := n.(type) {
	case *ast.FunctionLiteral:
		if n != nil && n.Name != nil {
			r, _ := fnRange(n)
			return namedFunc{n.Name.Name.String(), r}, true
		}
	case *ast.Binding:
		if id, ok := n.Target.(*ast.Identifier); ok && id != nil && !isNil(n.Initializer) {
			if r, ok := fnRange(n.Initializer); ok {
				if fl, ok := n.Initializer.(*ast.FunctionLiteral); ok && fl.Name != nil {
					return namedFunc{}, false // the literal names itself
				}
				return namedFunc{id.Name.String(), r}, true
			}
		}
	case *ast.PropertyKeyed:
		if n == nil || isNil(n.Value) {
			return namedFunc{}, false
		}
		if r, ok := fnRange(n.Value); ok {
			if fl, ok := n.Value.(*ast.FunctionLiteral); ok && fl.Name != nil {
				return namedFunc{}, false
			}
			if k, _ := propKey(n); k != "" {
				return namedFunc{k, r}, true
			}
			if id, ok := n.Key.(*ast.Identifier); ok && id != nil {
				return namedFunc{id.Name.String(), r}, true
			}
		}
	case *ast.MethodDefinition:
		if n != nil && n.Body != nil {
			if id, ok := n.Key.(*ast.Identifier); ok && id != nil {
				return namedFunc{id.Name.String(), Range{offsetOf(text, n.Idx0()), offsetOf(text, n.Idx1())}}, true
			}
			if s, ok := n.Key.(*ast.StringLiteral); ok && s != nil {
				return namedFunc{s.Value.String(), Range{offsetOf(text, n.Idx0()), offsetOf(text, n.Idx1())}}, true
			}
		}
	}
	return namedFunc{}, false
}

// pathOf renders PATH's pathParams: "/a/{id}".
func pathOf(text string, e ast.Expression) string {
	obj := objectLit(e)
	if obj == nil {
		return ""
	}
	for _, p := range obj.Value {
		k, _ := propKey(p)
		pk, ok := p.(*ast.PropertyKeyed)
		if k != "pathParams" || !ok {
			continue
		}
		arr, ok := pk.Value.(*ast.ArrayLiteral)
		if !ok || arr == nil {
			return ""
		}
		var b strings.Builder
		for _, el := range arr.Value {
			b.WriteByte('/')
			switch x := el.(type) {
			case *ast.StringLiteral:
				if x != nil {
					b.WriteString(x.Value.String())
				}
			case *ast.Identifier:
				if x != nil {
					b.WriteString("{" + x.Name.String() + "}")
				}
			default:
				if c := dotChain(el); len(c) > 0 {
					b.WriteString("{" + c[len(c)-1] + "}")
				} else {
					b.WriteString("{…}")
				}
			}
			if b.Len() > 200 {
				return b.String()[:200] + "…"
			}
		}
		return b.String()
	}
	return ""
}
