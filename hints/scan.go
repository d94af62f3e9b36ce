package hints

import (
	"strings"
	"unicode/utf8"
)

// The tolerant scanner: it reads the text before the cursor as JavaScript
// tokens (strings, template literals, comments, regular expression literals,
// bracket nesting) without ever failing, and returns what completion,
// signature help and hover need: where the cursor is (code, string,
// comment ...), the open brackets with what opened them, and the last few
// tokens. It works on broken, half-typed code because it never parses.

// The scanner reads only the text before the cursor, and of that first a
// near window: a call and its arguments nearly always fit in it, so the
// hot path (serviceId completion) costs the same on a 10,000-line script as
// on a short one. When the near window gives no answer (the call opened
// further back, a catch block is long), the caller retries with the far
// window. Each scan starts at a line start; see docs/decisions.md for the
// trade-off.
const (
	nearWindow = 4 << 10
	farWindow  = 32 << 10
)

// where the cursor is.
type where uint8

const (
	inCode where = iota
	inString
	inTemplate
	inLineComment
	inBlockComment
	inRegex
)

type tokKind uint8

const (
	tkIdent tokKind = iota + 1
	tkNumber
	tkString
	tkTemplate
	tkRegex
	tkPunct
)

type token struct {
	kind       tokKind
	ch         byte // punctuation; '=' only for a plain assignment, 'o' for other operators
	start, end int
}

// ringSize is how many recent tokens the scanner keeps: enough for
// `x = api.rest.v1.get (`.
const ringSize = 16

// frame is an open bracket.
type frame struct {
	open byte // '(', '{', '[', or '$' for a template's ${
	pos  int  // offset of the bracket
	call int  // for '(': index into calls when it opens an api.rest.v1 call, else -1
	arg  int  // for '(': commas so far at this depth (the argument index)

	// For '{' and '[': the api call and argument this bracket is directly
	// the argument of (parentCall -1 when not), and the property key whose
	// value it is (PATH's queryParams).
	parentCall, parentArg int
	key                   string

	// Object literal state: after ':' at this depth, and the last key.
	afterColon bool
	lastKey    string

	isTry    bool   // the block of a try
	catchVar string // the block of catch (catchVar), when its try made a call
	hasCall  bool   // an api call was opened inside
}

type scanResult struct {
	text   string
	offset int // the (normalised) cursor
	from   int // where the scan started

	where    where
	strStart int  // offset of the opening quote when where == inString
	quote    byte // the quote

	stack []frame
	ring  [ringSize]token
	n     int // tokens seen (ring holds the last min(n, ringSize))

	// vars maps a variable to the call whose result it holds, as seen in
	// the scanned window.
	vars map[string]int

	lastTryHadCall bool
	lastTryEnd     int

	// lastCallEnd is the end of the last api call's closing parenthesis.
	lastCallEnd int

	// stray is the first closing bracket that closed nothing, or -1.
	stray int
}

// tok returns the i-th token back from the end (0 = last), ok false when
// there is none.
func (s *scanResult) tok(i int) (token, bool) {
	if i < 0 || i >= s.n || i >= ringSize {
		return token{}, false
	}
	return s.ring[(s.n-1-i)%ringSize], true
}

func (s *scanResult) push(t token) {
	s.ring[s.n%ringSize] = t
	s.n++
}

func (s *scanResult) top() *frame {
	if len(s.stack) == 0 {
		return nil
	}
	return &s.stack[len(s.stack)-1]
}

func (s *scanResult) tokText(t token) string { return s.text[t.start:t.end] }

// isIdentTok reports whether back-token i is the identifier name.
func (s *scanResult) isIdent(i int, name string) bool {
	t, ok := s.tok(i)
	return ok && t.kind == tkIdent && s.tokText(t) == name
}

func (s *scanResult) isPunct(i int, ch byte) bool {
	t, ok := s.tok(i)
	return ok && t.kind == tkPunct && t.ch == ch
}

