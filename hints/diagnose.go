package hints

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja/ast"

	"github.com/restls/restls/config"
	"github.com/restls/restls/jsdepth"
)

// Diagnostic codes; stable, documented in docs/diagnostics.md under
// "Script diagnostics".
const (
	CodeSyntax                 = "syntax-error"
	CodeUnknownService         = "unknown-service"
	CodeUnusableService        = "unusable-service"
	CodeUnknownCall            = "unknown-call"
	CodeMissingArgument        = "missing-argument"
	CodeExtraArgument          = "extra-argument"
	CodePayloadNotAllowed      = "payload-not-allowed"
	CodeHardcodedAuthorization = "hardcoded-authorization"
	CodeTimeoutAboveMaximum    = "timeout-above-maximum"
	CodeUnknownTimeoutKey      = "unknown-timeout-key"
	CodeUnknownPathKey         = "unknown-path-key"
	CodeQueryValueNotString    = "query-value-not-string"
	CodeContextAPI             = "context-api"
	CodeServiceIDNotString     = "service-id-not-string"
	CodeArgumentNotObject      = "argument-not-object"
	CodePathParamNotString     = "path-param-not-string"
	CodeHeaderValueNotString   = "header-value-not-string"
	CodeTimeoutNotNumber       = "timeout-not-number"
	CodeScriptTooDeep          = "script-too-deep"
	CodeKindDirectiveOverruled = "kind-directive-overruled"
)

// nearestServices is how many near serviceIds an unknown one suggests.
const nearestServices = 3

func diagnose(doc *Document, reg *config.Registry, disp Display) (out []Diagnostic) {
	defer recovered()
	if doc == nil {
		return nil
	}
	p := doc.parse()
	d := &diagnoser{text: doc.text, reg: reg, disp: disp}
	if !p.depth.OK() {
		// Nothing was parsed: one diagnostic for the whole document.
		return []Diagnostic{d.tooDeep(p.depth)}
	}
	if len(p.errs) > 0 {
		// Only the first: the parser's later errors mostly follow from it.
		e := p.errs[0]
		d.add(Diagnostic{Range: d.tokenRange(e.offset), Severity: SeverityError, Code: CodeSyntax,
			Message: "syntax error: " + e.msg})
	}
	d.checkChosenKind()
	if p.body != nil {
		walk(p.body, d.visit)
		d.checkFlow(doc)
		if w, ok := worstDiagnostic(doc, reg, disp); ok {
			d.add(w)
		}
		d.checkEngine(p.body)
	}
	d.out = append(d.out, runSchemaJobs(d.jobs)...)
	sort.SliceStable(d.out, func(i, j int) bool { return d.out[i].Range.Start < d.out[j].Range.Start })
	return d.out
}

// checkChosenKind: a "// restls-kind:" line naming another kind than the
// one the user chose (Display.KindChosen) is overruled; say so, with a fix
// that writes the chosen kind.
func (d *diagnoser) checkChosenKind() {
	if !d.disp.KindChosen || d.reg == nil {
		return
	}
	k, ok := config.DetectKind(d.text)
	if !ok || k == d.reg.Kind {
		return
	}
	d.add(Diagnostic{Range: FirstLine(d.text), Severity: SeverityInfo, Code: CodeKindDirectiveOverruled,
		Message: fmt.Sprintf("the first line names %s, but the script's kind was chosen as %s (the Script kind selector), which wins: hints and runs use %s; choose %s to have it one, or mark the script %s", k, d.reg.Kind, d.reg.Kind, k, d.reg.Kind),
		Fixes:   []Fix{kindFix(d.text, d.reg.Kind)}})
}

// tooDeep is the one diagnostic of a script beyond the nesting budget.
func (d *diagnoser) tooDeep(r jsdepth.Result) Diagnostic {
	msg := fmt.Sprintf("the script nests brackets or arrow functions more than %d deep here; restls does not check it "+
		"(and a dry run refuses it): split the expression into variables or build the value in a loop", jsdepth.Max)
	switch r.Reason {
	case jsdepth.TooCostly:
		msg = "arrow functions without braces or labels nest so much up to here that parsing the script would take too long; " +
			"restls does not check it (and a dry run refuses it): give the arrow functions block bodies ({ return ... }) or split the expression into variables"
	case jsdepth.Ambiguous:
		msg = "restls cannot tell whether this / divides or starts a regular expression, and the two readings " +
			"disagree about the rest of the script; the script is not checked (and a dry run refuses it): " +
			"put the expression before or after the / in parentheses"
	}
	return Diagnostic{Range: d.tokenRange(r.Offset), Severity: SeverityError, Code: CodeScriptTooDeep, Message: msg}
}

