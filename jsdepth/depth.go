package jsdepth

// Max is the nesting budget of a script: brackets ( [ { and template
// substitutions ${ may nest this deep, no deeper. Real scripts stay below
// 30; goja's parser and compiler recurse once per level (some 3 KiB of
// goroutine stack each), so 1,000 levels cost a few MiB and keep far from
// Go's fatal stack limit. See docs/decisions.md.
const Max = 1000

// MaxValue is how deeply a script value (a result, a console.log argument,
// a PAYLOAD) may nest when the runtime converts it to JSON.
const MaxValue = 1000

// MaxCost is the parse budget of a script: the steps goja's parser spends
// beyond one per token. Its parser recomputes where an arrow function
// without braces ends (x => ...) by walking down its body, once per such
// arrow, and checks every label against the labels around it; both are
// linear per arrow or label, so nested ones cost the square of their
// number (50,000 "()=>" took 12.8 s to check). Check counts those steps
// as it goes and refuses a script past this many: about 35 ms of parsing
// on a busy 2-core VM, some 100 times what any real script we measured
// needs (see docs/decisions.md).
const MaxCost = 1 << 22

// Reason says why Check stopped.
type Reason uint8

const (
	// Fits: the script nests no deeper than the limit.
	Fits Reason = iota
	// TooDeep: a bracket opened level limit+1.
	TooDeep
	// Ambiguous: a '/' could be read as a division or as a regular
	// expression literal, and the two readings disagree about the strings,
	// templates or comments that follow, so the depth cannot be judged
	// without parsing. Counted as too deep: valid scripts do not write
	// this (see docs/decisions.md).
	Ambiguous
	// TooCostly: arrow functions without braces and labels nest so that
	// goja's parser would spend more than MaxCost steps on them.
	TooCostly
)

// Result is what Check found.
type Result struct {
	Reason Reason
	// Offset is the byte offset of the bracket, "=>" or label that opened
	// level limit+1 (TooDeep), of the ambiguous '/' (Ambiguous), or of the
	// token where the parse budget ran out (TooCostly); -1 when Fits.
	Offset int
	// Depth is the deepest nesting seen: the whole script's when it fits,
	// limit+1 when it is too deep.
	Depth int
}

// OK reports whether the script fits its budget.
func (r Result) OK() bool { return r.Reason == Fits }

// Check measures src's nesting in one pass and stops at the first bracket
// beyond limit. It never fails and never allocates more than O(limit).
//
// Nesting the parser recurses through without brackets counts as well: an
// arrow function whose body is an expression (x => x => ...) opens a level
// that lasts, as far as the scan can tell, until a ',' or ';' in the same
// bracket, that bracket's end, or a line that starts a new statement. Each
// token inside such levels costs one parse step per level, and each label
// (a: b: ...) one per label still open around it, as goja's parser spends
// them (see MaxCost); past MaxCost the result is TooCostly.
//
// It reads JavaScript tokens as the parser does: strings, template literals
// (their ${ } substitutions count as nesting), comments and regular
// expression literals are skipped, so brackets inside them do not count.
// Whether a '/' starts a regular expression is decided, as the grammar
// does, by the token before it; where that token leaves it open (after '}',
// '++', '--', or yield, await, of, let), both readings are tried over the
// candidate literal, which cannot span lines: when they agree about every
// later token, its brackets are counted as code (an over-count of at most
// the literal's own brackets); when they disagree, the result is
// Ambiguous. A misjudged '/' therefore never hides brackets.
func Check(src string, limit int) Result {
	s := scanner{src: src, limit: limit, noRegexBefore: -1}
	return s.run()
}

// frame kinds.
const (
	kParen   byte = '('
	kKeyword byte = 'k' // '(' after if, while, for, with: a regex may follow its ')'
	kBracket byte = '['
	kBrace   byte = '{'
	kSubst   byte = '$' // ${ in a template literal
)

// prev token classes: what came before, for '/'.
const (
	pOperator  uint8 = iota // punctuation or start: '/' starts a regex
	pOperand                // identifier, number, string, ')' ']' ...: '/' divides
	pAmbiguous              // '}', '++', '--', yield, await, of, let
)

