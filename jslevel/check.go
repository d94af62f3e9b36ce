package jslevel

import (
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"

	"github.com/restls/restls/jsdepth"
)

// Scripts are function bodies (a top-level return is allowed): they are
// parsed wrapped, as the hint engine and the runtime parse them.
const (
	wrapPrefix = "(function(){"
	wrapSuffix = "\n})"
)

// Check parses text, a script, and scans it at level: what a dry run
// under a profile refuses. A script beyond the nesting budget or that does
// not parse gives nothing here: the run reports that itself.
func Check(text string, level Level) (uses []Use) {
	if level == Latest {
		return nil
	}
	defer func() {
		if recover() != nil {
			uses = nil // the parser must not take a run down; the run reports the script
		}
	}()
	if !jsdepth.Check(text, jsdepth.Max).OK() {
		return nil
	}
	prog, err := parser.ParseFile(nil, "", wrapPrefix+text+wrapSuffix, 0, parser.WithDisableSourceMaps)
	if err != nil || prog == nil || len(prog.Body) != 1 {
		return nil
	}
	es, ok := prog.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return nil
	}
	fn, ok := es.Expression.(*ast.FunctionLiteral)
	if !ok || fn.Body == nil {
		return nil
	}
	return Scan(fn.Body, text, len(wrapPrefix), level)
}