type diagnoser struct {
	text    string
	reg     *config.Registry
	disp    Display
	out     []Diagnostic
	nearest map[string][]string // unknown serviceId -> nearest ids
	jobs    []schemaJob         // literal values to check against schemas (diagnose_schema.go)
	// described: a call names a service with a description or recorded
	// answers (the answer types are then checked: diagnose_flow.go).
	described bool
	// tries are the try statements of the script, in the order of the
	// walk (visit), for checkCatchReads.
	tries []*ast.TryStatement
}

func (d *diagnoser) add(diag Diagnostic) { d.out = append(d.out, diag) }

// rng maps a node's span to a document range.
func (d *diagnoser) rng(n ast.Node) Range {
	if id, ok := n.(*ast.Identifier); ok && id != nil {
		// Identifier.Idx1 counts a non-ASCII name in UTF-16 units.
		start := offsetOf(d.text, id.Idx)
		return Range{start, min(start+len(id.Name.String()), len(d.text))}
	}
	return Range{offsetOf(d.text, n.Idx0()), offsetOf(d.text, n.Idx1())}
}

// tokenRange returns a non-empty range for an error at o when possible:
// the identifier there, or one character.
func (d *diagnoser) tokenRange(o int) Range {
	o = clampOffset(d.text, o)
	if o >= len(d.text) {
		return Range{o, o}
	}
	if isIdentPart(d.text[o]) {
		_, end := identAround(d.text, o)
		return Range{o, end}
	}
	_, size := utf8.DecodeRuneInString(d.text[o:])
	return Range{o, o + size}
}

// dotChain returns the names of an a.b.c expression, or nil.
func dotChain(e ast.Expression) []string {
	var rev []string
	for {
		switch x := e.(type) {
		case *ast.DotExpression:
			if x == nil {
				return nil
			}
			rev = append(rev, x.Identifier.Name.String())
			e = x.Left
		case *ast.Identifier:
			if x == nil {
				return nil
			}
			rev = append(rev, x.Name.String())
			for l, r := 0, len(rev)-1; l < r; l, r = l+1, r-1 {
				rev[l], rev[r] = rev[r], rev[l]
			}
			return rev
		default:
			return nil
		}
	}
}

func (d *diagnoser) visit(n ast.Node) {
	if t, ok := n.(*ast.TryStatement); ok {
		// checkCatchReads looks at them after this walk: the tree is
		// walked once for both.
		d.tries = append(d.tries, t)
		return
	}
	call, ok := n.(*ast.CallExpression)
	if !ok || call == nil {
		return
	}
	// Matched without dotChain's slice: this runs on every call of every
	// script.
	name, isAPI := apiCallName(call.Callee)
	switch {
	case isContextAPI(call.Callee):
		d.add(Diagnostic{Range: d.rng(call.Callee), Severity: SeverityWarning, Code: CodeContextAPI,
			Message: "context.api() is replaced by api.rest.v1, the only supported way to call REST services (docs/api.md#versions): " +
				"use api.rest.v1.get/post/put/patch/delete with a configured serviceId"})
	case isAPI:
		dot := call.Callee.(*ast.DotExpression)
		nameRng := d.rng(&dot.Identifier)
		c := callIndex(name)
		if c < 0 {
			diag := Diagnostic{Range: nameRng, Severity: SeverityError, Code: CodeUnknownCall,
				Message: fmt.Sprintf("api.rest.v1 has no call %q: use get, delete, post, put or patch", name)}
			for i, n := range config.Nearest(name, callNames(), 1) {
				diag.Fixes = append(diag.Fixes, Fix{Title: "Change to " + n, Preferred: i == 0,
					Edits: []Edit{{Range: nameRng, NewText: n}}})
			}
			d.add(diag)
			return
		}
		d.checkCall(&calls[c], call, nameRng)
	}
}