type scanner struct {
	src   string
	limit int
	stack []byte
	// implicit[i] counts the arrow bodies without braces open in frame i
	// (0: outside every bracket) since its last ',' or ';'; implicitAll
	// is their sum over the open frames. labels and labelsAll count the
	// same way what may be labels.
	implicit    []int
	implicitAll int
	labels      []int
	labelsAll   int
	// cost is the parse steps counted so far (MaxCost).
	cost int
	// newline: a line ended since the last token.
	newline bool
	// extra counts brackets met in candidate regular expressions read
	// both ways: they stay counted (never closed) so that a misjudged
	// '/' can only over-count.
	extra int
	max   int
	prev  uint8
	// dotBefore: the last token was '.' or '?.', so an identifier is a
	// property name, never a keyword.
	dotBefore bool
	// lastWord is the last identifier when prev came from one.
	lastWord string
	// keywordParen: the last token was ')' closing if/while/for/with.
	keywordParen bool
	// noRegexBefore: a candidate regex failed to close before this
	// offset (its line's end); every '/' before it is a division. This
	// keeps the pass linear.
	noRegexBefore int
}

func (s *scanner) depth() int { return len(s.stack) + s.extra + s.implicitAll }

// open pushes a frame; false when it goes beyond the limit.
func (s *scanner) open(k byte) bool {
	s.stack = append(s.stack, k)
	s.implicit = append(s.implicit, 0)
	s.labels = append(s.labels, 0)
	d := s.depth()
	if d > s.max {
		s.max = d
	}
	return d <= s.limit
}

func (s *scanner) top() byte {
	if len(s.stack) == 0 {
		return 0
	}
	return s.stack[len(s.stack)-1]
}

func (s *scanner) pop() byte {
	k := s.top()
	if k != 0 {
		s.endImplicit()
		s.stack = s.stack[:len(s.stack)-1]
		s.implicit = s.implicit[:len(s.implicit)-1]
		s.labels = s.labels[:len(s.labels)-1]
	}
	return k
}

// endImplicit closes the levels opened without a bracket in the current
// frame: its expression or statement ended.
func (s *scanner) endImplicit() {
	top := len(s.implicit) - 1
	s.implicitAll -= s.implicit[top]
	s.implicit[top] = 0
	s.labelsAll -= s.labels[top]
	s.labels[top] = 0
}

// openImplicit opens a level without a bracket at offset at; false when it
// goes beyond the limit.
func (s *scanner) openImplicit() bool {
	s.implicit[len(s.implicit)-1]++
	s.implicitAll++
	d := s.depth()
	if d > s.max {
		s.max = d
	}
	return d <= s.limit
}

// labelCost is what one label costs the parser per label before it in the
// same bracket: a comparison, and for a repeated name an error message
// with its position (some 400 ns and 200 bytes), which dominates. Labels
// in enclosing brackets cost one step each: nested object literals
// ({a: {a: ...) look the same, and the nesting budget bounds them.
const labelCost = 64

// charge adds n parse steps; false past MaxCost.
func (s *scanner) charge(n int) bool {
	s.cost += n
	return s.cost <= MaxCost
}

// blockFollows reports whether the next token after i is '{' (an arrow
// function's block body), skipping spaces and comments.
func blockFollows(src string, i int) bool {
	for i < len(src) {
		switch c := src[i]; {
		case c == ' ' || c == '\t' || isLineEnd(c):
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			i = skipLine(src, i)
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			i = skipBlockComment(src, i)
		default:
			return c == '{'
		}
	}
	return false
}

func (s *scanner) tooDeep(at int) Result {
	return Result{Reason: TooDeep, Offset: at, Depth: s.limit + 1}
}

// Byte classes, looked up instead of compared: the pass reads every byte
// of every script restls checks.
const (
	cIdentStart = 1 << iota // _ $ \ letters, and every byte of a non-ASCII character
	cDigit
	cSpace // ' ' '\t' '\r' '\n'
)

