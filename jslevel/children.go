package jslevel

import "github.com/dop251/goja/ast"

// children calls f with each child of n that is code: never a member's
// name, a label, a function's own name or a property's literal key.
func children(n ast.Node, f func(ast.Node)) {
	each := func(list ...ast.Node) {
		for _, c := range list {
			if !isNil(c) {
				f(c)
			}
		}
	}
	exprs := func(list []ast.Expression) {
		for _, e := range list {
			if !isNil(e) {
				f(e)
			}
		}
	}
	stmts := func(list []ast.Statement) {
		for _, e := range list {
			if !isNil(e) {
				f(e)
			}
		}
	}
	bindings := func(list []*ast.Binding) {
		for _, b := range list {
			if b != nil {
				f(b)
			}
		}
	}
	params := func(p *ast.ParameterList) {
		if p != nil {
			bindings(p.List)
			each(p.Rest)
		}
	}
	switch n := n.(type) {
	case *ast.ArrayLiteral:
		exprs(n.Value)
	case *ast.ArrayPattern:
		exprs(n.Elements)
		each(n.Rest)
	case *ast.AssignExpression:
		each(n.Left, n.Right)
	case *ast.AwaitExpression:
		each(n.Argument)
	case *ast.YieldExpression:
		each(n.Argument)
	case *ast.BinaryExpression:
		each(n.Left, n.Right)
	case *ast.BracketExpression:
		each(n.Left, n.Member)
	case *ast.CallExpression:
		each(n.Callee)
		exprs(n.ArgumentList)
	case *ast.ConditionalExpression:
		each(n.Test, n.Consequent, n.Alternate)
	case *ast.DotExpression:
		each(n.Left)
	case *ast.PrivateDotExpression:
		each(n.Left)
	case *ast.OptionalChain:
		each(n.Expression)
	case *ast.Optional:
		each(n.Expression)
	case *ast.FunctionLiteral:
		params(n.ParameterList)
		each(n.Body)
	case *ast.ArrowFunctionLiteral:
		params(n.ParameterList)
		each(n.Body)
	case *ast.ExpressionBody:
		each(n.Expression)
	case *ast.ClassLiteral:
		each(n.SuperClass)
		for _, e := range n.Body {
			each(e)
		}
	case *ast.FieldDefinition:
		if n.Computed {
			each(n.Key)
		}
		each(n.Initializer)
	case *ast.MethodDefinition:
		if n.Computed {
			each(n.Key)
		}
		each(n.Body)
	case *ast.ClassStaticBlock:
		each(n.Block)
	case *ast.NewExpression:
		each(n.Callee)
		exprs(n.ArgumentList)
	case *ast.ObjectLiteral:
		for _, p := range n.Value {
			each(p)
		}
	case *ast.ObjectPattern:
		for _, p := range n.Properties {
			each(p)
		}
		each(n.Rest)
	case *ast.PropertyKeyed:
		if n.Computed {
			each(n.Key)
		}
		each(n.Value)
	case *ast.PropertyShort:
		each(&n.Name, n.Initializer)
	case *ast.SpreadElement:
		each(n.Expression)
	case *ast.SequenceExpression:
		exprs(n.Sequence)
	case *ast.TemplateLiteral:
		each(n.Tag)
		exprs(n.Expressions)
	case *ast.UnaryExpression:
		each(n.Operand)
	case *ast.Binding:
		each(n.Target, n.Initializer)

	case *ast.BlockStatement:
		stmts(n.List)
	case *ast.CaseStatement:
		each(n.Test)
		stmts(n.Consequent)
	case *ast.CatchStatement:
		each(n.Parameter, n.Body)
	case *ast.DoWhileStatement:
		each(n.Body, n.Test)
	case *ast.ExpressionStatement:
		each(n.Expression)
	case *ast.ForInStatement:
		each(n.Into, n.Source, n.Body)
	case *ast.ForOfStatement:
		each(n.Into, n.Source, n.Body)
	case *ast.ForStatement:
		each(n.Initializer, n.Test, n.Update, n.Body)
	case *ast.ForLoopInitializerExpression:
		each(n.Expression)
	case *ast.ForLoopInitializerVarDeclList:
		bindings(n.List)
	case *ast.ForLoopInitializerLexicalDecl:
		bindings(n.LexicalDeclaration.List)
	case *ast.ForIntoVar:
		each(n.Binding)
	case *ast.ForDeclaration:
		each(n.Target)
	case *ast.ForIntoExpression:
		each(n.Expression)
	case *ast.IfStatement:
		each(n.Test, n.Consequent, n.Alternate)
	case *ast.LabelledStatement:
		each(n.Statement)
	case *ast.ReturnStatement:
		each(n.Argument)
	case *ast.SwitchStatement:
		each(n.Discriminant)
		for _, c := range n.Body {
			each(c)
		}
	case *ast.ThrowStatement:
		each(n.Argument)
	case *ast.TryStatement:
		each(n.Body, n.Catch, n.Finally)
	case *ast.VariableStatement:
		bindings(n.List)
	case *ast.LexicalDeclaration:
		bindings(n.List)
	case *ast.WhileStatement:
		each(n.Test, n.Body)
	case *ast.WithStatement:
		each(n.Object, n.Body)
	case *ast.FunctionDeclaration:
		each(n.Function)
	case *ast.ClassDeclaration:
		each(n.Class)
	}
}
