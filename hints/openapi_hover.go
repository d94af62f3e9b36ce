package hints

import (
	"fmt"
	"sort"
	"strings"

	"github.com/restls/restls/openapi"
)

// Hover from the services' API descriptions: the operation a call
// addresses (on the call's name, hover.go) and the documented error
// answers on a catch block's exception.

// operationMarkdown describes an operation for hover.
func operationMarkdown(op *openapi.Operation, idx *openapi.Index, disp Display) string {
	var b strings.Builder
	b.WriteString("**")
	writeText(&b, op.Method+" "+op.Path)
	b.WriteString("**")
	if op.Deprecated {
		b.WriteString(" (deprecated)")
	}
	b.WriteString("\n\n")
	if op.Summary != "" {
		writeText(&b, op.Summary)
		b.WriteString("\n\n")
	}
	if op.Description != "" {
		writeText(&b, op.Description)
		b.WriteString("\n\n")
	}
	if len(op.Query) > 0 {
		b.WriteString("Query: ")
		for i, p := range op.Query {
			if i > 0 {
				b.WriteString(", ")
			}
			writeCode(&b, p.Name)
			if p.Required {
				b.WriteString(" (required)")
			}
		}
		b.WriteString("\n\n")
	}
	if op.Response != nil {
		b.WriteString("Answer: ")
		writeCode(&b, op.Response.TypeText())
		b.WriteString("\n\n")
	}
	if len(op.Errors) > 0 {
		b.WriteString("Errors:")
		for _, e := range op.Errors {
			b.WriteString("\n- ")
			writeCode(&b, e.Status)
			if e.Description != "" {
				b.WriteString(" ")
				writeText(&b, e.Description)
			}
			if e.Schema != nil && len(e.Schema.Props) > 0 {
				names := make([]string, len(e.Schema.Props))
				for i, p := range e.Schema.Props {
					names[i] = p.Name
				}
				sort.Strings(names)
				b.WriteString(" (body fields ")
				writeCode(&b, strings.Join(names, ", "))
				b.WriteString(")")
			}
		}
		b.WriteString("\n\n")
	}
	if op.DocsURL != "" && (strings.HasPrefix(op.DocsURL, "https://") || strings.HasPrefix(op.DocsURL, "http://")) {
		b.WriteString("[External documentation](" + strings.NewReplacer("(", "%28", ")", "%29", " ", "%20").Replace(op.DocsURL) + ")\n\n")
	}
	src := idx.Source
	if !openapi.IsURL(src) {
		src = disp.path(src)
	}
	b.WriteString("Described in ")
	writeCode(&b, fmt.Sprintf("%s:%d", src, op.Line))
	return b.String()
}

// catchHover hovers the exception of a catch block whose try made a call
// to a service with a description: the documented error answers and
// their fields.
func catchHover(s *scanResult, word string, rng Range, disp Display) *Hover {
	if disp.APIs == nil {
		return nil
	}
	for i := len(s.stack) - 1; i >= 0; i-- {
		if s.stack[i].catchVar != word {
			continue
		}
		call, open, ok := lastCall(s.text[:s.stack[i].pos])
		if !ok {
			return nil
		}
		op, _ := operationOf(s.text, call, open, disp, false)
		if op == nil || len(op.Errors) == 0 {
			return nil
		}
		var b strings.Builder
		b.WriteString("**")
		writeText(&b, word)
		b.WriteString("**: the exception of ")
		writeCode(&b, op.Method+" "+op.Path)
		b.WriteString(" (`status.code`, `body` as text; parse it with `JSON.parse(" + word + ".body)`). Documented error answers:\n")
		for _, e := range op.Errors {
			b.WriteString("\n- ")
			writeCode(&b, e.Status)
			if e.Description != "" {
				b.WriteString(" ")
				writeText(&b, e.Description)
			}
			if e.Schema != nil {
				for j, p := range e.Schema.Props {
					if j == 0 {
						b.WriteString(" Fields: ")
					} else {
						b.WriteString(", ")
					}
					writeCode(&b, p.Name)
					if t := p.Schema.TypeText(); t != "" {
						b.WriteString(" (" + t + ")")
					}
				}
			}
		}
		return &Hover{Markdown: b.String(), Range: rng}
	}
	return nil
}

// lastCall finds the last `api.rest.v1.<call>(` in text.
func lastCall(text string) (call, open int, ok bool) {
	i := strings.LastIndex(text, "api.rest.v1.")
	if i < 0 {
		return 0, 0, false
	}
	return callAt(text, i)
}
