package hints

import (
	"fmt"
	"strings"

	"github.com/restls/restls/config"
)

// Hover works from the tolerant scanner, like completion, so it keeps
// working while the script is half-typed (see docs/decisions.md).
func hoverAt(doc *Document, offset int, reg *config.Registry) (out Hover, ok bool) {
	defer func() {
		if recover() != nil {
			out, ok = Hover{}, false
		}
	}()
	if doc == nil {
		return Hover{}, false
	}
	text := doc.text
	offset = clampOffset(text, offset)
	if h, ok := hoverWord(text, offset, reg); ok {
		return h, true
	}
	s := scan(text, offset)
	if s.where == inCode && offset < len(text) && (text[offset] == '"' || text[offset] == '\'') {
		// On the opening quote.
		s = scan(text, offset+1)
	}
	if s.where != inString {
		return Hover{}, false
	}
	f := s.top()
	if f == nil {
		return Hover{}, false
	}
	start := s.strStart + 1
	rng := Range{start, stringEnd(text, s.strStart, s.offset)}
	value := text[rng.Start:rng.End]
	switch {
	case f.open == '(' && f.call >= 0 && f.arg == argServiceID:
		return serviceHover(reg, value, rng)
	case f.open == '{' && !f.afterColon:
		return keyHover(s, f, value, rng, reg)
	}
	return Hover{}, false
}

// hoverWord hovers an identifier: a call name or an object key.
func hoverWord(text string, offset int, reg *config.Registry) (Hover, bool) {
	ws, we := identAround(text, offset)
	if ws == we || !isIdentStart(text[ws]) {
		return Hover{}, false
	}
	s := scan(text, ws)
	if s.where != inCode {
		return Hover{}, false
	}
	word := text[ws:we]
	rng := Range{ws, we}
	if c := callIndex(word); c >= 0 && s.isPunct(0, '.') && s.isIdent(1, "v1") && s.isPunct(2, '.') &&
		s.isIdent(3, "rest") && s.isPunct(4, '.') && s.isIdent(5, "api") {
		return Hover{Markdown: callMarkdown(&calls[c]), Range: rng}, true
	}
	if f := s.top(); f != nil && f.open == '{' && !f.afterColon {
		return keyHover(s, f, word, rng, reg)
	}
	return Hover{}, false
}

func callMarkdown(c *Call) string {
	var b strings.Builder
	fmt.Fprintf(&b, "```js\n%s\n```\n\n%s\n", c.Signature, c.Documentation)
	for _, p := range c.Params {
		fmt.Fprintf(&b, "\n- `%s`: %s", p.Label, p.Documentation)
	}
	return b.String()
}

// keyHover hovers a key of the PATH or TIMEOUTS object.
func keyHover(s *scanResult, f *frame, key string, rng Range, reg *config.Registry) (Hover, bool) {
	_, kind := s.objectParam(f)
	switch kind {
	case "timeouts":
		t := timeoutsOf(reg)
		switch key {
		case keyConnectionTimeout:
			return Hover{Markdown: fmt.Sprintf("**%s** (TIMEOUTS)\n\n%s", key, timeoutDoc(key, t.Connection)), Range: rng}, true
		case keyReadTimeout:
			return Hover{Markdown: fmt.Sprintf("**%s** (TIMEOUTS)\n\n%s", key, timeoutDoc(key, t.Read)), Range: rng}, true
		}
	case "path":
		switch key {
		case keyPathParams:
			return Hover{Markdown: "**pathParams** (PATH): List<String>\n\nPath segments appended to the service address in order, joined with `/`.", Range: rng}, true
		case keyQueryParams:
			return Hover{Markdown: "**queryParams** (PATH): Map<String, String>\n\nQuery parameters, added as `?key=value` pairs; values are always strings.", Range: rng}, true
		}
	}
	return Hover{}, false
}

// serviceHover describes serviceId id; never a credential.
func serviceHover(reg *config.Registry, id string, rng Range) (Hover, bool) {
	if reg == nil {
		return Hover{}, false
	}
	if svc, ok := reg.Service(id); ok {
		return Hover{Markdown: fmt.Sprintf("**serviceId** `%s`\n\n%s", id, serviceDoc(reg, svc)), Range: rng}, true
	}
	if d, ok := reg.Unusable(id); ok {
		return Hover{Markdown: fmt.Sprintf("**serviceId** `%s` is configured but unusable:\n\n%s", id, configProblem(d)), Range: rng}, true
	}
	msg := fmt.Sprintf("**serviceId** `%s` is not configured for %s scripts.", id, reg.Kind)
	if near := reg.Nearest(id, 3); len(near) > 0 {
		msg += " Did you mean " + quoteList(near) + "?"
	}
	return Hover{Markdown: msg, Range: rng}, true
}

// configProblem formats a configuration diagnostic: file:line:col: message.
func configProblem(d config.Diagnostic) string {
	if d.File == "" {
		return d.Message
	}
	return d.Position.String() + ": " + d.Message
}

func quoteList(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = "`" + id + "`"
	}
	return strings.Join(q, ", ")
}
