package hints

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dop251/goja/ast"
	jstoken "github.com/dop251/goja/token"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/restls/restls/config"
	"github.com/restls/restls/openapi"
)

// Literal values checked against the schemas of the description, as the
// service will check them: a path segment, query value or header value
// is a string on the wire, read as the parameter's type; the payload is
// the JSON the call sends. The schema part is santhosh-tekuri/jsonschema's
// (package openapi hands it the schema in the description's dialect);
// here the literal becomes the value sent, with holes where the script
// computes a value, and the validator's errors become diagnostics on the
// literal. An error a hole could change is not reported: when in doubt,
// say nothing (docs/decisions.md, "Literals checked against the
// description (issue 27)").

// Diagnostic codes of the checks of literal values; documented in
// docs/diagnostics.md under "API description diagnostics".
const (
	CodeOpenAPIEnum         = "openapi-enum"
	CodeOpenAPIType         = "openapi-type"
	CodeOpenAPIFormat       = "openapi-format"
	CodeOpenAPIPattern      = "openapi-pattern"
	CodeOpenAPILength       = "openapi-length"
	CodeOpenAPIRange        = "openapi-range"
	CodeOpenAPIUnknownField = "openapi-unknown-field"
	CodeOpenAPIValue        = "openapi-value"
)

// Bounds of one literal checked: beyond them a value is a hole (not
// known, never reported).
const (
	maxLiteralDepth = 32
	maxLiteralNodes = 4096
	// validateTimeout bounds the validations of one diagnosis: a schema
	// of nested anyOf against a deep value, or allOf parts that $ref the
	// same component over and over, can take exponential time. Past it
	// no finding of the schemas is reported (the validation running ends
	// on its own, its answer unused).
	validateTimeout = 250 * time.Millisecond
	// maxListed is how many allowed values a message lists.
	maxListed = 12
)

// literal is a script expression read as the JSON value it sends.
type literal struct {
	d     *diagnoser
	nodes map[string]ast.Expression // instance pointer -> the value's expression
	keys  map[string]ast.Node       // instance pointer of a member -> its key
	holes []string                  // pointers of values the script computes
	count int
}

func newLiteral(d *diagnoser) *literal {
	return &literal{d: d, nodes: map[string]ast.Expression{}, keys: map[string]ast.Node{}}
}

func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func pointerOf(loc []string) string {
	var b strings.Builder
	for _, t := range loc {
		b.WriteByte('/')
		b.WriteString(pointerToken(t))
	}
	return b.String()
}

func (l *literal) hole(ptr string) any {
	l.holes = append(l.holes, ptr)
	return nil
}

// value reads e at ptr; a value it cannot know is a hole (null in the
// value, listed in holes).
func (l *literal) value(e ast.Expression, ptr string, depth int) any {
	l.count++
	l.nodes[ptr] = e
	if depth > maxLiteralDepth || l.count > maxLiteralNodes {
		return l.hole(ptr)
	}
	switch v := e.(type) {
	case *ast.StringLiteral:
		if v != nil {
			return v.Value.String()
		}
	case *ast.TemplateLiteral:
		if s, ok := templateText(v); ok {
			return s
		}
	case *ast.NumberLiteral:
		if n, ok := jsNumber(v, false); ok {
			return n
		}
	case *ast.UnaryExpression:
		if v != nil && !v.Postfix && (v.Operator == jstoken.MINUS || v.Operator == jstoken.PLUS) {
			if num, ok := v.Operand.(*ast.NumberLiteral); ok {
				if n, ok := jsNumber(num, v.Operator == jstoken.MINUS); ok {
					return n
				}
			}
		}
	case *ast.BooleanLiteral:
		if v != nil {
			return v.Value
		}
	case *ast.NullLiteral:
		return nil
	case *ast.ArrayLiteral:
		if v == nil {
			break
		}
		out := make([]any, 0, len(v.Value))
		for i, el := range v.Value {
			if _, spread := el.(*ast.SpreadElement); spread {
				return l.hole(ptr) // the indexes are not known
			}
			p := ptr + "/" + strconv.Itoa(i)
			if el == nil {
				out = append(out, nil) // [1,,2]: JSON.stringify sends null
				continue
			}
			out = append(out, l.value(el, p, depth+1))
		}
		return out
	case *ast.ObjectLiteral:
		if v == nil {
			break
		}
		out := make(map[string]any, len(v.Value))
		for _, p := range v.Value {
			pk, ok := p.(*ast.PropertyKeyed)
			if !ok || pk == nil || pk.Computed || pk.Kind != ast.PropertyKindValue {
				return l.hole(ptr) // a spread, a computed key, a method: the members are not known
			}
			var key string
			var kn ast.Node
			switch k := pk.Key.(type) {
			case *ast.StringLiteral:
				if k == nil {
					return l.hole(ptr)
				}
				key, kn = k.Value.String(), k
				if key == "__proto__" {
					return l.hole(ptr) // sets the prototype: not a member sent
				}
			default:
				return l.hole(ptr) // a number key: JavaScript's spelling of it is not checked here
			}
			mp := ptr + "/" + pointerToken(key)
			l.keys[mp] = kn
			out[key] = l.value(pk.Value, mp, depth+1)
		}
		return out
	}
	return l.hole(ptr)
}

