package curlin

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"unicode"

	"github.com/go-json-experiment/json/jsontext"
)

// prettyAbove is the length of a payload written on one line above which
// it is written one member a line.
const prettyAbove = 60

// Text is the call as one JavaScript statement, as docs/api.md writes
// calls: api.rest.v1.get("crm", {pathParams: ["42"]}, {});
func (c *Call) Text() string { return c.text("") }

// Snippet is the call for insertion on a line indented with indent: each
// note as a comment line, then the call; lines after the first start
// with indent.
func (c *Call) Snippet(indent string) string {
	var b strings.Builder
	for _, n := range c.Notes {
		b.WriteString("// restls: ")
		b.WriteString(commentSafe(n))
		b.WriteString("\n")
		b.WriteString(indent)
	}
	b.WriteString(c.text(indent))
	return b.String()
}

func (c *Call) text(indent string) string {
	var b strings.Builder
	b.WriteString("api.rest.v1.")
	b.WriteString(c.Function)
	b.WriteByte('(')
	b.WriteString(jsString(c.ServiceID))
	b.WriteString(", {")
	if len(c.PathParams) > 0 {
		b.WriteString("pathParams: [")
		for i, p := range c.PathParams {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(jsString(p))
		}
		b.WriteByte(']')
	}
	if len(c.Query) > 0 {
		if len(c.PathParams) > 0 {
			b.WriteString(", ")
		}
		b.WriteString("queryParams: ")
		writeObject(&b, c.Query)
	}
	b.WriteString("}, ")
	writeObject(&b, c.Header)
	if c.Payload != nil {
		b.WriteString(", ")
		v, err := "", error(nil)
		if len(c.Payload) <= 4*prettyAbove {
			v, err = jsValue(c.Payload, "", false)
		}
		if err == nil && (v == "" || len(v) > prettyAbove) {
			v, err = jsValue(c.Payload, indent, true)
		}
		if err != nil {
			v = string(c.Payload) // JSON is JavaScript too
		}
		b.WriteString(v)
	}
	b.WriteString(");")
	return b.String()
}

func writeObject(b *strings.Builder, ps []Param) {
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(jsKey(p.Name))
		b.WriteString(": ")
		b.WriteString(jsString(p.Value))
	}
	b.WriteByte('}')
}

// jsString is s as a JavaScript string literal: JSON's, which escapes
// control characters and U+2028/U+2029 too.
func jsString(s string) string {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		plain = s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' && s[i] != '\\'
	}
	if plain {
		return `"` + s + `"`
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// jsKey is a property name: bare when it is an identifier, else quoted.
func jsKey(s string) string {
	if s == "" {
		return `""`
	}
	for i, r := range s {
		if !(r == '_' || r == '$' || r < unicode.MaxASCII && unicode.IsLetter(r) || i > 0 && r >= '0' && r <= '9') {
			return jsString(s)
		}
	}
	return s
}

// jsValue writes a JSON value as a JavaScript literal, keys bare where
// they can be, in their order; pretty puts one member a line, indented
// from indent by two spaces a level.
func jsValue(raw json.RawMessage, indent string, pretty bool) (string, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	type frame struct {
		obj, wantKey bool
		n            int
	}
	var stack []frame
	var b strings.Builder
	b.Grow(len(raw) + len(raw)/4)
	newline := func() {
		if pretty {
			b.WriteByte('\n')
			b.WriteString(indent)
			for range stack {
				b.WriteString("  ")
			}
		}
	}
	sep := func(n int) {
		if n > 0 {
			b.WriteByte(',')
			if !pretty {
				b.WriteByte(' ')
			}
		}
		newline()
	}
	for {
		tok, err := dec.ReadToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		kind := tok.Kind()
		if kind == '}' || kind == ']' {
			n := stack[len(stack)-1].n
			stack = stack[:len(stack)-1]
			if n > 0 {
				newline()
			}
			b.WriteByte(byte(kind))
			continue
		}
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			switch {
			case top.obj && top.wantKey:
				sep(top.n)
				top.n++
				top.wantKey = false
				b.WriteString(jsKey(tok.String()))
				b.WriteString(": ")
				continue
			case top.obj:
				top.wantKey = true
			default:
				sep(top.n)
				top.n++
			}
		}
		switch kind {
		case '{', '[':
			b.WriteByte(byte(kind))
			stack = append(stack, frame{obj: kind == '{', wantKey: kind == '{'})
		case '"':
			b.WriteString(jsString(tok.String()))
		default: // numbers as written, true, false, null
			b.WriteString(tok.String())
		}
	}
	return b.String(), nil
}

// commentSafe keeps a note on its comment line.
func commentSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}
