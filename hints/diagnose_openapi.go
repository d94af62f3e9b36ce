package hints

import (
	"fmt"
	"strings"

	"github.com/dop251/goja/ast"

	"github.com/restls/restls/openapi"
)

// Diagnostic codes of the checks against a service's API description;
// stable, documented in docs/diagnostics.md under "API description
// diagnostics".
const (
	CodeOpenAPIUnknownPath  = "openapi-unknown-path"
	CodeOpenAPIMethod       = "openapi-method"
	CodeOpenAPIMissingQuery = "openapi-missing-query"
	CodeOpenAPIUnknownQuery = "openapi-unknown-query"
	CodeOpenAPIMissingField = "openapi-missing-field"
	CodeOpenAPIDeprecated   = "openapi-deprecated"
)

// checkOpenAPI checks a call's literal arguments against the description
// of its service. A computed serviceId, PATH or pathParams is not checked.
func (d *diagnoser) checkOpenAPI(c *Call, args []ast.Expression, nameRng Range) {
	if d.disp.APIs == nil || len(args) <= argPath {
		return
	}
	id, _, _, ok := d.stringLit(args[argServiceID])
	if !ok {
		return
	}
	api, ok := d.disp.apiOf(id, false)
	if !ok {
		return
	}
	path := objectLit(args[argPath])
	if path == nil {
		return
	}
	var arr *ast.ArrayLiteral
	var query *ast.ObjectLiteral
	queryLiteral := true
	for _, p := range path.Value {
		key, _ := propKey(p)
		pk, ok := p.(*ast.PropertyKeyed)
		if !ok || pk == nil {
			continue
		}
		switch key {
		case keyPathParams:
			a, ok := pk.Value.(*ast.ArrayLiteral)
			if !ok || a == nil {
				return // computed: no guess
			}
			arr = a
		case keyQueryParams:
			query = objectLit(pk.Value)
			queryLiteral = query != nil
		}
	}
	var segs []openapi.Seg
	var segNodes []ast.Expression
	if arr != nil {
		for _, e := range arr.Value {
			if e == nil {
				return
			}
			if _, spread := e.(*ast.SpreadElement); spread {
				return // the number of segments is unknown
			}
			segNodes = append(segNodes, e)
			if v, _, _, ok := d.stringLit(e); ok {
				segs = append(segs, openapi.Seg{Text: v})
			} else {
				segs = append(segs, openapi.Seg{Computed: true})
			}
		}
	}
	where := d.rng(args[argPath])
	if arr != nil {
		where = d.rng(arr)
	}
	op, others := api.Match(c.Method, segs)
	written := writtenPath(api, segs)
	switch {
	case op == nil && len(others) == 0:
		diag := Diagnostic{Range: where, Severity: SeverityWarning, Code: CodeOpenAPIUnknownPath}
		near := api.Nearest(segs)
		diag.Message = fmt.Sprintf("no operation in the API description of %q matches %s", id, written)
		if near != "" {
			diag.Message += "; the nearest path is " + near
		}
		diag.Message += " (" + d.descriptionName(api) + "): check the segments, or attach the service's current description"
		if k, seg := d.firstUnknownSegment(api, c.Method, segs); k >= 0 && seg != "" {
			_, r, quote, _ := d.stringLit(segNodes[k])
			diag.Fixes = []Fix{{Title: fmt.Sprintf("Change to %q", seg), Preferred: true,
				Edits: []Edit{{Range: r, NewText: escapeQuote(seg, quote)}}}}
		}
		d.add(diag)
		return
	case op == nil:
		d.add(Diagnostic{Range: nameRng, Severity: SeverityWarning, Code: CodeOpenAPIMethod,
			Message: fmt.Sprintf("the API description of %q has no %s %s; this path takes %s (%s): use one of them or check the path",
				id, c.Method, others[0].Path, methodList(others), d.descriptionName(api))})
		return
	}
	if guessed(api, op, segs) {
		return // a computed value stands for a literal segment: no guess
	}
	if op.Deprecated {
		d.add(Diagnostic{Range: nameRng, Severity: SeverityWarning, Code: CodeOpenAPIDeprecated, Deprecated: true,
			Message: fmt.Sprintf("%s %s is deprecated in the API description of %q: its documentation (hover) may name the replacement", op.Method, op.Path, id)})
	}
	if queryLiteral {
		d.checkQueryKeys(op, query, args[argPath], path, id)
	}
	var header *ast.ObjectLiteral
	if len(args) > argHeader {
		header = objectLit(args[argHeader])
	}
	d.checkParamValues(api, op, segNodes, query, header, id)
	if c.HasPayload && len(args) > argPayload && op.Body != nil {
		if !d.checkPayloadSchema(api, op, args[argPayload], id) {
			if body := objectLit(args[argPayload]); body != nil {
				d.checkFields(op, body, id)
			}
		}
	}
}

// guessed reports whether a computed segment stands where the operation
// has a literal one.
func guessed(api openapi.API, op *openapi.Operation, segs []openapi.Seg) bool {
	off := len(api.Prefix)
	for i, s := range segs {
		if s.Computed && off+i < len(op.Segments) && !openapi.IsParam(op.Segments[off+i]) {
			return true
		}
	}
	return false
}