var classes = func() (t [256]uint8) {
	for c := range 256 {
		b := byte(c)
		if b == '_' || b == '$' || b == '\\' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || b >= 0x80 {
			t[c] |= cIdentStart
		}
		if '0' <= b && b <= '9' {
			t[c] |= cDigit
		}
		if b == ' ' || b == '\t' || isLineEnd(b) {
			t[c] |= cSpace
		}
	}
	return t
}()

func isIdentStart(c byte) bool { return classes[c]&cIdentStart != 0 }

func isIdentPart(c byte) bool { return classes[c]&(cIdentStart|cDigit) != 0 }

func isLineEnd(c byte) bool { return c == '\n' || c == '\r' }

// regexAfter reports the reserved words after which '/' starts a regular
// expression. Switches, not maps: a map lookup per identifier was a third
// of the pass (docs/decisions.md, "restls check against oxlint").
func regexAfter(w string) bool {
	switch w {
	case "return", "typeof", "case", "do", "else", "in", "new", "delete", "void", "throw", "instanceof":
		return true
	}
	return false
}

// ambiguousAfter reports the words that are keywords in some contexts
// (generators, async functions, for-of heads) and plain identifiers in
// others.
func ambiguousAfter(w string) bool {
	switch w {
	case "yield", "await", "of", "let":
		return true
	}
	return false
}

// parenKeywords reports the words after which a '(' closes with a ')'
// that a statement (possibly starting with a regex) follows.
func parenKeywords(w string) bool {
	switch w {
	case "if", "while", "for", "with":
		return true
	}
	return false
}

func (s *scanner) run() Result {
	src := s.src
	s.implicit = append(s.implicit, 0)
	s.labels = append(s.labels, 0)
	i := 0
	for i < len(src) {
		c := src[i]
		if classes[c]&cSpace != 0 {
			s.newline = s.newline || isLineEnd(c)
			i++
			continue
		}
		// Every token inside levels opened without a bracket lengthens
		// the walk the parser makes for each of them. (implicitAll is
		// their sum: while it is 0, so is every frame's count.)
		if s.implicitAll > 0 && s.implicit[len(s.implicit)-1] > 0 && !s.charge(s.implicit[len(s.implicit)-1]) {
			return Result{Reason: TooCostly, Offset: i, Depth: s.max}
		}
		newline := s.newline
		s.newline = false
		switch {
		case isIdentStart(c):
			// First: most tokens are names.
			start := i
			for i < len(src) && isIdentPart(src[i]) {
				if src[i] == '\\' {
					i++ // \uXXXX escapes in identifiers
				}
				i++
			}
			i = min(i, len(src))
			word := src[start:i]
			if newline && s.prev == pOperand && word != "in" && word != "instanceof" {
				// Two operands with a line between them: the line starts
				// a new statement (automatic semicolon insertion).
				s.endImplicit()
			}
			dot := s.dotBefore
			switch {
			case !dot && regexAfter(word):
				s.operator()
			case !dot && ambiguousAfter(word):
				s.set(pAmbiguous)
			default:
				s.operand()
			}
			if !dot {
				s.lastWord = word // x.if( is a call, not an if
			}
		case c == '"' || c == '\'':
			i = skipString(src, i)
			s.operand()
		case c == '`':
			var ok bool
			if i, ok = s.template(i + 1); !ok {
				return s.tooDeep(i)
			}
		case c == '/':
			if i+1 < len(src) && src[i+1] == '/' {
				i = skipLine(src, i)
				continue
			}
			if i+1 < len(src) && src[i+1] == '*' {
				i = skipBlockComment(src, i)
				continue
			}
			next, res, done := s.slash(i)
			if done {
				return res
			}
			i = next
		case c == '(' || c == '[' || c == '{':
			k := c
			if c == '(' && s.prev == pOperand && !s.dotBefore && parenKeywords(s.lastWord) {
				k = kKeyword
			}
			if !s.open(k) {
				return s.tooDeep(i)
			}
			i++
			s.operator()
		case c == ')' || c == ']':
			kw := false
			if s.top() != kSubst {
				kw = s.pop() == kKeyword
			}
			i++
			s.operand()
			s.keywordParen = kw
		case c == '}':
			i++
			if s.top() == kSubst {
				s.pop()
				var ok bool
				if i, ok = s.template(i); !ok {
					return s.tooDeep(i)
				}
				continue
			}
			s.pop()
			s.set(pAmbiguous)
		case c == '+' || c == '-':
			if i+1 < len(src) && src[i+1] == c {
				i += 2
				s.set(pAmbiguous)
				continue
			}
			i++
			s.operator()
		case c == '.' && !(i+1 < len(src) && '0' <= src[i+1] && src[i+1] <= '9'):
			i++
			s.operator()
			s.dotBefore = true
		case c == '?' && i+1 < len(src) && src[i+1] == '.' && !(i+2 < len(src) && '0' <= src[i+2] && src[i+2] <= '9'):
			i += 2
			s.operator()
			s.dotBefore = true
		case '0' <= c && c <= '9' || c == '.':
			i = skipNumber(src, i)
			s.operand()
		case c == '=' && i+1 < len(src) && src[i+1] == '>':
			if !blockFollows(src, i+2) && !s.openImplicit() {
				return s.tooDeep(i)
			}
			i += 2
			s.operator()
		case c == ',' || c == ';':
			s.endImplicit()
			i++
			s.operator()
		case c == ':' && s.prev == pOperand && s.lastWord != "":
			// A label, an object key, a case or a conditional's
			// alternative: they cannot be told apart here, so each is
			// charged as a label, which the parser compares with every
			// label around it; ',' or ';' ends the others.
			here := s.labels[len(s.labels)-1]
			if !s.charge(here*labelCost + s.labelsAll - here) {
				return Result{Reason: TooCostly, Offset: i, Depth: s.max}
			}
			s.labels[len(s.labels)-1]++
			s.labelsAll++
			i++
			s.operator()
		default:
			i++
			s.operator()
		}
	}
	return Result{Reason: Fits, Offset: -1, Depth: s.max}
}

