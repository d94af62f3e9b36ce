package hints

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"

	"github.com/restls/restls/jsdepth"
)

// Scripts are function bodies (a top-level return is allowed), so the text
// is parsed wrapped in a function. The prefix holds no newline, so lines
// keep their numbers; positions are mapped back by subtracting its length.
const (
	wrapPrefix = "(function(){"
	wrapSuffix = "\n})"
)

// syntaxError is a parse error at a byte offset of the document.
type syntaxError struct {
	offset int
	msg    string
}

type parseResult struct {
	body *ast.BlockStatement // the script's statements; nil when nothing parsed
	errs []syntaxError
	// depth is the nesting budget's verdict; when it is not OK nothing
	// was parsed (body and errs are empty).
	depth jsdepth.Result
}

// WrapBefore and WrapAfter are the room NewDocumentIn needs before and
// after a script's text, for the function the text is parsed in.
const (
	WrapBefore = len(wrapPrefix)
	WrapAfter  = len(wrapSuffix)
)

// NewDocumentIn is NewDocument of the text buf[WrapBefore:len(buf)-WrapAfter],
// parsed where it is: the function it is parsed in is written into the
// room around it, instead of the text being copied into a new buffer
// (restls check reads each script into such a buffer: input.Room). The
// document owns buf: it must never be written again.
func NewDocumentIn(buf []byte) *Document {
	copy(buf, wrapPrefix)
	copy(buf[len(buf)-WrapAfter:], wrapSuffix)
	body := buf[WrapBefore : len(buf)-WrapAfter]
	return &Document{text: unsafe.String(unsafe.SliceData(body), len(body)), src: buf}
}

// parse parses the document once, on first use.
func (d *Document) parse() *parseResult {
	d.parseOnce.Do(func() {
		d.parsed = parseScript(d.text, d.src)
		d.src = nil
	})
	return d.parsed
}

// offsetOf maps a parser position (1-based, in the wrapped source) to a
// document offset, clamped to the text.
func offsetOf(text string, idx file.Idx) int {
	o := int(idx) - 1 - len(wrapPrefix)
	if o < 0 {
		return 0
	}
	if o > len(text) {
		return len(text)
	}
	return o
}

func parseScript(text string, src []byte) (res *parseResult) {
	defer func() {
		if e := recover(); e != nil {
			onPanic(e)
			// The parser must not take the server down; say the script
			// could not be checked instead.
			res = &parseResult{errs: []syntaxError{{0, fmt.Sprintf("the script could not be parsed (%v)", e)}}}
		}
	}()
	// The parser recurses once per nesting level and a deep enough script
	// overflows the goroutine stack, which no recover catches: measure
	// first, in one linear pass, and parse only what fits.
	if depth := jsdepth.Check(text, jsdepth.Max); !depth.OK() {
		return &parseResult{depth: depth}
	}
	// Bytes, not a string: the parser copies a string source to bytes and
	// back, two more copies of every script. src, when given, is text
	// wrapped already (NewDocumentIn).
	if src == nil {
		src = make([]byte, 0, len(wrapPrefix)+len(text)+len(wrapSuffix))
		src = append(append(append(src, wrapPrefix...), text...), wrapSuffix...)
	}
	// Source maps are disabled: a "//# sourceMappingURL" comment must never
	// make the parser read files.
	prog, err := parser.ParseFile(nil, "", src, 0, parser.WithDisableSourceMaps)
	res = &parseResult{}
	if err != nil {
		lines := lineStarts(string(src))
		if list, ok := err.(parser.ErrorList); ok {
			for _, e := range list {
				res.errs = append(res.errs, syntaxError{errOffset(text, lines, e.Position), e.Message})
			}
		} else if e, ok := err.(*parser.Error); ok {
			res.errs = append(res.errs, syntaxError{errOffset(text, lines, e.Position), e.Message})
		} else {
			res.errs = append(res.errs, syntaxError{0, err.Error()})
		}
	}
	if len(res.errs) > 0 {
		res.errs = firstError(text, res.errs)
	}
	var fn *ast.FunctionLiteral
	if prog != nil && len(prog.Body) > 0 {
		if es, ok := prog.Body[0].(*ast.ExpressionStatement); ok {
			fn, _ = es.Expression.(*ast.FunctionLiteral)
		}
	}
	if fn == nil || fn.Body == nil {
		if err == nil {
			res.errs = firstError(text, []syntaxError{{0, "Unexpected token }"}})
		}
		return res
	}
	res.body = fn.Body
	// A stray '}' in the script closes the wrapper early; the parser may
	// then accept what follows as another expression. Report it.
	want := file.Idx(1 + len(wrapPrefix) + len(text) + 1)
	if err == nil && (len(prog.Body) != 1 || fn.Body.RightBrace != want) {
		res.errs = firstError(text, []syntaxError{{offsetOf(text, fn.Body.RightBrace), "Unexpected token }"}})
	}
	return res
}