// templateText is the text of a template literal without substitutions.
func templateText(t *ast.TemplateLiteral) (string, bool) {
	if t == nil || t.Tag != nil || len(t.Expressions) > 0 || len(t.Elements) != 1 || !t.Elements[0].Valid {
		return "", false
	}
	return t.Elements[0].Parsed.String(), true
}

// jsNumber is a number literal as JSON.stringify sends it; a BigInt or
// an infinity is not a number sent (ok false: a hole).
func jsNumber(n *ast.NumberLiteral, neg bool) (any, bool) {
	if n == nil {
		return nil, false
	}
	var f float64
	switch v := n.Value.(type) {
	case int64:
		if neg {
			v = -v
		}
		return json.Number(strconv.FormatInt(v, 10)), true
	case float64:
		f = v
	default:
		return nil, false
	}
	if neg {
		f = -f
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, false // sent as null; a literal that says so is rare
	}
	if f == 0 {
		return json.Number("0"), true
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), true
}

// literalString is the text of a string literal or of a template literal
// without substitutions.
func literalString(e ast.Expression) (string, bool) {
	switch v := e.(type) {
	case *ast.StringLiteral:
		if v != nil {
			return v.Value.String(), true
		}
	case *ast.TemplateLiteral:
		return templateText(v)
	}
	return "", false
}

// validate runs s on v; nil when v is valid. A panic of the validator
// is no finding.
func validate(s *jsonschema.Schema, v any) (verr *jsonschema.ValidationError) {
	defer func() {
		if recover() != nil {
			verr = nil
		}
	}()
	verr, _ = s.Validate(v).(*jsonschema.ValidationError)
	return verr
}

// schemaJob is one literal checked against a schema: it returns its
// diagnostics and touches nothing of the diagnoser but what it reads.
type schemaJob func() []Diagnostic

// runSchemaJobs runs the checks of one diagnosis on one goroutine within
// validateTimeout in all, and returns their diagnostics, or none when the
// time runs out (the goroutine stops at its next check). One goroutine
// per diagnosis rather than per check: handing each check to its own cost
// more wall time than the checks on a loaded machine.
func runSchemaJobs(jobs []schemaJob) []Diagnostic {
	if len(jobs) == 0 {
		return nil
	}
	var stop atomic.Bool
	done := make(chan []Diagnostic, 1)
	go func() {
		var out []Diagnostic
		defer func() {
			recover()
			done <- out
		}()
		for _, j := range jobs {
			if stop.Load() {
				return
			}
			out = append(out, j()...)
		}
	}()
	t := time.NewTimer(validateTimeout)
	defer t.Stop()
	select {
	case out := <-done:
		return out
	case <-t.C:
		stop.Store(true)
		return nil
	}
}

