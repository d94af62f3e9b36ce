package hints

import (
	"fmt"
	"slices"
	"strings"

	"github.com/restls/restls/openapi"
)

// What the answer types of flow.go are, against the descriptions (or
// recorded answers) of a Display: completion, hover and definition.

// vkind is what a typed value is.
type vkind uint8

const (
	vResponse    vkind = iota + 1 // the answer: status, headers, body
	vStatus                       // status: code, message
	vCode                         // status.code
	vMessage                      // status.message
	vHeaders                      // headers
	vHeader                       // one header's value
	vBody                         // (part of) the body, schema when described
	vException                    // the exception: status, body
	vExcBody                      // the exception's body: a string
	vExcBodyRead                  // a read from the exception's body: a mistake
	vExcHeaders                   // the exception's headers: there are none
)

// fval is a typed value resolved against the descriptions.
type fval struct {
	kind   vkind
	schema *openapi.Schema // vBody
	prop   *openapi.Prop   // the property it was read as
	op     *openapi.Operation
	idx    *openapi.Index
	call   int32 // the call it is the answer or exception of; -1 unknown
	// missing is the property read that the schema (of vBody, the
	// schema above) does not have.
	missing string
}

// resolve resolves type x, then the extra steps, against disp; ok false
// when it is no value restls knows (a function, a read from a status
// code ...).
func (r *flowResult) resolve(x ftype, extra []string, disp Display) (fval, bool) {
	if x.o != oResponse && x.o != oException {
		return fval{}, false
	}
	v := fval{kind: vResponse, call: x.id}
	if x.o == oException {
		v.kind = vException
	}
	v.op, v.idx = r.opOf(x.id, disp)
	steps := append(x.p.steps(), extra...)
	for i, st := range steps {
		if st == "<arr>" {
			if i+1 < len(steps) && steps[i+1] == "[]" {
				continue
			}
			return fval{}, false
		}
		if i > 0 && steps[i-1] == "<arr>" && st == "[]" {
			continue
		}
		switch v.kind {
		case vResponse:
			switch st {
			case "body":
				v.kind = vBody
				if v.op != nil {
					v.schema = v.op.Response
				}
			case "status":
				v.kind = vStatus
			case "headers":
				v.kind = vHeaders
			default:
				return fval{}, false
			}
		case vException:
			switch st {
			case "body":
				v.kind = vExcBody
			case "status":
				v.kind = vStatus
			case "headers":
				v.kind = vExcHeaders
			default:
				return fval{}, false // another thrown thing's field
			}
		case vStatus:
			switch st {
			case "code":
				v.kind = vCode
			case "message":
				v.kind = vMessage
			default:
				return fval{}, false
			}
		case vHeaders:
			if st == "[]" {
				return fval{}, false
			}
			v.kind = vHeader
		case vExcBody:
			if st == "[]" {
				return fval{}, false
			}
			v.kind, v.missing = vExcBodyRead, st
		case vBody:
			if v.schema == nil || v.missing != "" {
				return fval{}, false
			}
			if st == "[]" {
				if v.schema.Items == nil {
					return fval{}, false
				}
				v.schema, v.prop = v.schema.Items, nil
				continue
			}
			p := v.schema.Prop(st)
			if p == nil {
				v.missing = st
				if i != len(steps)-1 {
					return fval{}, false
				}
				continue
			}
			v.schema, v.prop = p.Schema, p
		default:
			return fval{}, false
		}
	}
	return v, true
}

// source says where a body value's schema comes from.
func (v fval) source(disp Display) string {
	if v.op == nil || v.idx == nil {
		return ""
	}
	if v.idx.Recorded {
		return fmt.Sprintf("From recorded answers: `%s:%d` (no API description).", disp.path(v.idx.Source), v.op.Line)
	}
	return "From the `" + v.op.Method + " " + v.op.Path + "` answer in the service's API description."
}

// chainHead is where a chain that starts at a ')' or ']' starts: the end
// of the ')' (a call's result ends there: `f().body.`,
// `a.find(...).x.`) or ']' (an element read with a computed index:
// `a[i + 1].x.`), and for a ')' the end of the token before it (a name
// read inside parentheses ends there: `(r.body).x.`); 0 for none.
type chainHead struct{ close, inner int }