// clampOffset returns offset within [0, len(text)], moved back to the start
// of a UTF-8 sequence when it points inside one.
func clampOffset(text string, offset int) int {
	if offset < 0 {
		return 0
	}
	if offset > len(text) {
		return len(text)
	}
	for offset > 0 && offset < len(text) && !utf8.RuneStart(text[offset]) {
		offset--
	}
	return offset
}

// windowStart returns where a scan of at most window bytes ending at
// offset starts: the first line start in the window.
func windowStart(text string, offset, window int) int {
	// A word that starts before its scan's window asks for a negative
	// one (wordHover); the scan then starts at offset.
	window = max(window, 0)
	if offset <= window {
		return 0
	}
	from := offset - window
	if text[from-1] == '\n' {
		return from
	}
	i := strings.IndexByte(text[from:offset], '\n')
	if i < 0 {
		return from
	}
	return from + i + 1
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || '0' <= c && c <= '9' }

// regexAfterKeyword lists the keywords after which '/' starts a regular
// expression rather than a division.
var regexAfterKeyword = map[string]bool{
	"return": true, "typeof": true, "case": true, "do": true, "else": true, "in": true,
	"of": true, "new": true, "delete": true, "void": true, "throw": true,
	"instanceof": true, "yield": true, "await": true,
}

// scan scans text from the window start up to offset.
func scan(text string, offset, window int) *scanResult {
	offset = clampOffset(text, offset)
	s := &scanResult{text: text, offset: offset, from: windowStart(text, offset, window), stray: -1}
	s.run(s.from, offset)
	return s
}

// withScan runs f on a near scan, and when f finds no answer and the near
// window did not reach the start of the text, on a far one.
func withScan[T any](text string, offset int, f func(*scanResult) (T, bool)) (T, bool) {
	s := scan(text, offset, nearWindow)
	v, ok := f(s)
	if ok || s.from == 0 {
		return v, ok
	}
	return f(scan(text, offset, farWindow))
}

func (s *scanResult) run(i, end int) {
	text := s.text
	for i < end {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case isIdentStart(c):
			j := i + 1
			for j < end && isIdentPart(text[j]) {
				j++
			}
			s.other(token{kind: tkIdent, start: i, end: j})
			i = j
		case '0' <= c && c <= '9':
			j := i + 1
			for j < end && (isIdentPart(text[j]) || text[j] == '.') {
				j++
			}
			s.other(token{kind: tkNumber, start: i, end: j})
			i = j
		case c == '"' || c == '\'':
			j, closed := scanString(text, i, end)
			if !closed && j >= end {
				s.where, s.strStart, s.quote = inString, i, c
				return
			}
			s.other(token{kind: tkString, start: i, end: j})
			i = j
		case c == '`':
			j, st := s.templateText(i+1, end)
			if st == inTemplate {
				s.where = inTemplate
				return
			}
			i = j
		case c == '/' && i+1 < end && text[i+1] == '/':
			j := strings.IndexByte(text[i:end], '\n')
			if j < 0 {
				s.where = inLineComment
				return
			}
			i += j + 1
		case c == '/' && i+1 < end && text[i+1] == '*':
			j := strings.Index(text[i+2:end], "*/")
			if j < 0 {
				s.where = inBlockComment
				return
			}
			i += 2 + j + 2
		case c == '/' && s.regexAllowed():
			j, closed := scanRegex(text, i, end)
			if !closed && j >= end {
				s.where = inRegex
				return
			}
			s.other(token{kind: tkRegex, start: i, end: j})
			i = j
		default:
			i = s.punct(i, end)
		}
	}
	// A '/' right before the cursor may open a comment the next keystroke
	// completes; it is code until then.
}

