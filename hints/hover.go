package hints

import (
	"fmt"
	"strings"

	"github.com/restls/restls/config"
)

// Hover works from the tolerant scanner, like completion, so it keeps
// working while the script is half-typed (see docs/decisions.md).
func hoverAt(doc *Document, offset int, reg *config.Registry, disp Display) (out Hover, ok bool) {
	defer recovered()
	if doc == nil {
		return Hover{}, false
	}
	text := doc.text
	offset = clampOffset(text, offset)
	h, _ := withScan(text, offset, func(s *scanResult) (*Hover, bool) {
		if s.where == inCode && offset < len(text) && (text[offset] == '"' || text[offset] == '\'') {
			// On the opening quote: hover the string.
			s = scan(text, offset+1, s.offset-s.from+1)
		}
		if s.where == inString {
			return stringHover(s, reg, disp)
		}
		return wordHover(s, reg, disp)
	})
	if h == nil {
		// A name whose value holds (part of) an answer, however it got
		// there (flow.go).
		h = flowHover(doc, offset, disp)
	}
	if h == nil && offset <= FirstLine(text).End && !inCall(doc, offset) {
		// The script's first line, outside a call: its static worst-case
		// time.
		if w, ok := WorstCaseOf(doc, reg, disp); ok {
			h = &Hover{Markdown: w.Markdown(text), Range: FirstLine(text)}
		}
	}
	if h == nil {
		return Hover{}, false
	}
	return *h, true
}

// stringHover hovers a serviceId or a quoted object key.
func stringHover(s *scanResult, reg *config.Registry, disp Display) (*Hover, bool) {
	f := s.top()
	if f == nil {
		return nil, false
	}
	start := s.strStart + 1
	rng := Range{start, stringEnd(s.text, s.strStart, s.offset)}
	value := s.text[rng.Start:rng.End]
	switch {
	case f.open == '(' && f.call >= 0 && f.arg == argServiceID:
		return serviceHover(reg, value, rng, disp), true
	case f.open == '{' && !f.afterColon:
		return keyHover(s, f, value, rng, reg), s.settled()
	}
	return nil, s.settled()
}

// wordHover hovers an identifier: a call name or an object key. s is a
// scan up to the cursor inside the word; the scan up to the word's start
// is what matters, so the word is rescanned from there.
func wordHover(s *scanResult, reg *config.Registry, disp Display) (*Hover, bool) {
	if s.where != inCode {
		return nil, true
	}
	text := s.text
	ws, we := identAround(text, s.offset)
	if ws == we || !isIdentStart(text[ws]) {
		return nil, true
	}
	// Drop the word's own token: rescan to its start over the same window.
	s = scan(text, ws, ws-s.from)
	if s.where != inCode {
		return nil, true
	}
	word := text[ws:we]
	rng := Range{ws, we}
	if c := callIndex(word); c >= 0 && s.isPunct(0, '.') && s.isIdent(1, "v1") && s.isPunct(2, '.') &&
		s.isIdent(3, "rest") && s.isPunct(4, '.') && s.isIdent(5, "api") {
		md := callMarkdown(&calls[c])
		if op, idx := callOperation(text, c, we, disp); op != nil {
			md = operationMarkdown(op, idx, disp) + "\n\n---\n\n" + md
		}
		return &Hover{Markdown: md, Range: rng}, true
	}
	if word == "v1" && s.isPunct(0, '.') && s.isIdent(1, "rest") && s.isPunct(2, '.') && s.isIdent(3, "api") {
		return &Hover{Markdown: v1Markdown, Range: rng}, true
	}
	if h := catchHover(s, word, rng, disp); h != nil {
		return h, true
	}
	if f := s.top(); f != nil && f.open == '{' && !f.afterColon {
		if h := keyHover(s, f, word, rng, reg); h != nil {
			return h, true
		}
	}
	return nil, s.settled()
}

const v1Markdown = "**api.rest.v1**: the script REST client (docs/api.md#the-calls). Calls `get`, `delete`, `post`, `put` and `patch` " +
	"reach the service configured for a serviceId, extended by PATH; answers must be `application/json`."

func callMarkdown(c *Call) string {
	var b strings.Builder
	fmt.Fprintf(&b, "```js\n%s\n```\n\n%s\n", c.Signature, c.Documentation)
	for _, p := range c.Params {
		fmt.Fprintf(&b, "\n- `%s`: %s", p.Label, p.Documentation)
	}
	return b.String()
}

// keyHover hovers a key of the PATH or TIMEOUTS object.
func keyHover(s *scanResult, f *frame, key string, rng Range, reg *config.Registry) *Hover {
	_, kind := s.objectParam(f)
	switch kind {
	case "timeouts":
		t := timeoutsOf(reg)
		switch key {
		case keyConnectionTimeout:
			return &Hover{Markdown: fmt.Sprintf("**%s** (TIMEOUTS)\n\n%s", key, timeoutDoc(key, t.Connection)), Range: rng}
		case keyReadTimeout:
			return &Hover{Markdown: fmt.Sprintf("**%s** (TIMEOUTS)\n\n%s", key, timeoutDoc(key, t.Read)), Range: rng}
		}
	case "path":
		switch key {
		case keyPathParams:
			return &Hover{Markdown: "**pathParams** (PATH): List<String>\n\nPath segments appended to the service address in order, joined with `/`.", Range: rng}
		case keyQueryParams:
			return &Hover{Markdown: "**queryParams** (PATH): Map<String, String>\n\nQuery parameters, added as `?key=value` pairs; values are always strings.", Range: rng}
		}
	}
	return nil
}

// serviceHover describes serviceId id; never a credential.
func serviceHover(reg *config.Registry, id string, rng Range, disp Display) *Hover {
	if reg == nil {
		return nil
	}
	if svc, ok := reg.Service(id); ok {
		return &Hover{Markdown: "**serviceId** " + code(id) + "\n\n" + serviceDoc(reg, svc, disp), Range: rng}
	}
	if d, ok := reg.Unusable(id); ok {
		return &Hover{Markdown: "**serviceId** " + code(id) + " is configured but unusable:\n\n" + plainText(configProblem(d, disp)), Range: rng}
	}
	// No nearest ids here: finding them compares with every configured id
	// (milliseconds with 10,000 services), too slow for a hover; the
	// unknown-service diagnostic on the same text names them.
	return &Hover{Markdown: "**serviceId** " + code(id) + " is not configured for " + string(reg.Kind) + " scripts.", Range: rng}
}

// configProblem formats a configuration diagnostic: file:line:col: message.
func configProblem(d config.Diagnostic, disp Display) string {
	if d.File == "" {
		return d.Message
	}
	return disp.position(d.Position) + ": " + d.Message
}

// inCall reports whether offset is inside an api.rest.v1 call of doc.
func inCall(doc *Document, offset int) bool {
	for _, c := range CallSites(doc) {
		if c.Call.Start <= offset && offset <= c.Call.End {
			return true
		}
	}
	return false
}
