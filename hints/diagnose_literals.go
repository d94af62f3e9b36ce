package hints

import (
	"fmt"
	"math"
	"strconv"

	"github.com/dop251/goja/ast"
)

// Checks of literal arguments that the dry run rejects with a TypeError
// (runtime/api.go). Each rule here mirrors one check there, so a script
// that the editor shows clean does not fail on its literals when run; the
// cross-package test TestLiteralChecksMatchTheRuntime in cmd/restls holds
// the two to the same answers. Computed values are never guessed at.

// literalKind describes a literal expression for a message ("a number"),
// or returns "" when e is not a literal (a variable, a call...), which the
// checks leave alone.
func literalKind(e ast.Expression) string {
	switch v := e.(type) {
	case *ast.NumberLiteral:
		if v == nil {
			return ""
		}
		return "the number " + v.Literal
	case *ast.BooleanLiteral:
		if v == nil {
			return ""
		}
		return "the boolean " + v.Literal
	case *ast.NullLiteral:
		return "null"
	case *ast.StringLiteral:
		return "a string"
	case *ast.TemplateLiteral:
		return "a string"
	case *ast.ArrayLiteral:
		return "an array"
	case *ast.ObjectLiteral:
		return "an object"
	case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral:
		return "a function"
	case *ast.RegExpLiteral:
		return "a regular expression"
	case *ast.Identifier:
		if v != nil && v.Name == "undefined" {
			return "undefined"
		}
	case *ast.UnaryExpression:
		if v != nil {
			if _, ok := v.Operand.(*ast.NumberLiteral); ok {
				return "a number"
			}
		}
	}
	return ""
}

// isStringLiteral reports whether e is a string: a quoted string or a
// template literal (whose value is a string whatever it interpolates).
func isStringLiteral(e ast.Expression) bool {
	switch e.(type) {
	case *ast.StringLiteral, *ast.TemplateLiteral:
		return true
	}
	return false
}

// notString reports an argument part that must be a string and is a
// literal of another kind, with a fix that quotes a number or boolean when
// quoteFix is set.
func (d *diagnoser) notString(e ast.Expression, code, msg string, quoteFix bool) {
	kind := literalKind(e)
	if kind == "" || isStringLiteral(e) || isNil(e) {
		return
	}
	r := d.rng(e)
	diag := Diagnostic{Range: r, Severity: SeverityError, Code: code, Message: fmt.Sprintf(msg, kind)}
	var lit string
	switch v := e.(type) {
	case *ast.NumberLiteral:
		lit = v.Literal
	case *ast.BooleanLiteral:
		lit = v.Literal
	}
	if lit != "" && quoteFix {
		diag.Fixes = []Fix{{Title: fmt.Sprintf("Quote as \"%s\"", lit), Preferred: true,
			Edits: []Edit{{Range: r, NewText: `"` + lit + `"`}}}}
	}
	d.add(diag)
}

// checkServiceIDLiteral: SERVICE_ID must be a string. (An empty one is an
// unknown serviceId, reported with the registry's other ids.)
func (d *diagnoser) checkServiceIDLiteral(e ast.Expression) {
	d.notString(e, CodeServiceIDNotString, "SERVICE_ID must be a string naming a configured serviceId, not %s", false)
}

// checkObjectArg: PATH, HEADER, PATH.queryParams and TIMEOUTS must be
// objects; what passes for none is said in the message.
func (d *diagnoser) checkObjectArg(e ast.Expression, param, none string) bool {
	kind := literalKind(e)
	if kind == "" || kind == "an object" || isNil(e) {
		return kind == "an object" && !isNil(e)
	}
	d.add(Diagnostic{Range: d.rng(e), Severity: SeverityError, Code: CodeArgumentNotObject,
		Message: fmt.Sprintf("%s must be an object, not %s (pass {} for %s)", param, kind, none)})
	return false
}

// checkPathParams: pathParams must be an array of strings.
func (d *diagnoser) checkPathParams(e ast.Expression) {
	if literalKind(e) == "" || isNil(e) {
		return
	}
	arr, ok := e.(*ast.ArrayLiteral)
	if !ok {
		if _, isNull := e.(*ast.NullLiteral); isNull {
			return // null is read as no pathParams
		}
		if literalKind(e) == "undefined" {
			return
		}
		d.add(Diagnostic{Range: d.rng(e), Severity: SeverityError, Code: CodePathParamNotString,
			Message: fmt.Sprintf("pathParams must be an array of strings (one per path segment), not %s", literalKind(e))})
		return
	}
	for _, el := range arr.Value {
		if isNil(el) {
			continue
		}
		d.notString(el, CodePathParamNotString,
			"path segments must be strings, not %s: the platform accepts strings only (use String(value))", true)
	}
}

// checkHeaderValues: header values must be strings.
func (d *diagnoser) checkHeaderValues(obj *ast.ObjectLiteral) {
	for _, p := range obj.Value {
		pk, ok := p.(*ast.PropertyKeyed)
		if !ok || pk == nil || isNil(pk.Value) {
			continue
		}
		d.notString(pk.Value, CodeHeaderValueNotString, "header values must be strings, not %s", true)
	}
}

// checkPayloadLiteral: PAYLOAD must be something JSON can send.
func (d *diagnoser) checkPayloadLiteral(e ast.Expression) {
	switch kind := literalKind(e); kind {
	case "undefined", "a function":
		d.add(Diagnostic{Range: d.rng(e), Severity: SeverityError, Code: CodeArgumentNotObject,
			Message: fmt.Sprintf("PAYLOAD is %s, which cannot be sent as JSON: pass an object ({} for an empty body)", kind)})
	}
}

// checkTimeoutValue: a TIMEOUTS value must be a positive whole number of
// milliseconds. It reports whether the value may be checked further (a
// valid number, or not a literal).
func (d *diagnoser) checkTimeoutValue(key string, e ast.Expression) bool {
	kind := literalKind(e)
	if kind == "" || isNil(e) || kind == "undefined" {
		return true
	}
	fix := ""
	if num, ok := e.(*ast.NumberLiteral); ok && num != nil {
		var v float64
		switch x := num.Value.(type) {
		case int64:
			v = float64(x)
		case float64:
			v = x
		}
		if v > 0 && v == math.Trunc(v) && v <= math.MaxInt32 {
			return true
		}
		if v >= 1 && v <= math.MaxInt32 {
			fix = strconv.FormatFloat(math.Trunc(v), 'f', -1, 64)
		}
	}
	if s, ok := e.(*ast.StringLiteral); ok && s != nil {
		if n, err := strconv.Atoi(s.Value.String()); err == nil && n > 0 {
			fix = strconv.Itoa(n)
		}
	}
	r := d.rng(e)
	diag := Diagnostic{Range: r, Severity: SeverityError, Code: CodeTimeoutNotNumber,
		Message: fmt.Sprintf("TIMEOUTS.%s must be a positive whole number of milliseconds, not %s", key, kind)}
	if fix != "" {
		diag.Fixes = []Fix{{Title: "Change to " + fix, Preferred: true, Edits: []Edit{{Range: r, NewText: fix}}}}
	}
	d.add(diag)
	return false
}
