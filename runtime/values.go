package runtime

import (
	"math"
	"strconv"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"

	"github.com/restls/restls/runtime/dryrun"
)

// The last run's values (issue 35, LSP textDocument/inlineValue). A run
// that asks for them (Options.Values: an editor's or the designer's dry
// run) gets a program where each value given a name is handed to
// valueHook on its way: the initializer of a declared variable (var, let,
// const x = ...), and an assignment or update that is a statement of its
// own (x = ..., x += ..., x++, order.status = ...). The hook keeps the
// last value of each place as the preview shows values, bounded, and
// the result carries them (Result.Values). A run that does not ask pays
// nothing.

// valueHook is the global the instrumented program calls for values.
const valueHook = "__restls_value"

// Bounds: the places a script's values are kept for, the text of one
// value, and how far into an object or array a value is shown.
const (
	maxValueSites = 2000
	maxValueText  = 120
	maxValueItems = 5
	// maxEagerPreviews is how many values of one place are shown as they
	// are given; past it an object is kept and shown as it is when the
	// run ends (showing a large object costs its size, and a loop may
	// give one a million times).
	maxEagerPreviews = 100
)

// valueSite is a place a value is named at: its name and where.
type valueSite struct {
	name string
	at   file.Idx
}

// instrumentValues wraps the values of prg's declarations and
// assignment statements in calls to valueHook, and returns their
// places in the hook's numbering.
func instrumentValues(prg *ast.Program, base file.Idx) []valueSite {
	var sites []valueSite
	wrap := func(name string, at file.Idx, x ast.Expression) ast.Expression {
		if len(sites) >= maxValueSites || at < base {
			return x
		}
		sites = append(sites, valueSite{name, at})
		id := len(sites) - 1
		return &ast.CallExpression{Callee: &ast.Identifier{Name: valueHook, Idx: at}, LeftParenthesis: at, RightParenthesis: at,
			ArgumentList: []ast.Expression{&ast.NumberLiteral{Idx: at, Literal: strconv.Itoa(id), Value: int64(id)}, x}}
	}
	walkNodes(prg, maxCoverageWalk, func(n ast.Node) {
		switch s := n.(type) {
		case *ast.Binding:
			if id, ok := s.Target.(*ast.Identifier); ok && s.Initializer != nil {
				s.Initializer = wrap(string(id.Name), id.Idx, s.Initializer)
			}
		case *ast.ExpressionStatement:
			switch e := s.Expression.(type) {
			case *ast.AssignExpression:
				if name := valueName(e.Left); name != "" {
					s.Expression = wrap(name, e.Left.Idx0(), e)
				}
			case *ast.UnaryExpression:
				if e.Operator.String() == "++" || e.Operator.String() == "--" {
					if name := valueName(e.Operand); name != "" {
						e.Postfix = false // a statement of its own: the same, and its value is the new one
						s.Expression = wrap(name, e.Operand.Idx0(), e)
					}
				}
			}
		}
	})
	return sites
}

// valueName is a name a value is given to, as written: x, or a path of
// properties (order.status); "" for anything else (o[k], f().x).
func valueName(e ast.Expression) string {
	var parts []string
	for range 8 {
		switch x := e.(type) {
		case *ast.Identifier:
			parts = append(parts, string(x.Name))
			for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
				parts[i], parts[j] = parts[j], parts[i]
			}
			return strings.Join(parts, ".")
		case *ast.DotExpression:
			parts = append(parts, string(x.Identifier.Name))
			e = x.Left
		default:
			return ""
		}
	}
	return ""
}

// seenValue is a place's last value, shown (or kept, to be shown at the
// end: maxEagerPreviews), and how many were given.
type seenValue struct {
	text  string
	last  goja.Value
	times int
}

// installValueHook defines valueHook, which keeps what each place was
// last given.
func (r *runner) installValueHook(sites []valueSite) error {
	r.valueSites = sites
	r.seen = make([]seenValue, len(sites))
	return r.vm.Set(valueHook, func(call goja.FunctionCall) goja.Value {
		id := int(call.Argument(0).ToInteger())
		v := call.Argument(1)
		if id >= 0 && id < len(r.seen) {
			sv := &r.seen[id]
			sv.times++
			if _, obj := v.(*goja.Object); obj && sv.times > maxEagerPreviews {
				sv.last = v
			} else {
				sv.text, sv.last = previewValue(v, maxValueText), nil
			}
		}
		return v
	})
}

// values are the places that were given a value, with their last one,
// every credential hidden, in the order of the places.
func (r *runner) values(src string) []dryrun.LineValue {
	if len(r.seen) == 0 {
		return nil
	}
	red := r.session.Redactor()
	starts := lineStarts(src)
	var out []dryrun.LineValue
	for i, sv := range r.seen {
		if sv.times == 0 {
			continue
		}
		if sv.last != nil {
			sv.text = previewValue(sv.last, maxValueText)
		}
		line, column := place(starts, int(r.valueSites[i].at)-1-len(prefix))
		if line == 0 {
			continue
		}
		end := len(src)
		if line < len(starts) {
			end = starts[line]
		}
		out = append(out, dryrun.LineValue{Line: line, Column: column, Name: r.valueSites[i].name,
			Value: red.String(sv.text), Times: sv.times, LineHash: dryrun.LineHash(src[starts[line-1]:end])})
	}
	return out
}

// previewValue is v as a line of text of about max bytes: a string
// quoted, an array or object by its first items, a function by its
// name; it reads a bounded part of v, never the whole of a large one.
func previewValue(v goja.Value, max int) string {
	var b strings.Builder
	writeValue(&b, v, 2, max)
	s := b.String()
	if len(s) > max {
		s = strings.ToValidUTF8(s[:max], "") + "…"
	}
	return s
}

func writeValue(b *strings.Builder, v goja.Value, depth, max int) {
	if b.Len() > max {
		return
	}
	switch {
	case v == nil || goja.IsUndefined(v):
		b.WriteString("undefined")
		return
	case goja.IsNull(v):
		b.WriteString("null")
		return
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		if s, isStr := v.Export().(string); isStr {
			if len(s) > max {
				s = s[:max]
			}
			b.WriteString(strconv.Quote(s))
			return
		}
		if f, isNum := v.Export().(float64); isNum && (math.IsInf(f, 0) || math.IsNaN(f)) {
			b.WriteString(v.String())
			return
		}
		b.WriteString(v.String())
		return
	}
	if _, fn := goja.AssertFunction(v); fn {
		b.WriteString("ƒ " + obj.Get("name").String())
		return
	}
	if depth == 0 {
		if obj.ClassName() == "Array" {
			b.WriteString("[…]")
		} else {
			b.WriteString("{…}")
		}
		return
	}
	if obj.ClassName() == "Array" {
		n := obj.Get("length").ToInteger()
		b.WriteByte('[')
		for i := int64(0); i < n && i < maxValueItems; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			writeValue(b, obj.Get(strconv.FormatInt(i, 10)), depth-1, max)
		}
		if n > maxValueItems {
			b.WriteString(", …")
		}
		b.WriteByte(']')
		return
	}
	keys := obj.Keys()
	b.WriteByte('{')
	for i, k := range keys {
		if i == maxValueItems || b.Len() > max {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k + ": ")
		writeValue(b, obj.Get(k), depth-1, max)
	}
	b.WriteByte('}')
}