// flowChain reads `root.a[0].b.` back from the '.' at back-token i: the
// variable and the steps after it ("a", "[]", "b"). A chain that starts
// at a ')' has no root but a head.
func (s *scanResult) flowChain(i int) (root string, head chainHead, steps []string, ok bool) {
	if !s.isPunct(i, '.') {
		return "", chainHead{}, nil, false
	}
	var rev []string
	i++
	for len(rev) < flowMaxDepth {
		t, ok := s.tok(i)
		if !ok {
			return "", chainHead{}, nil, false
		}
		bracket := false
		switch {
		case t.kind == tkIdent:
			rev = append(rev, s.tokText(t))
			i++
		case t.kind == tkPunct && t.ch == ']' && s.isPunct(i+2, '['):
			step := "[]"
			if q, ok := s.tok(i + 1); ok && q.kind == tkString && q.end-q.start >= 2 {
				step = s.text[q.start+1 : q.end-1] // r.body["a-b"]
			}
			rev = append(rev, step)
			i += 3
			bracket = true
		case t.kind == tkPunct && t.ch == ']':
			// An index that is not one token (`a[i + 1]`): the element
			// read that ends there.
			slices.Reverse(rev)
			return "", chainHead{close: t.end}, rev, true
		case t.kind == tkPunct && t.ch == ')':
			head = chainHead{close: t.end}
			if p, ok := s.tok(i + 1); ok {
				head.inner = p.end
			}
			slices.Reverse(rev)
			return "", head, rev, true
		default:
			return "", chainHead{}, nil, false
		}
		if s.isPunct(i, '.') {
			i++
			continue
		}
		if bracket {
			if p, ok := s.tok(i); ok && (p.kind == tkIdent || p.kind == tkPunct && p.ch == ']') {
				continue // body[0], a[0][1]
			}
		}
		break
	}
	if len(rev) == 0 {
		return "", chainHead{}, nil, false
	}
	slices.Reverse(rev)
	if rev[0] == "[]" {
		return "", chainHead{}, nil, false
	}
	return rev[0], chainHead{}, rev[1:], true
}