// isContextAPI reports whether callee is context.api.
func isContextAPI(callee ast.Expression) bool {
	d, ok := callee.(*ast.DotExpression)
	if !ok || d == nil || d.Identifier.Name != "api" {
		return false
	}
	ctx, ok := d.Left.(*ast.Identifier)
	return ok && ctx != nil && ctx.Name == "context"
}

func callNames() []string {
	names := make([]string, len(calls))
	for i := range calls {
		names[i] = calls[i].Name
	}
	return names
}

func (d *diagnoser) checkCall(c *Call, call *ast.CallExpression, nameRng Range) {
	args := call.ArgumentList
	required := len(c.Params) - 1 // all but TIMEOUTS
	if len(args) < required {
		var missing []string
		for _, p := range c.Params[len(args):required] {
			missing = append(missing, p.Label)
		}
		d.add(Diagnostic{Range: nameRng, Severity: SeverityError, Code: CodeMissingArgument,
			Message: fmt.Sprintf("%s: missing %s (pass {} for an empty path, header or payload)",
				c.Signature, strings.Join(missing, ", "))})
	}
	timeoutsAt := required
	if !c.HasPayload && len(args) > required && !looksLikeTimeouts(args[required]) {
		// get and delete send no payload: a 4th argument that is an object
		// without TIMEOUTS keys, or that is followed by another, is one.
		if len(args) > required+1 || looksLikePayload(args[required]) {
			d.add(Diagnostic{Range: d.rng(args[required]), Severity: SeverityError, Code: CodePayloadNotAllowed,
				Message: fmt.Sprintf("%s sends no payload (docs/api.md#the-calls): remove this argument; its last, optional parameter is TIMEOUTS", c.Name),
				Fixes: []Fix{{Title: "Remove the payload", Preferred: true,
					Edits: []Edit{{Range: Range{offsetOf(d.text, args[required-1].Idx1()), offsetOf(d.text, args[required].Idx1())}}}}}})
			timeoutsAt = required + 1
		}
	}
	if len(args) > timeoutsAt+1 {
		extra := args[timeoutsAt+1:]
		r := Range{offsetOf(d.text, extra[0].Idx0()), offsetOf(d.text, extra[len(extra)-1].Idx1())}
		d.add(Diagnostic{Range: r, Severity: SeverityError, Code: CodeExtraArgument,
			Message: fmt.Sprintf("too many arguments: %s takes at most %d", c.Signature, len(c.Params)),
			Fixes: []Fix{{Title: "Remove the extra arguments", Preferred: true,
				Edits: []Edit{{Range: Range{offsetOf(d.text, args[timeoutsAt].Idx1()), r.End}}}}}})
	}
	var svc *config.Service
	if len(args) > argServiceID {
		d.checkServiceIDLiteral(args[argServiceID])
		svc = d.checkServiceID(args[argServiceID])
	}
	if len(args) > argPath {
		d.checkPath(args[argPath])
	}
	if len(args) > argHeader {
		d.checkHeader(args[argHeader], svc, args[argServiceID])
	}
	if c.HasPayload && len(args) > argPayload {
		d.checkPayloadLiteral(args[argPayload])
	}
	if len(args) > timeoutsAt {
		d.checkTimeouts(args[timeoutsAt])
	}
	if svc != nil {
		d.checkOpenAPI(c, args, nameRng)
	}
	if !d.described && d.disp.APIs != nil && len(args) > argServiceID {
		if id, _, _, ok := d.stringLit(args[argServiceID]); ok {
			_, d.described = d.disp.apiOf(id, true)
		}
	}
}

// looksLikePayload reports whether a 4th argument of get/delete is an
// object literal with keys, none of them (nearly) a TIMEOUTS key.
func looksLikePayload(e ast.Expression) bool {
	obj, ok := e.(*ast.ObjectLiteral)
	return ok && obj != nil && len(obj.Value) > 0 && !looksLikeTimeouts(e)
}

