package hints

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dop251/goja/ast"

	"github.com/restls/restls/config"
	"github.com/restls/restls/openapi"
)

// Diagnostics of the answer types (flow.go); stable, documented in
// docs/diagnostics.md.
const (
	CodeOpenAPIUnknownRead        = "openapi-unknown-read"
	CodeExceptionBodyField        = "exception-body-field"
	CodeExceptionHeaders          = "exception-headers"
	CodeOpenAPIUndocumentedStatus = "openapi-undocumented-status"
	maxFlowDiagnostics            = 200
	maxFieldsNamed                = 8
)

// objectMembers are read from any object without being fields of it.
var objectMembers = map[string]bool{
	"constructor": true, "hasOwnProperty": true, "isPrototypeOf": true, "propertyIsEnumerable": true,
	"toLocaleString": true, "toString": true, "valueOf": true, "__proto__": true,
}

// stringMembers are read from a string (the exception's body).
var stringMembers = map[string]bool{
	"length": true, "charAt": true, "charCodeAt": true, "codePointAt": true, "concat": true, "endsWith": true,
	"includes": true, "indexOf": true, "lastIndexOf": true, "localeCompare": true, "match": true, "matchAll": true,
	"normalize": true, "padEnd": true, "padStart": true, "repeat": true, "replace": true, "replaceAll": true,
	"search": true, "slice": true, "split": true, "startsWith": true, "substring": true, "substr": true,
	"toLowerCase": true, "toUpperCase": true, "toLocaleLowerCase": true, "toLocaleUpperCase": true, "trim": true,
	"trimStart": true, "trimEnd": true, "at": true, "toString": true, "valueOf": true,
}

// checkFlow reports the reads of fields an answer does not have, reads
// from the exception's body, and comparisons of a status code with one
// the operation does not document.
func (d *diagnoser) checkFlow(doc *Document) {
	// The analysis costs about a parse, and an editor keeps its result
	// for each open script: made only where it may report (a call to a
	// service with a description or recorded answers). Elsewhere the
	// catch parameter's own reads are checked without it.
	if !d.described {
		if p := doc.parse(); p.body != nil && strings.Contains(d.text, "catch") {
			d.checkCatchReads()
		}
		return
	}
	res := doc.flow()
	if res == nil || len(res.reads) == 0 {
		return
	}
	n := 0
	for i := range res.reads {
		if n >= maxFlowDiagnostics {
			break
		}
		rd := res.read(i)
		if !rd.prop || rd.base.mixed || !values(rd.base) || objectMembers[rd.name] {
			continue
		}
		if diag, ok := d.flowRead(res, rd); ok {
			d.add(diag)
			n++
		}
	}
	for _, c := range res.cmps {
		if n >= maxFlowDiagnostics {
			break
		}
		if diag, ok := d.flowStatus(res, c); ok {
			d.add(diag)
			n++
		}
	}
}

// flowRead checks one property read: every type of what it is read from
// must lack it.
func (d *diagnoser) flowRead(res *flowResult, rd fread) (Diagnostic, bool) {
	var missing []fval
	exc, excHeaders := 0, 0
	for _, x := range rd.base.ts {
		if x.o == oFunc {
			continue
		}
		v, ok := res.resolve(x, []string{rd.name}, d.disp)
		if !ok {
			return Diagnostic{}, false
		}
		switch {
		case v.kind == vExcBodyRead && !stringMembers[rd.name]:
			exc++
		case v.kind == vExcHeaders:
			excHeaders++
		case v.kind == vBody && v.missing != "" && v.schema != nil &&
			(v.schema.Closed || len(v.schema.Props) > 0 && !v.schema.Open):
			missing = append(missing, v)
		default:
			return Diagnostic{}, false
		}
	}
	switch {
	case exc > 0 && len(missing) == 0 && excHeaders == 0:
		return excBodyField(rd.rng, rd.name), true
	case excHeaders > 0 && exc == 0 && len(missing) == 0:
		return excHeadersRead(rd.rng), true
	case len(missing) == 0 || exc > 0 || excHeaders > 0:
		return Diagnostic{}, false
	}
	v := missing[0]
	sev := SeverityInfo
	for _, m := range missing {
		if m.idx != nil && !m.idx.Recorded {
			sev = SeverityWarning
		}
	}
	names := make([]string, 0, len(v.schema.Props))
	for _, p := range v.schema.Props {
		names = append(names, p.Name)
	}
	what := "the answer"
	if v.op != nil {
		what = "the " + v.op.Method + " " + v.op.Path + " answer"
	}
	listed := names
	more := ""
	if len(listed) > maxFieldsNamed {
		listed, more = listed[:maxFieldsNamed], fmt.Sprintf(" and %d more", len(names)-maxFieldsNamed)
	}
	from := "its API description"
	if sev == SeverityInfo {
		from = "the recorded answers in " + d.disp.path(v.idx.Source)
	} else if v.idx != nil {
		src := v.idx.Source
		if !openapi.IsURL(src) {
			src = d.disp.path(src)
		}
		from = "its API description " + src
	}
	msg := fmt.Sprintf("%s does not have the field %q here (fields in %s: %s%s), so it reads undefined: check the name",
		what, rd.name, from, strings.Join(listed, ", "), more)
	diag := Diagnostic{Range: rd.rng, Severity: sev, Code: CodeOpenAPIUnknownRead, Message: msg}
	if near := config.Nearest(rd.name, names, 1); len(near) > 0 && !strings.Contains(d.text[rd.rng.Start:rd.rng.End], `"`) {
		diag.Fixes = []Fix{{Title: "Change to " + near[0], Preferred: true, Edits: []Edit{{Range: rd.rng, NewText: near[0]}}}}
	}
	return diag, true
}