func (s *scanner) set(p uint8) {
	s.prev, s.dotBefore, s.lastWord, s.keywordParen = p, false, "", false
}
func (s *scanner) operator() { s.set(pOperator) }
func (s *scanner) operand()  { s.set(pOperand) }

// slash handles a '/' at i that starts no comment.
func (s *scanner) slash(i int) (next int, res Result, done bool) {
	regex := s.prev == pOperator || s.prev == pOperand && s.keywordParen
	if i < s.noRegexBefore || !regex && s.prev != pAmbiguous {
		s.operator()
		return i + 1, Result{}, false
	}
	end, ok := regexEnd(s.src, i)
	if !ok {
		// No literal closes on this line: a division (the parser agrees,
		// or reports the unterminated literal).
		s.noRegexBefore = lineEnd(s.src, i)
		s.operator()
		return i + 1, Result{}, false
	}
	if regex {
		// Groups nest inside the literal; count them, never keep them.
		d := s.depth() + groupDepth(s.src[i+1:end])
		if d > s.limit {
			return 0, s.tooDeep(i), true
		}
		s.max = max(s.max, d)
		s.operand()
		return skipFlags(s.src, end+1), Result{}, false
	}
	// Ambiguous: the division reading lexes the same tokens as the regex
	// reading unless the body holds a quote, a backtick or a slash, or a
	// comment starts right after it.
	body := s.src[i+1 : end]
	for j := 0; j < len(body); j++ {
		switch body[j] {
		case '"', '\'', '`', '/':
			return 0, Result{Reason: Ambiguous, Offset: i, Depth: s.max}, true
		}
	}
	if end+1 < len(s.src) && (s.src[end+1] == '/' || s.src[end+1] == '*') {
		return 0, Result{Reason: Ambiguous, Offset: i, Depth: s.max}, true
	}
	// Both readings agree on every later token; count the body's brackets
	// as code would, and keep those it leaves open.
	run := 0
	for j := 0; j < len(body); j++ {
		switch body[j] {
		case '(', '[', '{':
			run++
			if d := s.depth() + run; d > s.limit {
				return 0, s.tooDeep(i + 1 + j), true
			} else if d > s.max {
				s.max = d
			}
		case ')', ']', '}':
			if run > 0 {
				run--
			}
		}
	}
	s.extra += run
	s.operand()
	return skipFlags(s.src, end+1), Result{}, false
}