// scanString returns the end of the string literal opened at i (after the
// closing quote) and whether it was closed; an unclosed string ends at the
// line end (where JavaScript would report it) or at end.
func scanString(text string, i, end int) (int, bool) {
	q := text[i]
	j := i + 1
	for j < end {
		switch text[j] {
		case q:
			return j + 1, true
		case '\\':
			j += 2
			if j > end {
				return end, false
			}
			continue
		case '\n':
			return j, false
		}
		j++
	}
	return end, false
}

// scanRegex is scanString for a regular expression literal.
func scanRegex(text string, i, end int) (int, bool) {
	j := i + 1
	class := false
	for j < end {
		switch text[j] {
		case '\\':
			j += 2
			if j > end {
				return end, false
			}
			continue
		case '[':
			class = true
		case ']':
			class = false
		case '/':
			if !class {
				j++
				for j < end && isIdentPart(text[j]) {
					j++
				}
				return j, true
			}
		case '\n':
			return j, false
		}
		j++
	}
	return end, false
}

// templateText scans template text from i; at "${" it pushes a frame and
// returns to code; at the closing backquote the template ends.
func (s *scanResult) templateText(i, end int) (int, where) {
	text := s.text
	start := i - 1
	for i < end {
		switch text[i] {
		case '\\':
			i += 2
			continue
		case '`':
			s.other(token{kind: tkTemplate, start: start, end: i + 1})
			return i + 1, inCode
		case '$':
			if i+1 < end && text[i+1] == '{' {
				s.stack = append(s.stack, frame{open: '$', pos: i, call: -1, parentCall: -1})
				return i + 2, inCode
			}
		}
		i++
	}
	return end, inTemplate
}

func (s *scanResult) regexAllowed() bool {
	t, ok := s.tok(0)
	if !ok {
		return true
	}
	switch t.kind {
	case tkPunct:
		return t.ch != ')' && t.ch != ']'
	case tkIdent:
		return regexAfterKeyword[s.tokText(t)]
	}
	return false
}

// other records a token that is not a bracket, forgetting a variable
// reassigned to something other than a call.
func (s *scanResult) other(t token) {
	// `name = <t>`: name no longer holds a call result unless t starts
	// api.rest.v1.
	if len(s.vars) > 0 && s.isPunct(0, '=') {
		if nt, ok := s.tok(1); ok && nt.kind == tkIdent && !s.isPunct(2, '.') {
			if !(t.kind == tkIdent && s.text[t.start:t.end] == "api") {
				delete(s.vars, s.tokText(nt))
			}
		}
	}
	s.push(t)
}

// apiCallBefore reports which api.rest.v1 call the last tokens name
// (`api . rest . v1 . get`), or -1.
func (s *scanResult) apiCallBefore() int {
	t, ok := s.tok(0)
	if !ok || t.kind != tkIdent || !s.isPunct(1, '.') || !s.isIdent(2, "v1") ||
		!s.isPunct(3, '.') || !s.isIdent(4, "rest") || !s.isPunct(5, '.') || !s.isIdent(6, "api") ||
		s.isPunct(7, '.') {
		return -1
	}
	return callIndex(s.tokText(t))
}

func isOperator(c byte) bool { return strings.IndexByte("=!<>+-*/%&|^~?", c) >= 0 }