// under reports whether ptr is at or below base.
func under(ptr, base string) bool {
	return ptr == base || strings.HasPrefix(ptr, base+"/")
}

// holed reports whether a hole is at or below ptr, and at reports one
// at or above it.
func (l *literal) holed(ptr string) bool {
	for _, h := range l.holes {
		if under(h, ptr) {
			return true
		}
	}
	return false
}

func (l *literal) inHole(ptr string) bool {
	for _, h := range l.holes {
		if under(ptr, h) {
			return true
		}
	}
	return false
}

// findings are the errors of a validation that hold whatever the holes
// are: the leaves of the error tree, with a choice (anyOf) reported
// whole unless only one choice has the value's type.
func (l *literal) findings(err *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if err == nil || len(out) > 64 {
		return out
	}
	ptr := pointerOf(err.InstanceLocation)
	if l.inHole(ptr) {
		return out
	}
	switch k := err.ErrorKind.(type) {
	case *kind.Group, *kind.Schema, *kind.Reference, *kind.AllOf:
		for _, c := range err.Causes {
			out = l.findings(c, out)
		}
		return out
	case *kind.AnyOf, *kind.OneOf:
		if l.holed(ptr) {
			return out
		}
		if k, ok := k.(*kind.OneOf); ok && len(k.Subschemas) > 0 {
			return out // more than one choice matched (not reached: oneOf is checked as anyOf)
		}
		var typed []*jsonschema.ValidationError
		for _, c := range err.Causes {
			if !typeMismatch(c, len(err.InstanceLocation)) {
				typed = append(typed, c)
			}
		}
		if len(typed) == 1 {
			if more := l.findings(typed[0], out); len(more) > len(out) {
				return more
			}
		}
		return append(out, err)
	case *kind.Not, *kind.Contains, *kind.MinContains, *kind.MaxContains, *kind.Enum, *kind.Const,
		*kind.UniqueItems, *kind.Dependency, *kind.PropertyNames, *kind.ContentSchema:
		if l.holed(ptr) {
			return out
		}
		return append(out, err)
	case *kind.RefCycle, *kind.InvalidJsonValue:
		return out
	}
	return append(out, err)
}

// typeMismatch reports whether a choice failed on the value's type
// alone, at the choice's own depth.
func typeMismatch(err *jsonschema.ValidationError, depth int) bool {
	for {
		switch err.ErrorKind.(type) {
		case *kind.Type:
			return len(err.InstanceLocation) == depth
		case *kind.Group, *kind.Schema, *kind.Reference, *kind.AllOf:
			if len(err.Causes) != 1 {
				return false
			}
			err = err.Causes[0]
			continue
		}
		return false
	}
}

// schemaSite says where a checked value is, for messages: the call's
// operation and service, and how a pointer into the value is written.
type schemaSite struct {
	op   *openapi.Operation
	id   string
	name func(ptr []string) string // "payload.address.city", "queryParams.state"
}

func (s schemaSite) suffix() string {
	return fmt.Sprintf(" (%s %s in the API description of %q)", s.op.Method, s.op.Path, s.id)
}

var printer = message.NewPrinter(language.English)

// valueText shows a value of the script or the description in a message.
func valueText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 80 {
		return string(b[:77]) + "…"
	}
	return string(b)
}

func valueList(vs []any) string {
	parts := make([]string, 0, min(len(vs), maxListed))
	for i, v := range vs {
		if i == maxListed {
			parts = append(parts, fmt.Sprintf("and %d more", len(vs)-maxListed))
			break
		}
		parts = append(parts, valueText(v))
	}
	return strings.Join(parts, ", ")
}

func typeName(t string) string {
	switch t {
	case "integer":
		return "an integer"
	case "object", "array":
		return "an " + t
	case "null":
		return "null"
	}
	return "a " + t
}

func typeNames(ts []string) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = typeName(t)
	}
	return strings.Join(names, " or ")
}