// writtenPath shows the segments as a path for a message.
func writtenPath(api openapi.API, segs []openapi.Seg) string {
	var b strings.Builder
	for _, p := range api.Prefix {
		b.WriteString("/" + p)
	}
	for _, s := range segs {
		if s.Computed {
			b.WriteString("/{…}")
		} else {
			b.WriteString("/" + s.Text)
		}
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}

func (d *diagnoser) descriptionName(api openapi.API) string {
	src := api.Index.Source
	if !openapi.IsURL(src) {
		src = d.disp.path(src)
	}
	return src
}

// firstUnknownSegment returns the first literal segment no operation
// continues with, and the nearest known one in its place.
func (d *diagnoser) firstUnknownSegment(api openapi.API, method string, segs []openapi.Seg) (int, string) {
	for k := range segs {
		if segs[k].Computed {
			continue
		}
		found := false
		for _, n := range api.Next(method, segs[:k]) {
			if n.Segment == segs[k].Text || openapi.IsParam(n.Segment) {
				found = true
				break
			}
		}
		if !found {
			return k, api.NearestSegment(segs[:k+1])
		}
	}
	return -1, ""
}

func (d *diagnoser) checkQueryKeys(op *openapi.Operation, query *ast.ObjectLiteral, pathArg ast.Expression, path *ast.ObjectLiteral, id string) {
	have := map[string]bool{}
	if query != nil {
		for _, p := range query.Value {
			key, kn := propKey(p)
			if kn == nil {
				if _, keyed := p.(*ast.PropertyKeyed); !keyed {
					return // a spread: the keys are unknown
				}
				continue
			}
			have[key] = true
			known := false
			for _, q := range op.Query {
				known = known || q.Name == key
			}
			if !known {
				msg := fmt.Sprintf("%s %s does not describe the query parameter %q (the service may still take it)", op.Method, op.Path, key)
				if len(op.Query) > 0 {
					names := make([]string, len(op.Query))
					for i, q := range op.Query {
						names[i] = q.Name
					}
					msg += "; it takes " + strings.Join(names, ", ")
				}
				d.add(Diagnostic{Range: d.rng(kn), Severity: SeverityInfo, Code: CodeOpenAPIUnknownQuery, Message: msg})
			}
		}
	}
	for _, q := range op.Query {
		if !q.Required || have[q.Name] {
			continue
		}
		r := d.rng(pathArg)
		diag := Diagnostic{Range: r, Severity: SeverityWarning, Code: CodeOpenAPIMissingQuery,
			Message: fmt.Sprintf("%s %s requires the query parameter %q (API description of %q): add it to queryParams", op.Method, op.Path, q.Name, id)}
		if query != nil {
			diag.Range = d.rng(query)
			diag.Fixes = []Fix{{Title: fmt.Sprintf("Add %s", q.Name), Preferred: true,
				Edits: []Edit{d.insertKey(query, jsKey(q.Name)+`: ""`)}}}
		} else {
			diag.Fixes = []Fix{{Title: fmt.Sprintf("Add %s", q.Name), Preferred: true,
				Edits: []Edit{d.insertKey(path, keyQueryParams+`: {`+jsKey(q.Name)+`: ""}`)}}}
		}
		d.add(diag)
	}
}

func (d *diagnoser) checkFields(op *openapi.Operation, body *ast.ObjectLiteral, id string) {
	have := map[string]bool{}
	for _, p := range body.Value {
		key, kn := propKey(p)
		if kn == nil {
			if _, keyed := p.(*ast.PropertyKeyed); !keyed {
				return // a spread: the keys are unknown
			}
			continue
		}
		have[key] = true
	}
	for _, p := range op.Body.Props {
		if !p.Required || have[p.Name] {
			continue
		}
		d.add(Diagnostic{Range: d.rng(body), Severity: SeverityWarning, Code: CodeOpenAPIMissingField,
			Message: fmt.Sprintf("%s %s requires the payload property %q (API description of %q): add it to the payload", op.Method, op.Path, p.Name, id),
			Fixes: []Fix{{Title: fmt.Sprintf("Add %s", p.Name), Preferred: true,
				Edits: []Edit{d.insertKey(body, jsKey(p.Name)+": "+placeholder(p.Schema))}}}})
	}
}

// placeholder is a value of the schema's type to fill in.
func placeholder(s *openapi.Schema) string {
	switch s.TypeText() {
	case "integer", "number":
		return "0"
	case "boolean":
		return "false"
	}
	switch {
	case s != nil && s.Type == "array":
		return "[]"
	case s != nil && s.Type == "object":
		return "{}"
	}
	return `""`
}

// insertKey adds a property at the start of an object literal.
func (d *diagnoser) insertKey(obj *ast.ObjectLiteral, prop string) Edit {
	at := offsetOf(d.text, obj.LeftBrace) + 1
	if len(obj.Value) > 0 {
		return Edit{Range: Range{at, at}, NewText: prop + ", "}
	}
	return Edit{Range: Range{at, at}, NewText: prop}
}

func methodList(ops []*openapi.Operation) string {
	var seen []string
	for _, o := range ops {
		if !containsString(seen, o.Method) {
			seen = append(seen, o.Method)
		}
	}
	return strings.Join(seen, ", ")
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