// looksLikeTimeouts reports whether e is an object literal with a TIMEOUTS
// key, or a misspelt one.
func looksLikeTimeouts(e ast.Expression) bool {
	obj, ok := e.(*ast.ObjectLiteral)
	if !ok || obj == nil {
		return false
	}
	for _, p := range obj.Value {
		k, kn := propKey(p)
		if kn == nil {
			continue
		}
		if k == keyConnectionTimeout || k == keyReadTimeout || len(config.Nearest(k, timeoutKeys, 1)) > 0 {
			return true
		}
	}
	return false
}

// propKey returns a property's key name and the node spelling it.
func propKey(p ast.Property) (string, ast.Node) {
	switch p := p.(type) {
	case *ast.PropertyKeyed:
		if p == nil || p.Computed {
			return "", nil
		}
		switch k := p.Key.(type) {
		case *ast.StringLiteral:
			if k != nil {
				return k.Value.String(), k
			}
		case *ast.NumberLiteral:
			if k != nil {
				return k.Literal, k
			}
		}
	case *ast.PropertyShort:
		if p != nil {
			return p.Name.Name.String(), &p.Name
		}
	}
	return "", nil
}

// stringLit returns a string literal's value and its content range (inside
// the quotes).
func (d *diagnoser) stringLit(e ast.Expression) (string, Range, byte, bool) {
	s, ok := e.(*ast.StringLiteral)
	if !ok || s == nil || len(s.Literal) < 2 {
		return "", Range{}, 0, false
	}
	r := d.rng(s)
	return s.Value.String(), Range{r.Start + 1, r.End - 1}, s.Literal[0], true
}

func (d *diagnoser) checkServiceID(e ast.Expression) *config.Service {
	id, r, quote, ok := d.stringLit(e)
	if !ok || d.reg == nil || !d.reg.Loaded {
		return nil
	}
	if svc, ok := d.reg.Service(id); ok {
		return svc
	}
	if cd, ok := d.reg.Unusable(id); ok {
		d.add(Diagnostic{Range: r, Severity: SeverityError, Code: CodeUnusableService,
			Message: fmt.Sprintf("serviceId %q is configured but unusable: %s; fix the configuration (the platform reads it at startup)",
				id, configProblem(cd, d.disp))})
		return nil
	}
	diag := Diagnostic{Range: r, Severity: SeverityError, Code: CodeUnknownService}
	near, seen := d.nearest[id]
	if !seen {
		// Nearest compares with every configured id: once per distinct id.
		near = d.reg.Nearest(id, nearestServices)
		if d.nearest == nil {
			d.nearest = map[string][]string{}
		}
		d.nearest[id] = near
	}
	if len(near) > 0 {
		diag.Message = fmt.Sprintf("unknown serviceId %q for %s scripts: did you mean %s?", id, d.reg.Kind, quoteIDs(near))
	} else {
		diag.Message = fmt.Sprintf("unknown serviceId %q: no service with this id is configured for %s scripts; declare it in the service configuration",
			id, d.reg.Kind)
	}
	var others []config.Kind
	if d.disp.ConfiguredFor != nil {
		others = d.disp.ConfiguredFor(id)
	}
	kindFixes := 0
	if len(others) > 0 {
		names := make([]string, len(others))
		for i, k := range others {
			names[i] = string(k)
		}
		diag.Message = fmt.Sprintf("unknown serviceId %q for %s scripts, but configured for %s scripts: if this script is one, write \"// %s %s\" as its first line",
			id, d.reg.Kind, strings.Join(names, " and "), config.KindDirective, others[0])
		if d.disp.KindChosen {
			// The line would not change a chosen kind: no fix writes it.
			diag.Message = fmt.Sprintf("unknown serviceId %q for %s scripts, but configured for %s scripts: the script's kind was chosen (the Script kind selector), which a \"// %s\" line does not change; if this script is one, choose %s",
				id, d.reg.Kind, strings.Join(names, " and "), config.KindDirective, others[0])
			others = nil
		}
		for i, k := range others {
			f := kindFix(d.text, k)
			f.Preferred = i == 0
			diag.Fixes = append(diag.Fixes, f)
			kindFixes++
		}
	}
	for i, n := range near {
		diag.Fixes = append(diag.Fixes, Fix{Title: fmt.Sprintf("Change to %q", n), Preferred: i == 0 && kindFixes == 0,
			Edits: []Edit{{Range: r, NewText: escapeQuote(n, quote)}}})
	}
	d.add(diag)
	return nil
}