// firstError returns the parse errors with the first one made meaningful
// for the script rather than for the wrapper: an error past the text is an
// unexpected end of input, and a closing bracket that closes nothing,
// before the first error, is the real cause (it closed the wrapper).
func firstError(text string, errs []syntaxError) []syntaxError {
	first := errs[0]
	if first.offset >= len(text) {
		first = syntaxError{len(text), "Unexpected end of input"}
	}
	if stray := strayCloser(text); stray >= 0 && stray <= first.offset {
		first = syntaxError{stray, fmt.Sprintf("Unexpected token %c: it closes more than is open", text[stray])}
	}
	errs[0] = first
	return errs
}

// lineStarts returns the offsets where lines start, splitting like the
// parser (\r\n, \r, \n, U+2028, U+2029).
func lineStarts(src string) []int {
	starts := []int{0}
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		case '\n':
			starts = append(starts, i+1)
		case 0xe2:
			if strings.HasPrefix(src[i:], "\u2028") || strings.HasPrefix(src[i:], "\u2029") {
				i += 2
				starts = append(starts, i+1)
			}
		}
	}
	return starts
}

// errOffset maps an error position (line and byte column in the wrapped
// source) to a document offset.
func errOffset(text string, lines []int, p file.Position) int {
	if p.Line < 1 || p.Line > len(lines) {
		return len(text)
	}
	o := lines[p.Line-1] + p.Column - 1 - len(wrapPrefix)
	if o < 0 {
		return 0
	}
	if o > len(text) {
		return len(text)
	}
	return o
}

// walk calls visit for every node under n, depth first, parents first.
// It is a type switch rather than reflection: Diagnose walks every node of
// every script on every change.
func walk(n ast.Node, visit func(ast.Node)) { walkAny(n, visit) }