// flowStatus checks a comparison of a status code with a number: an
// answer's code is 2XX, an exception's is not, and either should be one
// the operation documents.
func (d *diagnoser) flowStatus(res *flowResult, c fcmp) (Diagnostic, bool) {
	code, err := strconv.Atoi(c.value)
	if err != nil || code < 100 || code > 599 {
		return Diagnostic{}, false
	}
	for _, x := range c.t.ts {
		if x.o != oResponse && x.o != oException {
			continue
		}
		v, ok := res.resolve(x, nil, d.disp)
		if !ok || v.kind != vCode || v.op == nil || v.idx == nil || v.idx.Recorded || len(v.op.Statuses) == 0 {
			continue
		}
		op := v.op
		two := code >= 200 && code < 300
		var msg string
		switch {
		case x.o == oResponse && !two:
			msg = fmt.Sprintf("the answer's status.code is never %d: a status outside 2XX throws the exception; "+
				"compare e.status.code in a catch block", code)
		case x.o == oException && two:
			msg = fmt.Sprintf("the exception's status.code is never %d: a 2XX status is an answer, not an exception", code)
		case documented(op.Statuses, code):
			continue
		default:
			msg = fmt.Sprintf("%s %s does not document the status %d (it documents %s): check the code or the description",
				op.Method, op.Path, code, strings.Join(op.Statuses, ", "))
		}
		return Diagnostic{Range: c.rng, Severity: SeverityInfo, Code: CodeOpenAPIUndocumentedStatus, Message: msg}, true
	}
	return Diagnostic{}, false
}

// documented reports whether statuses ("200", "4XX", "default") cover
// code.
func documented(statuses []string, code int) bool {
	s := strconv.Itoa(code)
	for _, st := range statuses {
		switch {
		case st == "default" || st == s:
			return true
		case len(st) == 3 && strings.EqualFold(st[1:], "XX") && st[0] == s[0]:
			return true
		}
	}
	return false
}

func excBodyField(r Range, name string) Diagnostic {
	return Diagnostic{Range: r, Severity: SeverityWarning, Code: CodeExceptionBodyField,
		Message: fmt.Sprintf("the exception's body is the failed answer's text, a string: it has no field %q; "+
			"parse it first (JSON.parse(e.body).%s), inside a try: it may not be JSON", name, name)}
}

func excHeadersRead(r Range) Diagnostic {
	return Diagnostic{Range: r, Severity: SeverityWarning, Code: CodeExceptionHeaders,
		Message: "the exception of a call has no headers (only status.code, status.message and body): " +
			"the failed answer's headers are not available to the script"}
}

// checkCatchReads checks, without the analysis, the reads of a catch
// parameter whose try calls a service: e.body.x and e.headers. The try
// statements are those the diagnoser's walk met (d.tries).
func (d *diagnoser) checkCatchReads() {
	n := 0
	for _, t := range d.tries {
		if t == nil || t.Catch == nil || t.Catch.Body == nil || n >= maxFlowDiagnostics {
			continue
		}
		id, ok := t.Catch.Parameter.(*ast.Identifier)
		if !ok || id == nil || t.Body == nil || !callsService(t.Body) {
			continue
		}
		name := id.Name.String()
		walk(t.Catch.Body, func(x ast.Node) {
			dot, ok := x.(*ast.DotExpression)
			if !ok || dot == nil || n >= maxFlowDiagnostics {
				return
			}
			prop := dot.Identifier.Name.String()
			start := offsetOf(d.text, dot.Identifier.Idx)
			r := Range{start, min(start+len(prop), len(d.text))}
			switch left := dot.Left.(type) {
			case *ast.Identifier:
				if left != nil && left.Name.String() == name && prop == "headers" {
					d.add(excHeadersRead(r))
					n++
				}
			case *ast.DotExpression:
				if in, ok := left.Left.(*ast.Identifier); ok && in != nil && in.Name.String() == name &&
					left.Identifier.Name.String() == "body" && !stringMembers[prop] {
					d.add(excBodyField(r, prop))
					n++
				}
			}
		})
	}
}

// callsService reports whether block b calls api.rest.v1 (or a function,
// which may).
func callsService(b ast.Node) bool {
	found := false
	walk(b, func(x ast.Node) {
		c, ok := x.(*ast.CallExpression)
		if found || !ok || c == nil {
			return
		}
		if _, ok := c.Callee.(*ast.Identifier); ok {
			found = true
			return
		}
		if _, ok := apiCallName(c.Callee); ok {
			found = true
		}
	})
	return found
}