func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// describe is the code and the message of one finding at name, for a
// value got.
func describe(err *jsonschema.ValidationError, name string) (code, msg string) {
	switch k := err.ErrorKind.(type) {
	case *kind.Enum:
		return CodeOpenAPIEnum, fmt.Sprintf("%s: %s is not one of the allowed values %s", name, valueText(k.Got), valueList(k.Want))
	case *kind.Const:
		return CodeOpenAPIEnum, fmt.Sprintf("%s: %s is not the one allowed value %s", name, valueText(k.Got), valueText(k.Want))
	case *kind.Type:
		return CodeOpenAPIType, fmt.Sprintf("%s: %s where %s is expected", name, typeName(k.Got), typeNames(k.Want))
	case *kind.Format:
		return CodeOpenAPIFormat, fmt.Sprintf("%s: %s is not a valid %s (format %s)", name, valueText(k.Got), k.Want, k.Want)
	case *kind.Pattern:
		return CodeOpenAPIPattern, fmt.Sprintf("%s: %s does not match the pattern %s", name, valueText(k.Got), k.Want)
	case *kind.MinLength:
		return CodeOpenAPILength, fmt.Sprintf("%s: %d characters, at least %d are expected (minLength)", name, k.Got, k.Want)
	case *kind.MaxLength:
		return CodeOpenAPILength, fmt.Sprintf("%s: %d characters, at most %d are expected (maxLength)", name, k.Got, k.Want)
	case *kind.Minimum:
		return CodeOpenAPIRange, fmt.Sprintf("%s: %s is below the minimum %s", name, ratText(k.Got), ratText(k.Want))
	case *kind.Maximum:
		return CodeOpenAPIRange, fmt.Sprintf("%s: %s is above the maximum %s", name, ratText(k.Got), ratText(k.Want))
	case *kind.ExclusiveMinimum:
		return CodeOpenAPIRange, fmt.Sprintf("%s: %s is not above %s (exclusiveMinimum)", name, ratText(k.Got), ratText(k.Want))
	case *kind.ExclusiveMaximum:
		return CodeOpenAPIRange, fmt.Sprintf("%s: %s is not below %s (exclusiveMaximum)", name, ratText(k.Got), ratText(k.Want))
	case *kind.MultipleOf:
		return CodeOpenAPIRange, fmt.Sprintf("%s: %s is not a multiple of %s", name, ratText(k.Got), ratText(k.Want))
	case *kind.MinItems:
		return CodeOpenAPIValue, fmt.Sprintf("%s: %d items, at least %d are expected (minItems)", name, k.Got, k.Want)
	case *kind.MaxItems:
		return CodeOpenAPIValue, fmt.Sprintf("%s: %d items, at most %d are expected (maxItems)", name, k.Got, k.Want)
	case *kind.AnyOf, *kind.OneOf:
		return CodeOpenAPIValue, fmt.Sprintf("%s: matches none of the %d choices the description allows (anyOf/oneOf)", name, len(err.Causes))
	case *kind.FalseSchema:
		return CodeOpenAPIValue, fmt.Sprintf("%s: the description allows no value here", name)
	}
	return CodeOpenAPIValue, fmt.Sprintf("%s: %s", name, err.ErrorKind.LocalizedString(printer))
}

// fieldName writes a pointer into the payload as JavaScript:
// payload.address.city, payload.items[0], payload["content-type"].
func fieldName(base string, loc []string) string {
	var b strings.Builder
	b.WriteString(base)
	for _, t := range loc {
		switch {
		case isIndex(t):
			b.WriteString("[" + t + "]")
		case isIdentifier(t):
			b.WriteString("." + t)
		default:
			b.WriteString("[" + strconv.Quote(t) + "]")
		}
	}
	return b.String()
}

var indexRE = regexp.MustCompile(`^(0|[1-9][0-9]{0,8})$`)

func isIndex(t string) bool { return indexRE.MatchString(t) }

