package hints

import (
	"github.com/dop251/goja/ast"

	"github.com/restls/restls/jslevel"
)

// Diagnostic codes of the engine profile (jslevel): syntax and builtins
// beyond the level restls.yaml's engine names.
const (
	CodeEngineSyntax  = jslevel.CodeSyntax
	CodeEngineBuiltin = jslevel.CodeBuiltin
)

// checkEngine reports every use in body of what the platform's engine
// level does not admit, with the message a dry run refuses it with.
func (d *diagnoser) checkEngine(body *ast.BlockStatement) {
	level := d.disp.EngineLevel
	if level == jslevel.Latest {
		return
	}
	for _, u := range jslevel.Scan(body, d.text, len(wrapPrefix), level) {
		d.add(Diagnostic{Range: Range{u.Start, u.End}, Severity: SeverityError, Code: u.Code(), Message: u.Message(level)})
	}
}