// punct handles one punctuation character at i and returns the next index.
func (s *scanResult) punct(i, end int) int {
	text := s.text
	c := text[i]
	switch c {
	case '(':
		f := frame{open: '(', pos: i, call: s.apiCallBefore(), parentCall: -1}
		if f.call >= 0 {
			for k := range s.stack {
				s.stack[k].hasCall = true
			}
			// `name = api.rest.v1.get(`
			if s.isPunct(7, '=') {
				if nt, ok := s.tok(8); ok && nt.kind == tkIdent && !s.isPunct(9, '.') {
					if s.vars == nil {
						s.vars = map[string]int{}
					}
					s.vars[s.tokText(nt)] = f.call
				}
			}
		}
		s.stack = append(s.stack, f)
	case '{', '[':
		f := frame{open: c, pos: i, call: -1, parentCall: -1}
		if p := s.top(); p != nil {
			if p.open == '(' && p.call >= 0 {
				f.parentCall, f.parentArg = p.call, p.arg
			} else if p.open == '{' && p.afterColon {
				f.key = p.lastKey
			}
		}
		if c == '{' {
			switch {
			case s.isIdent(0, "try"):
				f.isTry = true
			case s.isPunct(0, ')') && s.isPunct(2, '(') && s.isIdent(3, "catch"):
				// catch (e) right after a try block that made a call.
				v, ok := s.tok(1)
				t4, ok4 := s.tok(4)
				if ok && ok4 && v.kind == tkIdent && s.lastTryHadCall &&
					t4.kind == tkPunct && t4.ch == '}' && t4.end == s.lastTryEnd {
					f.catchVar = s.tokText(v)
				}
			}
		}
		s.stack = append(s.stack, f)
	case ')', ']', '}':
		if len(s.stack) == 0 && s.stray < 0 {
			s.stray = i
		}
		if len(s.stack) > 0 {
			f := s.stack[len(s.stack)-1]
			s.stack = s.stack[:len(s.stack)-1]
			if f.call >= 0 && c == ')' {
				s.lastCallEnd = i + 1
			}
			if f.isTry {
				s.lastTryHadCall, s.lastTryEnd = f.hasCall, i+1
			}
			if c == '}' && f.open == '$' {
				// Back into the template's text.
				j, st := s.templateText(i+1, end)
				if st == inTemplate {
					s.where = inTemplate
				}
				return j
			}
		}
	case ',':
		if f := s.top(); f != nil {
			f.arg++
			f.afterColon = false
		}
	case ':':
		if f := s.top(); f != nil && f.open == '{' && !f.afterColon {
			if t, ok := s.tok(0); ok {
				f.lastKey = keyText(s.text, t)
			}
			f.afterColon = true
		}
	case '=':
		j := i + 1
		for j < end && (text[j] == '=' || text[j] == '>') {
			j++
		}
		ch := byte('=')
		if j > i+1 {
			ch = 'o'
		} else if t, ok := s.tok(0); ok && t.kind == tkPunct && t.end == i && isOperator(t.ch) {
			ch = 'o'
		}
		s.other(token{kind: tkPunct, ch: ch, start: i, end: j})
		return j
	}
	s.other(token{kind: tkPunct, ch: c, start: i, end: i + 1})
	return i + 1
}

// keyText returns an object key's name: an identifier, or a string's
// content.
func keyText(text string, t token) string {
	switch t.kind {
	case tkIdent, tkNumber:
		return text[t.start:t.end]
	case tkString:
		if t.end-t.start >= 2 {
			return text[t.start+1 : t.end-1]
		}
	}
	return ""
}

// stringEnd returns the end of the content of the string whose opening
// quote is at start, looking past offset on the same line: the offset of
// the closing quote, or offset when the string is not closed on the line.
func stringEnd(text string, start, offset int) int {
	if start < 0 || start >= len(text) {
		return offset
	}
	q := text[start]
	for j := offset; j < len(text); j++ {
		switch text[j] {
		case q:
			return j
		case '\\':
			j++
		case '\n', '\r':
			return offset
		}
	}
	return offset
}

// identAround returns the identifier bytes around offset: [start, end).
func identAround(text string, offset int) (int, int) {
	start, end := offset, offset
	for start > 0 && isIdentPart(text[start-1]) {
		start--
	}
	for end < len(text) && isIdentPart(text[end]) {
		end++
	}
	return start, end
}

// strayCloser returns the offset of the first closing bracket in text that
// closes nothing (outside strings, comments and regular expressions), or
// -1.
func strayCloser(text string) int {
	return scan(text, len(text), len(text)).stray
}