// kindFix writes "// restls-kind: k" as the script's first line: it
// replaces a first line that already names a kind, else it is inserted.
func kindFix(text string, k config.Kind) Fix {
	line := "// " + config.KindDirective + " " + string(k)
	title := fmt.Sprintf("Mark the script as %s (%s)", k, line)
	start := 0
	if strings.HasPrefix(text, "\ufeff") {
		start = len("\ufeff")
	}
	first := text[start:]
	if i := strings.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	if _, ok := config.DetectKind(text); ok || strings.Contains(first, config.KindDirective) {
		end := start + len(strings.TrimRight(first, "\r"))
		return Fix{Title: title, Edits: []Edit{{Range: Range{start, end}, NewText: line}}}
	}
	return Fix{Title: title, Edits: []Edit{{Range: Range{start, start}, NewText: line + "\n"}}}
}

func quoteIDs(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = strconv.Quote(id)
	}
	return strings.Join(q, ", ")
}

func objectLit(e ast.Expression) *ast.ObjectLiteral {
	o, _ := e.(*ast.ObjectLiteral)
	return o
}

// unknownKey reports a key that is not one of known, with a fix to the
// nearest known one.
func (d *diagnoser) unknownKey(code, what, key string, kn ast.Node, known []string) {
	r := d.rng(kn)
	diag := Diagnostic{Range: r, Severity: SeverityError, Code: code,
		Message: fmt.Sprintf("unknown %s key %q: the keys are %s", what, key, strings.Join(known, " and "))}
	near := config.Nearest(key, known, 1)
	if len(near) > 0 {
		diag.Message += fmt.Sprintf("; did you mean %q?", near[0])
		diag.Fixes = []Fix{{Title: "Change to " + near[0], Preferred: true,
			Edits: []Edit{{Range: r, NewText: near[0]}}}}
		if s, ok := kn.(*ast.StringLiteral); ok && len(s.Literal) > 0 && (s.Literal[0] == '"' || s.Literal[0] == '\'') {
			q := string(s.Literal[0])
			diag.Fixes[0].Edits[0].NewText = q + near[0] + q
		}
	}
	d.add(diag)
}

func (d *diagnoser) checkPath(e ast.Expression) {
	if !d.checkObjectArg(e, "PATH", "the service address itself") {
		return
	}
	obj := objectLit(e)
	for _, p := range obj.Value {
		key, kn := propKey(p)
		if kn == nil {
			continue
		}
		switch key {
		case keyPathParams:
			if pk, ok := p.(*ast.PropertyKeyed); ok && pk != nil {
				d.checkPathParams(pk.Value)
			}
		case keyQueryParams:
			if pk, ok := p.(*ast.PropertyKeyed); ok {
				d.checkQuery(pk.Value)
			}
		default:
			d.unknownKey(CodeUnknownPathKey, "PATH", key, kn, pathKeys)
		}
	}
}

func (d *diagnoser) checkQuery(e ast.Expression) {
	if k := literalKind(e); k == "null" || k == "undefined" {
		return // no query
	}
	if !d.checkObjectArg(e, "PATH.queryParams", "no query") {
		return
	}
	for _, p := range objectLit(e).Value {
		if pk, ok := p.(*ast.PropertyKeyed); ok && pk != nil && !isNil(pk.Value) {
			d.notString(pk.Value, CodeQueryValueNotString, "query parameter values are always strings (docs/api.md#parameters), not %s: pass a string, for example String(value)", true)
		}
	}
}

