package jslevel

import "github.com/dop251/goja/ast"

// children calls f with each child of n that is code: never a member's
// name, a label, a function's own name or a property's literal key.
func children(n ast.Node, f func(ast.Node)) {
	// one is called once per child, never with a variadic list: a walk
	// of every node of every script must not allocate.
	one := func(c ast.Node) {
		if !isNil(c) {
			f(c)
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
			one(p.Rest)
		}
	}
	switch n := n.(type) {
	case *ast.ArrayLiteral:
		exprs(n.Value)
	case *ast.ArrayPattern:
		exprs(n.Elements)
		one(n.Rest)
	case *ast.AssignExpression:
		one(n.Left)
		one(n.Right)
	case *ast.AwaitExpression:
		one(n.Argument)
	case *ast.YieldExpression:
		one(n.Argument)
	case *ast.BinaryExpression:
		one(n.Left)
		one(n.Right)
	case *ast.BracketExpression:
		one(n.Left)
		one(n.Member)
	case *ast.CallExpression:
		one(n.Callee)
		exprs(n.ArgumentList)
	case *ast.ConditionalExpression:
		one(n.Test)
		one(n.Consequent)
		one(n.Alternate)
	case *ast.DotExpression:
		one(n.Left)
	case *ast.PrivateDotExpression:
		one(n.Left)
	case *ast.OptionalChain:
		one(n.Expression)
	case *ast.Optional:
		one(n.Expression)
	case *ast.FunctionLiteral:
		params(n.ParameterList)
		one(n.Body)
	case *ast.ArrowFunctionLiteral:
		params(n.ParameterList)
		one(n.Body)
	case *ast.ExpressionBody:
		one(n.Expression)
	case *ast.ClassLiteral:
		one(n.SuperClass)
		for _, e := range n.Body {
			one(e)
		}
	case *ast.FieldDefinition:
		if n.Computed {
			one(n.Key)
		}
		one(n.Initializer)
	case *ast.MethodDefinition:
		if n.Computed {
			one(n.Key)
		}
		one(n.Body)
	case *ast.ClassStaticBlock:
		one(n.Block)
	case *ast.NewExpression:
		one(n.Callee)
		exprs(n.ArgumentList)
	case *ast.ObjectLiteral:
		for _, p := range n.Value {
			one(p)
		}
	case *ast.ObjectPattern:
		for _, p := range n.Properties {
			one(p)
		}
		one(n.Rest)
	case *ast.PropertyKeyed:
		if n.Computed {
			one(n.Key)
		}
		one(n.Value)
	case *ast.PropertyShort:
		one(&n.Name)
		one(n.Initializer)
	case *ast.SpreadElement:
		one(n.Expression)
	case *ast.SequenceExpression:
		exprs(n.Sequence)
	case *ast.TemplateLiteral:
		one(n.Tag)
		exprs(n.Expressions)
	case *ast.UnaryExpression:
		one(n.Operand)
	case *ast.Binding:
		one(n.Target)
		one(n.Initializer)

	case *ast.BlockStatement:
		stmts(n.List)
	case *ast.CaseStatement:
		one(n.Test)
		stmts(n.Consequent)
	case *ast.CatchStatement:
		one(n.Parameter)
		one(n.Body)
	case *ast.DoWhileStatement:
		one(n.Body)
		one(n.Test)
	case *ast.ExpressionStatement:
		one(n.Expression)
	case *ast.ForInStatement:
		one(n.Into)
		one(n.Source)
		one(n.Body)
	case *ast.ForOfStatement:
		one(n.Into)
		one(n.Source)
		one(n.Body)
	case *ast.ForStatement:
		one(n.Initializer)
		one(n.Test)
		one(n.Update)
		one(n.Body)
	case *ast.ForLoopInitializerExpression:
		one(n.Expression)
	case *ast.ForLoopInitializerVarDeclList:
		bindings(n.List)
	case *ast.ForLoopInitializerLexicalDecl:
		bindings(n.LexicalDeclaration.List)
	case *ast.ForIntoVar:
		one(n.Binding)
	case *ast.ForDeclaration:
		one(n.Target)
	case *ast.ForIntoExpression:
		one(n.Expression)
	case *ast.IfStatement:
		one(n.Test)
		one(n.Consequent)
		one(n.Alternate)
	case *ast.LabelledStatement:
		one(n.Statement)
	case *ast.ReturnStatement:
		one(n.Argument)
	case *ast.SwitchStatement:
		one(n.Discriminant)
		for _, c := range n.Body {
			one(c)
		}
	case *ast.ThrowStatement:
		one(n.Argument)
	case *ast.TryStatement:
		one(n.Body)
		one(n.Catch)
		one(n.Finally)
	case *ast.VariableStatement:
		bindings(n.List)
	case *ast.LexicalDeclaration:
		bindings(n.List)
	case *ast.WhileStatement:
		one(n.Test)
		one(n.Body)
	case *ast.WithStatement:
		one(n.Object)
		one(n.Body)
	case *ast.FunctionDeclaration:
		one(n.Function)
	case *ast.ClassDeclaration:
		one(n.Class)
	}
}