// flowItems completes after `x.` (and `x.a[0].`) where x holds an answer,
// a part of one or an exception, however it got there; ok false when
// the flow knows nothing of x.
func flowItems(dst []CompletionItem, doc *Document, s *scanResult, used int, rng Range, disp Display) (items []CompletionItem, incomplete, ok bool) {
	if doc == nil || doc.text != s.text {
		return nil, false, false
	}
	root, head, steps, ok := s.flowChain(used)
	if !ok {
		return nil, false, false
	}
	// A document not analysed yet is analysed now only where answers
	// can be typed (a description or recorded answers), as Diagnose does.
	describe := disp.APIs.Len() > 0
	var res *flowResult
	var t tset
	if root != "" {
		var at int
		res, at = doc.flowForCompletion(rng.Start, describe)
		t, ok = res.lookup(root, at)
	} else {
		// No name starts the chain: the result of the call that ends at
		// the ')', else (no call ends there: parentheses) the name read
		// before it.
		var at int
		res, at = doc.flowForCompletion(head.close, describe)
		t, ok = res.resultAt(at)
		if !ok && head.inner > 0 {
			_, at = doc.flowForCompletion(head.inner, describe)
			t, ok = res.readEndingAt(at)
		}
	}
	if !ok || !values(t) {
		return nil, false, false
	}
	var vals []fval
	for _, x := range t.ts {
		if v, ok := res.resolve(x, steps, disp); ok && v.missing == "" {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return nil, false, false
	}
	items = dst
	seen := map[string]bool{}
	addFields := func(fs []field) {
		for _, it := range fieldItems(fs, rng) {
			if !seen[it.Label] {
				seen[it.Label] = true
				items = append(items, it)
			}
		}
	}
	for _, v := range vals {
		switch v.kind {
		case vResponse:
			addFields(responseFields)
		case vException:
			addFields(exceptionFields)
		case vStatus:
			addFields(statusFields)
		case vBody:
			if v.schema == nil || len(v.schema.Props) == 0 {
				continue
			}
			t := bodyTextOf(v.idx, v.schema, v.source(disp))
			pick, capped := pickProps(v.schema.Props, s.text[rng.Start:s.offset])
			n := len(v.schema.Props)
			if capped {
				n, incomplete = len(pick), true
			}
			for k := range n {
				i := k
				if capped {
					i = pick[k]
				}
				name := v.schema.Props[i].Name
				if seen[name] {
					continue
				}
				seen[name] = true
				items = append(items, CompletionItem{Label: name, Kind: ItemField, Detail: t.detail[i],
					Documentation: t.doc[i], InsertText: name, Replace: rng})
			}
		}
	}
	if len(items) == len(dst) {
		return nil, false, false
	}
	return items, incomplete, true
}

// flowHover hovers a name whose value the flow types: a variable holding
// an answer (or part of one), a property read from one.
func flowHover(doc *Document, offset int, disp Display) *Hover {
	res, mapRange := doc.flowForRead()
	rd, rng, ok := res.readAt(offset, mapRange)
	if !ok {
		return nil
	}
	var b strings.Builder
	b.WriteString("**")
	writeText(&b, rd.name)
	b.WriteString("**")
	shown := 0
	for _, x := range rd.t.ts {
		v, ok := res.resolve(x, nil, disp)
		if !ok || v.missing != "" {
			continue
		}
		if shown == 3 {
			b.WriteString("\n\n(and more)")
			break
		}
		if shown > 0 {
			b.WriteString("\n\n---\n\n")
			writeText(&b, "or ")
		} else {
			b.WriteString(": ")
		}
		shown++
		writeValue(&b, v, res, disp)
	}
	if shown == 0 {
		return nil
	}
	return &Hover{Markdown: b.String(), Range: rng}
}

// writeValue writes what a value is, for hover.
func writeValue(b *strings.Builder, v fval, res *flowResult, disp Display) {
	call := ""
	if v.call >= 0 && int(v.call) < len(res.calls) {
		call = "api.rest.v1." + calls[res.calls[v.call].call].Name
	}
	switch v.kind {
	case vResponse:
		b.WriteString("the answer of `" + call + "` (`status`, `headers`, `body`)")
	case vException:
		b.WriteString("the exception of a call (`status.code`, `status.message`, `body` as text; no `headers`)")
	case vStatus:
		b.WriteString("`{code, message}`: the HTTP status")
	case vCode:
		b.WriteString("`int`: the HTTP status code")
	case vMessage:
		b.WriteString("`string`: the HTTP status message")
	case vHeaders:
		b.WriteString("`Map<String, String>`: the answer's headers")
	case vHeader:
		b.WriteString("`string`: a header of the answer")
	case vExcBody:
		b.WriteString("`string`: the failed answer's body as text; read it with `JSON.parse`")
	case vBody:
		if v.schema == nil {
			b.WriteString("the answer's body (no API description or recorded answer for this call)")
			return
		}
		writeCode(b, v.schema.TypeText())
		if v.prop != nil && v.prop.Required {
			b.WriteString(", required")
		}
		b.WriteString("\n\n")
		if v.schema.Description != "" {
			writeText(b, v.schema.Description)
			b.WriteString("\n\n")
		}
		if v.schema.Example != "" {
			b.WriteString("Example: ")
			writeCode(b, v.schema.Example)
			b.WriteString("\n\n")
		}
		if len(v.schema.Seen) > 0 {
			b.WriteString("Seen: ")
			for i, s := range v.schema.Seen {
				if i > 0 {
					b.WriteString(", ")
				}
				writeCode(b, s)
			}
			b.WriteString("\n\n")
		}
		if len(v.schema.Enum) > 0 {
			b.WriteString("Values: ")
			for i, s := range v.schema.Enum {
				if i > 0 {
					b.WriteString(", ")
				}
				writeCode(b, s)
			}
			b.WriteString("\n\n")
		}
		b.WriteString(v.source(disp))
		if src, line, ok := v.schemaAt(disp); ok {
			b.WriteString(" Schema: ")
			writeCode(b, fmt.Sprintf("%s:%d", src, line))
		}
	}
}

// schemaAt is where a body value's schema is written: the description
// or the recorded fixture, as shown to the reader.
func (v fval) schemaAt(disp Display) (string, int, bool) {
	if v.schema == nil || v.idx == nil || v.schema.Line <= 0 {
		return "", 0, false
	}
	src := v.idx.Source
	if !openapi.IsURL(src) {
		src = disp.path(src)
	}
	return src, v.schema.Line, true
}

// flowDefinition opens the schema of a typed name's value: in the
// description, or the recorded fixture.
func flowDefinition(doc *Document, offset int, disp Display) (Definition, bool) {
	res, mapRange := doc.flowForRead()
	rd, rng, ok := res.readAt(offset, mapRange)
	if !ok {
		return Definition{}, false
	}
	for _, x := range rd.t.ts {
		v, ok := res.resolve(x, nil, disp)
		if !ok || v.kind != vBody || v.schema == nil || v.idx == nil || v.schema.Line <= 0 || openapi.IsURL(v.idx.Source) {
			continue
		}
		return Definition{File: v.idx.Source, Line: v.schema.Line, Range: rng}, true
	}
	return Definition{}, false
}