// checkPayloadSchema checks the payload against the request body's
// schema; false when the description gives none that can be checked
// (the caller then checks the top-level required properties itself).
func (d *diagnoser) checkPayloadSchema(api openapi.API, op *openapi.Operation, payload ast.Expression, id string) bool {
	v := api.Index.BodyValidator(op)
	if v == nil {
		return false
	}
	d.jobs = append(d.jobs, func() []Diagnostic { return d.payloadFindings(v, op, payload, id) })
	return true
}

// payloadFindings validates the payload (a schemaJob).
func (d *diagnoser) payloadFindings(v *jsonschema.Schema, op *openapi.Operation, payload ast.Expression, id string) (out []Diagnostic) {
	l := newLiteral(d)
	val := l.value(payload, "", 0)
	if l.inHole("") {
		return nil
	}
	site := schemaSite{op: op, id: id, name: func(loc []string) string { return fieldName("payload", loc) }}
	for _, f := range l.findings(validate(v, val), nil) {
		ptr := pointerOf(f.InstanceLocation)
		switch k := f.ErrorKind.(type) {
		case *kind.Required:
			obj := objectLit(l.nodes[ptr])
			if obj == nil {
				continue
			}
			for _, name := range k.Missing {
				msg := fmt.Sprintf("%s %s requires the payload property %q (API description of %q): add it to the payload", op.Method, op.Path, name, id)
				if len(f.InstanceLocation) > 0 {
					msg = fmt.Sprintf("%s %s requires the property %q in %s (API description of %q): add it", op.Method, op.Path, name, site.name(f.InstanceLocation), id)
				}
				out = append(out, Diagnostic{Range: d.rng(obj), Severity: SeverityWarning, Code: CodeOpenAPIMissingField,
					Message: msg,
					Fixes: []Fix{{Title: fmt.Sprintf("Add %s", name), Preferred: true,
						Edits: []Edit{d.insertKey(obj, jsKey(name)+": "+placeholder(propSchema(op.Body, append(f.InstanceLocation, name))))}}}})
			}
		case *kind.AdditionalProperties:
			for _, name := range k.Properties {
				kn := l.keys[ptr+"/"+pointerToken(name)]
				if kn == nil {
					continue
				}
				msg := fmt.Sprintf("%s: %s takes no property %q here (additionalProperties: false)", site.name(f.InstanceLocation), op.Method+" "+op.Path, name)
				if s := propSchema(op.Body, f.InstanceLocation); s != nil && len(s.Props) > 0 {
					names := make([]string, 0, min(len(s.Props), maxListed))
					for i, p := range s.Props {
						if i == maxListed {
							names = append(names, "…")
							break
						}
						names = append(names, p.Name)
					}
					msg += "; it takes " + strings.Join(names, ", ")
				}
				out = append(out, Diagnostic{Range: d.rng(kn), Severity: SeverityWarning, Code: CodeOpenAPIUnknownField,
					Message: msg + fmt.Sprintf(" (API description of %q)", id)})
			}
		default:
			e := l.nodes[ptr]
			if e == nil {
				continue
			}
			code, msg := describe(f, site.name(f.InstanceLocation))
			out = append(out, Diagnostic{Range: d.rng(e), Severity: SeverityWarning, Code: code, Message: msg + site.suffix(),
				Fixes: d.enumFix(f, e)})
		}
	}
	return out
}

// propSchema follows a pointer into the index's schema of the body (for
// placeholders and property lists); nil when it does not know.
func propSchema(s *openapi.Schema, loc []string) *openapi.Schema {
	for _, t := range loc {
		if s == nil {
			return nil
		}
		if s.Type == "array" {
			s = s.Items
			continue
		}
		p := s.Prop(t)
		if p == nil {
			return nil
		}
		s = p.Schema
	}
	return s
}

