package hints

import (
	"strings"

	"github.com/restls/restls/openapi"
)

// A small tolerant reader of the literal arguments of a call, from the
// text: completion and hover need the serviceId and the path segments of
// a call the cursor is in or after, and must not parse the whole script
// on every keystroke. Anything it does not understand is "computed".

// maxArgText bounds how far a call's arguments are read.
const maxArgText = 16 << 10

// elements splits the text of a bracketed list or object, starting just
// after its opening bracket, at its top-level commas, up to the matching
// closing bracket or the end of text. It returns the elements' ranges
// (trimmed of blanks) and where it stopped.
func elements(text string, start int) ([]Range, int) {
	end := min(len(text), start+maxArgText)
	var out []Range
	depth := 0
	elemStart := start
	flush := func(i int) {
		r := trim(text, Range{elemStart, i})
		if r.End > r.Start {
			out = append(out, r)
		}
	}
	for i := start; i < end; i++ {
		switch c := text[i]; c {
		case '"', '\'', '`':
			j, ok := skipQuoted(text, i, end)
			if !ok {
				flush(end)
				return out, end
			}
			i = j - 1
		case '/':
			if i+1 < end && text[i+1] == '/' {
				for i < end && text[i] != '\n' {
					i++
				}
			} else if i+1 < end && text[i+1] == '*' {
				k := strings.Index(text[i+2:end], "*/")
				if k < 0 {
					return out, end
				}
				i += k + 3
			}
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				flush(i)
				return out, i
			}
			depth--
		case ',':
			if depth == 0 {
				flush(i)
				elemStart = i + 1
			}
		}
	}
	flush(end)
	return out, end
}

// skipQuoted returns the offset after the string or template literal
// starting at i; ok false when it is not closed before end.
func skipQuoted(text string, i, end int) (int, bool) {
	q := text[i]
	for j := i + 1; j < end; j++ {
		switch text[j] {
		case '\\':
			j++
		case q:
			return j + 1, true
		case '\n':
			if q != '`' {
				return j, false
			}
		}
	}
	return end, false
}

func trim(text string, r Range) Range {
	for r.Start < r.End && isBlank(text[r.Start]) {
		r.Start++
	}
	for r.End > r.Start && isBlank(text[r.End-1]) {
		r.End--
	}
	// Comments around an element.
	for r.Start < r.End && strings.HasPrefix(text[r.Start:r.End], "/*") {
		k := strings.Index(text[r.Start:r.End], "*/")
		if k < 0 {
			break
		}
		r.Start += k + 2
		for r.Start < r.End && isBlank(text[r.Start]) {
			r.Start++
		}
	}
	for r.End-r.Start >= 4 && strings.HasSuffix(text[r.Start:r.End], "*/") {
		k := strings.LastIndex(text[r.Start:r.End-2], "/*")
		if k <= 0 {
			break
		}
		r.End = r.Start + k
		for r.End > r.Start && isBlank(text[r.End-1]) {
			r.End--
		}
	}
	return r
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// stringValue returns the value of a string literal (or a template
// without substitutions) spanning all of r.
func stringValue(text string, r Range) (string, bool) {
	if r.End-r.Start < 2 {
		return "", false
	}
	q := text[r.Start]
	if q != '"' && q != '\'' && q != '`' || text[r.End-1] != q {
		return "", false
	}
	if end, ok := skipQuoted(text, r.Start, r.End); !ok || end != r.End {
		return "", false
	}
	body := text[r.Start+1 : r.End-1]
	if q == '`' && strings.Contains(body, "${") {
		return "", false
	}
	if !strings.Contains(body, "\\") {
		return body, true
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		if body[i] == '\\' && i+1 < len(body) {
			i++
			switch body[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(body[i])
			}
			continue
		}
		b.WriteByte(body[i])
	}
	return b.String(), true
}

// segsOf reads path segments from the element ranges of a pathParams
// array.
func segsOf(text string, elems []Range) []openapi.Seg {
	segs := make([]openapi.Seg, len(elems))
	for i, r := range elems {
		if v, ok := stringValue(text, r); ok {
			segs[i] = openapi.Seg{Text: v}
		} else {
			segs[i] = openapi.Seg{Computed: true}
		}
	}
	return segs
}

// member is one key: value of an object literal's text.
type member struct {
	key   string
	kr    Range // the key
	value Range
}

// membersOf reads the keys of an object literal's elements; spreads and
// computed keys are left out.
func membersOf(text string, elems []Range) []member {
	var out []member
	for _, r := range elems {
		colon := -1
		depth := 0
		for i := r.Start; i < r.End && colon < 0; i++ {
			switch c := text[i]; c {
			case '"', '\'', '`':
				j, _ := skipQuoted(text, i, r.End)
				i = j - 1
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
			case ':':
				if depth == 0 {
					colon = i
				}
			}
		}
		kr := r
		var vr Range
		if colon >= 0 {
			kr = trim(text, Range{r.Start, colon})
			vr = trim(text, Range{colon + 1, r.End})
		}
		key := text[kr.Start:kr.End]
		if v, ok := stringValue(text, kr); ok {
			key = v
		} else if !isIdentifier(key) {
			continue
		}
		out = append(out, member{key: key, kr: kr, value: vr})
	}
	return out
}

func isIdentifier(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentPart(s[i]) {
			return false
		}
	}
	return true
}

// callText is what the text says of one call's literal arguments.
type callText struct {
	call      int // index into calls
	open      int // offset of '('
	serviceID string
	segs      []openapi.Seg
	query     []member
	hasPath   bool // a literal PATH object
}

// readCall reads the call whose '(' is at open.
func readCall(text string, call, open int) callText {
	ct := callText{call: call, open: open}
	if open < 0 || open >= len(text) || text[open] != '(' {
		return ct
	}
	args, _ := elements(text, open+1)
	if len(args) > argServiceID {
		ct.serviceID, _ = stringValue(text, args[argServiceID])
	}
	if len(args) > argPath {
		r := args[argPath]
		if r.End > r.Start && text[r.Start] == '{' {
			ct.hasPath = true
			elems, _ := elements(text, r.Start+1)
			for _, m := range membersOf(text, elems) {
				switch {
				case m.key == keyPathParams && m.value.End > m.value.Start && text[m.value.Start] == '[':
					pe, _ := elements(text, m.value.Start+1)
					ct.segs = segsOf(text, pe)
				case m.key == keyQueryParams && m.value.End > m.value.Start && text[m.value.Start] == '{':
					qe, _ := elements(text, m.value.Start+1)
					ct.query = membersOf(text, qe)
				}
			}
		}
	}
	return ct
}