// template skips template text from i (after a backtick or a
// substitution's closing brace) to the closing backtick, or opens a
// substitution, and sets what the next '/' means. It returns where code
// resumes; false when the substitution goes beyond the limit (the offset is
// then the '$').
func (s *scanner) template(i int) (int, bool) {
	src := s.src
	for i < len(src) {
		switch src[i] {
		case '\\':
			i += 2
		case '`':
			s.operand()
			return i + 1, true
		case '$':
			if i+1 < len(src) && src[i+1] == '{' {
				if !s.open(kSubst) {
					return i, false
				}
				s.operator()
				return i + 2, true
			}
			i++
		default:
			i++
		}
	}
	s.operand()
	return len(src), true
}

// skipString skips a string literal starting at its quote; an unclosed one
// ends at the line's end, as the parser reports it.
func skipString(src string, i int) int {
	q := src[i]
	i++
	for i < len(src) {
		switch c := src[i]; {
		case c == '\\':
			i++
			if i+1 < len(src) && src[i] == '\r' && src[i+1] == '\n' {
				i++
			}
			i++
		case c == q:
			return i + 1
		case isLineEnd(c):
			return i
		default:
			i++
		}
	}
	return len(src)
}

func skipLine(src string, i int) int {
	for i < len(src) && !isLineEnd(src[i]) {
		i++
	}
	return i
}

func lineEnd(src string, i int) int { return skipLine(src, i) }

func skipBlockComment(src string, i int) int {
	for j := i + 2; j+1 < len(src); j++ {
		if src[j] == '*' && src[j+1] == '/' {
			return j + 2
		}
	}
	return len(src)
}

func skipNumber(src string, i int) int {
	for i < len(src) {
		c := src[i]
		if isIdentPart(c) || c == '.' {
			i++
			continue
		}
		// An exponent's sign: 1e-5 (but 0x1e-5 is a subtraction).
		if (c == '+' || c == '-') && (src[i-1] == 'e' || src[i-1] == 'E') && !hasHexPrefix(src, i) {
			i++
			continue
		}
		return i
	}
	return i
}

// hasHexPrefix reports whether the number ending before i is a hex literal
// (0x1e+2 is 0x1e plus 2).
func hasHexPrefix(src string, i int) bool {
	j := i - 1
	for j > 0 && (isIdentPart(src[j-1]) || src[j-1] == '.') {
		j--
	}
	return j+1 < len(src) && src[j] == '0' && (src[j+1] == 'x' || src[j+1] == 'X')
}

// regexEnd finds the closing '/' of a regular expression literal starting
// at i, on the same line.
func regexEnd(src string, i int) (int, bool) {
	inClass := false
	for j := i + 1; j < len(src); j++ {
		switch c := src[j]; {
		case isLineEnd(c):
			return 0, false
		case c == '\\':
			j++
			if j < len(src) && isLineEnd(src[j]) {
				return 0, false
			}
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case c == '/' && !inClass:
			return j, true
		}
	}
	return 0, false
}

// groupDepth is the deepest group nesting in a regex body.
func groupDepth(body string) int {
	d, m, inClass := 0, 0, false
	for j := 0; j < len(body); j++ {
		switch body[j] {
		case '\\':
			j++
		case '[':
			inClass = true
		case ']':
			inClass = false
		case '(':
			if !inClass {
				d++
				m = max(m, d)
			}
		case ')':
			if !inClass && d > 0 {
				d--
			}
		}
	}
	return m
}

func skipFlags(src string, i int) int {
	for i < len(src) && isIdentPart(src[i]) {
		i++
	}
	return i
}