// wireNumber reads a parameter's text as the number a service parses
// from it: decimal, an optional sign, fraction and exponent.
var wireNumber = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// wireValues are the values a parameter's text can stand for: the text,
// and the number or boolean it parses as.
func wireValues(s string) (str string, num any, boolean any) {
	if len(s) <= 64 && wireNumber.MatchString(s) {
		if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) {
			if f == 0 {
				num = json.Number("0")
			} else {
				num = json.Number(strconv.FormatFloat(f, 'g', -1, 64))
			}
		}
	}
	switch s {
	case "true":
		boolean = true
	case "false":
		boolean = false
	}
	return s, num, boolean
}

// checkParamValue checks the literal value e of parameter p (a path
// segment, query value or header) as the service reads it: the text, or
// the number or boolean it parses as. It is reported when no reading is
// valid, with the errors of the reading of the parameter's type.
func (d *diagnoser) checkParamValue(idx *openapi.Index, op *openapi.Operation, p *openapi.Param, e ast.Expression, name func() string, id string) {
	text, ok := literalString(e)
	if !ok || strings.HasPrefix(p.Type, "object") || strings.HasPrefix(p.Type, "array") && (p.Items == "" || p.Items == openapi.ItemsUnknown) {
		return
	}
	v := idx.ParamValidator(p)
	if v == nil {
		return
	}
	if strings.HasPrefix(p.Type, "array") {
		d.jobs = append(d.jobs, func() []Diagnostic { return d.arrayParamFindings(v, op, p, e, text, name, id) })
		return
	}
	d.jobs = append(d.jobs, func() []Diagnostic { return d.paramFindings(v, op, p, e, text, name, id) })
}

// maxParamItems bounds the items of one array parameter's value that are
// checked: a value is at most a literal of the script, but a literal may
// be long.
const maxParamItems = 256

// arrayParamFindings validates the items of an array parameter's value
// (a schemaJob): the value split as the description says the service
// reads it (Param.Items), each item read as its type wants (a number, a
// boolean, else the text), the whole validated against the array's
// schema, so an enum on the items (Petstore's findByStatus), their
// pattern or type, and minItems or maxItems are checked.
func (d *diagnoser) arrayParamFindings(v *jsonschema.Schema, op *openapi.Operation, p *openapi.Param, e ast.Expression, text string, nameOf func() string, id string) (out []Diagnostic) {
	items := []string{text}
	if p.Items != openapi.ItemsOne {
		items = strings.SplitN(text, p.Items, maxParamItems+1)
		if len(items) > maxParamItems {
			return nil
		}
	}
	itemType := strings.Fields(strings.TrimPrefix(p.Type, "array of "))
	values := make([]any, len(items))
	for i, it := range items {
		str, num, boolean := wireValues(it)
		values[i] = str
		switch {
		case len(itemType) == 0:
		case (itemType[0] == "integer" || itemType[0] == "number") && num != nil:
			values[i] = num
		case itemType[0] == "boolean" && boolean != nil:
			values[i] = boolean
		}
	}
	report := validate(v, values)
	if report == nil {
		return nil
	}
	l := &literal{d: d} // the items are not members of the script's literal
	site := schemaSite{op: op, id: id}
	name := nameOf()
	for _, f := range l.findings(report, nil) {
		itemName := name
		var fixes []Fix
		i := -1
		if len(f.InstanceLocation) == 1 {
			if n, err := strconv.Atoi(f.InstanceLocation[0]); err == nil && n < len(items) {
				i = n
			}
		}
		if i >= 0 && len(items) > 1 {
			itemName = fmt.Sprintf("%s, item %d of %d (%q-separated)", name, i+1, len(items), p.Items)
		}
		if i >= 0 && len(items) == 1 {
			fixes = d.enumFix(f, e) // the literal is the item
		}
		code, msg := describe(f, itemName)
		if k, ok := f.ErrorKind.(*kind.Type); ok && i >= 0 {
			msg = fmt.Sprintf("%s: %s is not %s, which the service reads the item as", itemName, valueText(items[i]), typeNames(k.Want))
		}
		out = append(out, Diagnostic{Range: d.rng(e), Severity: SeverityWarning, Code: code, Message: msg + site.suffix(), Fixes: fixes})
	}
	return out
}