// walkAny is walk of a node held in any interface: a child held as an
// ast.Expression or ast.Statement is passed on as it is, where passing it
// as an ast.Node would look its method table up again at every node, and
// each node is visited as its own type.
func walkAny(x any, visit func(ast.Node)) {
	if isNil(x) {
		return
	}
	switch n := x.(type) {
	// Leaves, the commonest nodes.
	case *ast.Identifier:
		visit(n)
	case *ast.StringLiteral:
		visit(n)
	case *ast.NumberLiteral:
		visit(n)
	case *ast.BooleanLiteral:
		visit(n)
	case *ast.NullLiteral:
		visit(n)
	case *ast.ThisExpression:
		visit(n)
	case *ast.ArrayLiteral:
		visit(n)
		walkExprs(n.Value, visit)
	case *ast.ArrayPattern:
		visit(n)
		walkExprs(n.Elements, visit)
		walkAny(n.Rest, visit)
	case *ast.AssignExpression:
		visit(n)
		walkAny(n.Left, visit)
		walkAny(n.Right, visit)
	case *ast.AwaitExpression:
		visit(n)
		walkAny(n.Argument, visit)
	case *ast.YieldExpression:
		visit(n)
		walkAny(n.Argument, visit)
	case *ast.BinaryExpression:
		visit(n)
		walkAny(n.Left, visit)
		walkAny(n.Right, visit)
	case *ast.BracketExpression:
		visit(n)
		walkAny(n.Left, visit)
		walkAny(n.Member, visit)
	case *ast.CallExpression:
		visit(n)
		walkAny(n.Callee, visit)
		walkExprs(n.ArgumentList, visit)
	case *ast.ConditionalExpression:
		visit(n)
		walkAny(n.Test, visit)
		walkAny(n.Consequent, visit)
		walkAny(n.Alternate, visit)
	case *ast.DotExpression:
		visit(n)
		walkAny(n.Left, visit)
	case *ast.PrivateDotExpression:
		visit(n)
		walkAny(n.Left, visit)
	case *ast.OptionalChain:
		visit(n)
		walkAny(n.Expression, visit)
	case *ast.Optional:
		visit(n)
		walkAny(n.Expression, visit)
	case *ast.FunctionLiteral:
		visit(n)
		walkParams(n.ParameterList, visit)
		if n.Body != nil {
			walkAny(n.Body, visit)
		}
	case *ast.ArrowFunctionLiteral:
		visit(n)
		walkParams(n.ParameterList, visit)
		walkAny(n.Body, visit)
	case *ast.ExpressionBody:
		visit(n)
		walkAny(n.Expression, visit)
	case *ast.ClassLiteral:
		visit(n)
		walkAny(n.SuperClass, visit)
		for _, e := range n.Body {
			walkAny(e, visit)
		}
	case *ast.FieldDefinition:
		visit(n)
		walkAny(n.Key, visit)
		walkAny(n.Initializer, visit)
	case *ast.MethodDefinition:
		visit(n)
		walkAny(n.Key, visit)
		if n.Body != nil {
			walkAny(n.Body, visit)
		}
	case *ast.ClassStaticBlock:
		visit(n)
		if n.Block != nil {
			walkAny(n.Block, visit)
		}
	case *ast.NewExpression:
		visit(n)
		walkAny(n.Callee, visit)
		walkExprs(n.ArgumentList, visit)
	case *ast.ObjectLiteral:
		visit(n)
		for _, p := range n.Value {
			walkAny(p, visit)
		}
	case *ast.ObjectPattern:
		visit(n)
		for _, p := range n.Properties {
			walkAny(p, visit)
		}
		walkAny(n.Rest, visit)
	case *ast.PropertyKeyed:
		visit(n)
		walkAny(n.Key, visit)
		walkAny(n.Value, visit)
	case *ast.PropertyShort:
		visit(n)
		walkAny(n.Initializer, visit)
	case *ast.SpreadElement:
		visit(n)
		walkAny(n.Expression, visit)
	case *ast.SequenceExpression:
		visit(n)
		walkExprs(n.Sequence, visit)
	case *ast.TemplateLiteral:
		visit(n)
		walkAny(n.Tag, visit)
		walkExprs(n.Expressions, visit)
	case *ast.UnaryExpression:
		visit(n)
		walkAny(n.Operand, visit)
	case *ast.Binding:
		visit(n)
		walkAny(n.Target, visit)
		walkAny(n.Initializer, visit)

	case *ast.BlockStatement:
		visit(n)
		walkStmts(n.List, visit)
	case *ast.CaseStatement:
		visit(n)
		walkAny(n.Test, visit)
		walkStmts(n.Consequent, visit)
	case *ast.CatchStatement:
		visit(n)
		walkAny(n.Parameter, visit)
		if n.Body != nil {
			walkAny(n.Body, visit)
		}
	case *ast.DoWhileStatement:
		visit(n)
		walkAny(n.Body, visit)
		walkAny(n.Test, visit)
	case *ast.ExpressionStatement:
		visit(n)
		walkAny(n.Expression, visit)
	case *ast.ForInStatement:
		visit(n)
		walkAny(n.Into, visit)
		walkAny(n.Source, visit)
		walkAny(n.Body, visit)
	case *ast.ForOfStatement:
		visit(n)
		walkAny(n.Into, visit)
		walkAny(n.Source, visit)
		walkAny(n.Body, visit)
	case *ast.ForStatement:
		visit(n)
		walkAny(n.Initializer, visit)
		walkAny(n.Test, visit)
		walkAny(n.Update, visit)
		walkAny(n.Body, visit)
	case *ast.ForLoopInitializerExpression:
		visit(n)
		walkAny(n.Expression, visit)
	case *ast.ForLoopInitializerVarDeclList:
		visit(n)
		walkBindings(n.List, visit)
	case *ast.ForLoopInitializerLexicalDecl:
		visit(n)
		walkBindings(n.LexicalDeclaration.List, visit)
	case *ast.ForIntoVar:
		visit(n)
		if n.Binding != nil {
			walkAny(n.Binding, visit)
		}
	case *ast.ForDeclaration:
		visit(n)
		walkAny(n.Target, visit)
	case *ast.ForIntoExpression:
		visit(n)
		walkAny(n.Expression, visit)
	case *ast.IfStatement:
		visit(n)
		walkAny(n.Test, visit)
		walkAny(n.Consequent, visit)
		walkAny(n.Alternate, visit)
	case *ast.LabelledStatement:
		visit(n)
		walkAny(n.Statement, visit)
	case *ast.ReturnStatement:
		visit(n)
		walkAny(n.Argument, visit)
	case *ast.SwitchStatement:
		visit(n)
		walkAny(n.Discriminant, visit)
		for _, c := range n.Body {
			if c != nil {
				walkAny(c, visit)
			}
		}
	case *ast.ThrowStatement:
		visit(n)
		walkAny(n.Argument, visit)
	case *ast.TryStatement:
		visit(n)
		if n.Body != nil {
			walkAny(n.Body, visit)
		}
		if n.Catch != nil {
			walkAny(n.Catch, visit)
		}
		if n.Finally != nil {
			walkAny(n.Finally, visit)
		}
	case *ast.VariableStatement:
		visit(n)
		walkBindings(n.List, visit)
	case *ast.LexicalDeclaration:
		visit(n)
		walkBindings(n.List, visit)
	case *ast.WhileStatement:
		visit(n)
		walkAny(n.Test, visit)
		walkAny(n.Body, visit)
	case *ast.WithStatement:
		visit(n)
		walkAny(n.Object, visit)
		walkAny(n.Body, visit)
	case *ast.FunctionDeclaration:
		visit(n)
		if n.Function != nil {
			walkAny(n.Function, visit)
		}
	case *ast.ClassDeclaration:
		visit(n)
		if n.Class != nil {
			walkAny(n.Class, visit)
		}
	default:
		if n, ok := x.(ast.Node); ok {
			visit(n)
		}
	}
}

// isNil reports whether n is nil or a typed nil pointer: the parser
// leaves typed nils in interfaces.
//
// Every node type of goja's ast is a pointer (their methods have pointer
// receivers), so an interface holding one is a typed nil exactly when its
// data word is nil. Read without reflect: it runs on every node of every
// walk (reflect was a sixth of restls check's walking).
func isNil(n any) bool {
	return n == nil || (*[2]unsafe.Pointer)(unsafe.Pointer(&n))[1] == nil
}

func walkExprs(list []ast.Expression, visit func(ast.Node)) {
	for _, e := range list {
		walkAny(e, visit)
	}
}

func walkStmts(list []ast.Statement, visit func(ast.Node)) {
	for _, s := range list {
		walkAny(s, visit)
	}
}

func walkBindings(list []*ast.Binding, visit func(ast.Node)) {
	for _, b := range list {
		if b != nil {
			walkAny(b, visit)
		}
	}
}

func walkParams(p *ast.ParameterList, visit func(ast.Node)) {
	if p == nil {
		return
	}
	walkBindings(p.List, visit)
	walkAny(p.Rest, visit)
}
