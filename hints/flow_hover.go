package hints

import (
	"fmt"
	"strings"

	"github.com/restls/restls/openapi"
)

// Hover from the flow of answer types (flow.go): what a name's value
// is, and where its schema is written.

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
		writeCodeList(b, "Seen: ", v.schema.Seen)
		writeCodeList(b, "Values: ", v.schema.Enum)
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