// paramFindings validates a parameter's value (a schemaJob).
func (d *diagnoser) paramFindings(v *jsonschema.Schema, op *openapi.Operation, p *openapi.Param, e ast.Expression, text string, nameOf func() string, id string) (out []Diagnostic) {
	str, num, boolean := wireValues(text)
	report := validate(v, str)
	if report == nil {
		return
	}
	for _, alt := range []any{num, boolean} {
		if alt == nil {
			continue
		}
		err := validate(v, alt)
		if err == nil {
			return
		}
		if t := strings.Fields(p.Type); len(t) > 0 && (t[0] == "integer" || t[0] == "number") == (alt == num) {
			report = err
		}
	}
	l := &literal{d: d} // a scalar: no members, no holes
	site := schemaSite{op: op, id: id}
	name := nameOf()
	for _, f := range l.findings(report, nil) {
		code, msg := describe(f, name)
		if k, ok := f.ErrorKind.(*kind.Type); ok && len(f.InstanceLocation) == 0 {
			msg = fmt.Sprintf("%s: %s is not %s, which the service reads it as", name, valueText(text), typeNames(k.Want))
		}
		out = append(out, Diagnostic{Range: d.rng(e), Severity: SeverityWarning, Code: code, Message: msg + site.suffix(),
			Fixes: d.enumFix(f, e)})
	}
	return out
}

// enumFix offers, for a quoted string outside an enum of strings, the
// allowed value nearest to it.
func (d *diagnoser) enumFix(f *jsonschema.ValidationError, e ast.Expression) []Fix {
	k, ok := f.ErrorKind.(*kind.Enum)
	if !ok {
		return nil
	}
	got, ok := k.Got.(string)
	_, r, quote, lit := d.stringLit(e)
	if !ok || !lit {
		return nil
	}
	var allowed []string
	for _, w := range k.Want {
		if s, ok := w.(string); ok {
			allowed = append(allowed, s)
		}
	}
	near := config.Nearest(got, allowed, 1)
	if len(near) == 0 {
		return nil
	}
	return []Fix{{Title: fmt.Sprintf("Change to %q", near[0]), Preferred: true,
		Edits: []Edit{{Range: r, NewText: escapeQuote(near[0], quote)}}}}
}

// checkParamValues checks the literal path segments, query values and
// declared headers of a call against their parameters' schemas.
func (d *diagnoser) checkParamValues(api openapi.API, op *openapi.Operation, segNodes []ast.Expression, query, header *ast.ObjectLiteral, id string) {
	off := len(api.Prefix)
	for i, e := range segNodes {
		if off+i >= len(op.Segments) {
			break
		}
		t := op.Segments[off+i]
		if len(t) < 3 || t[0] != '{' || t[len(t)-1] != '}' || strings.Count(t, "{") != 1 {
			continue // a literal segment, or one like file.{ext}
		}
		name := t[1 : len(t)-1]
		for k := range op.PathParams {
			if op.PathParams[k].Name == name {
				d.checkParamValue(api.Index, op, &op.PathParams[k], e, func() string { return fmt.Sprintf("pathParams[%d] (%s)", i, name) }, id)
				break
			}
		}
	}
	for _, list := range []struct {
		obj    *ast.ObjectLiteral
		params []openapi.Param
		fold   bool
		what   string
	}{{query, op.Query, false, "queryParams"}, {header, op.Headers, true, "header"}} {
		if list.obj == nil {
			continue
		}
		for _, prop := range list.obj.Value {
			pk, ok := prop.(*ast.PropertyKeyed)
			key, kn := propKey(prop)
			if !ok || kn == nil {
				continue
			}
			for k := range list.params {
				p := &list.params[k]
				if p.Name == key || list.fold && strings.EqualFold(p.Name, key) {
					what := list.what
					d.checkParamValue(api.Index, op, p, pk.Value, func() string { return fieldName(what, []string{key}) }, id)
					break
				}
			}
		}
	}
}
