package runtime

import (
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/token"
)

// maxLoopWalk bounds the nodes positionLoops visits; a script past it
// keeps goja's positions (an interrupt in an empty loop may then be shown
// at the statement before it).
const maxLoopWalk = 1 << 20

// positionLoops gives every loop whose test is a constant (while (true),
// for (;;), do ... while (1)) a test that is not one, so that the loop
// has a place in the compiled program's source map. goja folds a
// constant test away: while (true) {} compiles to a jump with no
// position of its own, and an interrupt there (the script's time limit)
// was shown at the last statement before the loop, a call made long
// before. The new test, undefined === undefined placed at the loop's
// keyword, is true as the old one was and has no effect; it is given
// only to loops whose body does nothing (emptyBody), which never end, so
// the two loads and a comparison per turn it costs slow nothing that
// matters. A loop whose body does something has places of its own.
//
// The walk is iterative and bounded: a binary chain of a million terms
// is a tree a million deep.
func positionLoops(prg *ast.Program) {
	walkNodes(prg, maxLoopWalk, func(n ast.Node) {
		switch loop := n.(type) {
		case *ast.WhileStatement:
			if constantTest(loop.Test) && emptyBody(loop.Body, 0) {
				loop.Test = alwaysTrue(loop.While)
			}
		case *ast.DoWhileStatement:
			if constantTest(loop.Test) && emptyBody(loop.Body, 0) {
				loop.Test = alwaysTrue(loop.Do)
			}
		case *ast.ForStatement:
			if (loop.Test == nil || constantTest(loop.Test)) && loop.Update == nil && emptyBody(loop.Body, 0) {
				loop.Test = alwaysTrue(loop.For)
			}
		}
	})
}

// emptyBody reports whether a loop's body compiles to no instruction with
// a place of its own: nothing, empty blocks, continue. A body that does
// something has places, and the interrupt is shown there (the jump back
// has the place of the body's last statement), so its loop keeps its
// test and its speed.
func emptyBody(s ast.Statement, depth int) bool {
	switch s := s.(type) {
	case nil, *ast.EmptyStatement:
		return true
	case *ast.BranchStatement:
		return s.Token == token.CONTINUE && s.Label == nil
	case *ast.BlockStatement:
		if depth > 16 {
			return false
		}
		for _, x := range s.List {
			if !emptyBody(x, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// constantTest reports whether e is a literal that is true, as goja folds
// it.
func constantTest(e ast.Expression) bool {
	switch e := e.(type) {
	case *ast.BooleanLiteral:
		return e.Value
	case *ast.NumberLiteral:
		switch n := e.Value.(type) {
		case int64:
			return n != 0
		case float64:
			return n != 0 && n == n // NaN is false
		}
	case *ast.StringLiteral:
		return e.Value != ""
	}
	return false
}

// alwaysTrue is undefined === undefined at at.
func alwaysTrue(at file.Idx) ast.Expression {
	return &ast.BinaryExpression{Operator: token.STRICT_EQUAL, Comparison: true,
		Left: &ast.Identifier{Name: "undefined", Idx: at}, Right: &ast.Identifier{Name: "undefined", Idx: at}}
}