func (d *diagnoser) checkHeader(e ast.Expression, svc *config.Service, idArg ast.Expression) {
	if !d.checkObjectArg(e, "HEADER", "none") {
		return
	}
	obj := objectLit(e)
	d.checkHeaderValues(obj)
	for i, p := range obj.Value {
		key, kn := propKey(p)
		if kn == nil || !strings.EqualFold(key, "Authorization") {
			continue
		}
		r := d.rng(p)
		var msg string
		id, _, _, _ := d.stringLit(idArg)
		switch {
		case svc != nil && svc.Auth.Type != config.AuthNone:
			msg = fmt.Sprintf("hard-coded Authorization header: serviceId %q has %s authorization configured, which replaces this header; the platform also logs a warning (docs/api.md#authorization)",
				id, d.reg.AuthSummary(svc))
		case id != "":
			msg = fmt.Sprintf("hard-coded Authorization header: the platform logs a warning; configure authorization for serviceId %q instead (docs/api.md#authorization)", id)
		default:
			msg = "hard-coded Authorization header: the platform logs a warning; configure authorization for the service instead (docs/api.md#authorization)"
		}
		d.add(Diagnostic{Range: r, Severity: SeverityWarning, Code: CodeHardcodedAuthorization, Message: msg,
			Fixes: []Fix{{Title: "Remove the Authorization header", Preferred: true,
				Edits: []Edit{{Range: d.propertyRemoval(obj, i)}}}}})
	}
}

// propertyRemoval returns the range that removes property i of obj with
// its comma, keeping the other properties well formed.
func (d *diagnoser) propertyRemoval(obj *ast.ObjectLiteral, i int) Range {
	r := d.rng(obj.Value[i])
	if i+1 < len(obj.Value) {
		// Up to the next property: "a, b" -> "b".
		return Range{r.Start, offsetOf(d.text, obj.Value[i+1].Idx0())}
	}
	if i > 0 {
		// The last one: from the end of the previous property.
		return Range{offsetOf(d.text, obj.Value[i-1].Idx1()), r.End}
	}
	// The only one: a trailing comma goes too.
	end := r.End
	j := end
	for j < len(d.text) && (d.text[j] == ' ' || d.text[j] == '\t') {
		j++
	}
	if j < len(d.text) && d.text[j] == ',' {
		end = j + 1
	}
	// Nothing else between the braces (no comment to keep): empty them,
	// so "{ a: 1 }" becomes "{}", not "{  }".
	open, close := offsetOf(d.text, obj.LeftBrace)+1, offsetOf(d.text, obj.RightBrace)
	if open <= r.Start && end <= close && blank(d.text[open:r.Start]) && blank(d.text[end:close]) {
		return Range{open, close}
	}
	return Range{r.Start, end}
}

// blank reports whether s is only white space and line ends.
func blank(s string) bool { return strings.TrimSpace(s) == "" }

func (d *diagnoser) checkTimeouts(e ast.Expression) {
	if k := literalKind(e); k == "null" || k == "undefined" {
		return // the defaults
	}
	if !d.checkObjectArg(e, "TIMEOUTS", "the defaults, or leave it out") {
		return
	}
	obj := objectLit(e)
	t := timeoutsOf(d.reg)
	for _, p := range obj.Value {
		key, kn := propKey(p)
		if kn == nil {
			continue
		}
		var pair config.TimeoutPair
		switch key {
		case keyConnectionTimeout:
			pair = t.Connection
		case keyReadTimeout:
			pair = t.Read
		default:
			d.unknownKey(CodeUnknownTimeoutKey, "TIMEOUTS", key, kn, timeoutKeys)
			continue
		}
		pk, ok := p.(*ast.PropertyKeyed)
		if !ok || pk == nil {
			continue
		}
		if !d.checkTimeoutValue(key, pk.Value) {
			continue
		}
		num, ok := pk.Value.(*ast.NumberLiteral)
		if !ok || num == nil {
			continue
		}
		var v float64
		switch x := num.Value.(type) {
		case int64:
			v = float64(x)
		case float64:
			v = x
		default:
			continue
		}
		if v > float64(pair.Maximum) {
			r := d.rng(num)
			max := strconv.Itoa(pair.Maximum)
			d.add(Diagnostic{Range: r, Severity: SeverityWarning, Code: CodeTimeoutAboveMaximum,
				Message: fmt.Sprintf("%s %s ms is above the maximum of %d ms and will be clamped to %d (docs/api.md#timeouts)",
					key, num.Literal, pair.Maximum, pair.Maximum),
				Fixes: []Fix{{Title: "Clamp to " + max, Preferred: true, Edits: []Edit{{Range: r, NewText: max}}}}})
		}
	}
}
