package runtime

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dop251/goja"

	"github.com/restls/restls/jsdepth"
)

// errJSONFallback tells the caller to use the engine's JSON.parse: the
// text is not plain JSON this parser handles (invalid, a lone surrogate).
var errJSONFallback = errors.New("use JSON.parse")

// maxJSONDepth bounds the nesting of a response body. Deeper bodies are
// refused with errJSONTooDeep, never handed to the engine's JSON.parse,
// which recurses per level and overflows the goroutine stack (fatal) on a
// body of a few MiB of '['.
const maxJSONDepth = jsdepth.MaxValue

var errJSONTooDeep = fmt.Errorf("the body nests more than %d levels deep; restls does not read it", maxJSONDepth)

// parseJSON builds native script values from JSON text directly: the same
// values JSON.parse gives (key order, duplicate keys, "__proto__" as an own
// property, -0), without goja's token-by-token encoding/json decoder,
// which dominated the cost of a call.
func (r *runner) parseJSON(data []byte) (goja.Value, error) {
	p := &r.json
	p.data, p.pos = data, 0
	defer func() { p.data = nil }()
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, errJSONFallback
	}
	return v, nil
}

// Limits of the key and text caches: a service answers with the same few
// keys (and often values) call after call, so their strings are made once
// per run.
const (
	maxCachedKeyLen = 32
	maxCachedKeys   = 1024
)

// jsonParser keeps its scratch space between the calls of one run.
type jsonParser struct {
	vm   *goja.Runtime
	data []byte
	pos  int
	buf  []byte
	// items holds the elements of the arrays being parsed, innermost
	// last.
	items []any
	keys  map[string]string
	texts map[string]goja.Value
	// proto is Object.prototype, which bare objects are given once their
	// properties are in (adopt).
	proto *goja.Object
}

// bare returns a new object without a prototype, to be filled with put
// and then given Object.prototype with adopt. Properties put while it has
// no prototype are always its own data properties, as a literal's and
// JSON.parse's are: a setter or read-only property a script put on
// Object.prototype is never consulted (a plain Set on an ordinary object
// would call the setter and make no property).
func (p *jsonParser) bare() *goja.Object { return p.vm.CreateObject(nil) }

// put sets an own data property of a bare object; a repeated name keeps
// its place and takes the new value, as in JSON.parse.
func (p *jsonParser) put(obj *goja.Object, name string, v goja.Value) {
	if err := obj.Set(name, v); err != nil {
		panic(err) // a bare object is extensible and has no setter
	}
}

// adopt gives a bare object Object.prototype.
func (p *jsonParser) adopt(obj *goja.Object) {
	if err := obj.SetPrototype(p.proto); err != nil {
		panic(err) // an extensible object, and no cycle
	}
}

// short returns the text of the string at p.pos when it is short
// enough to cache and has no escape, without moving p.pos.
func (p *jsonParser) short() ([]byte, bool) {
	start := p.pos + 1
	for end := start; end < len(p.data) && end-start <= maxCachedKeyLen; end++ {
		switch c := p.data[end]; {
		case c == '"':
			return p.data[start:end], true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// key returns an object key, from the cache when it is short.
func (p *jsonParser) key() (string, error) {
	raw, ok := p.short()
	if ok {
		if k, ok := p.keys[string(raw)]; ok {
			p.pos += len(raw) + 2
			return k, nil
		}
	}
	k, err := p.str()
	if err == nil && ok && len(p.keys) < maxCachedKeys {
		if p.keys == nil {
			p.keys = make(map[string]string)
		}
		p.keys[k] = k
	}
	return k, err
}

// text returns a string value, from the cache when it is short: values
// such as a status or a type name repeat call after call as keys do, and
// a script string is an immutable primitive, so sharing one is not seen.
func (p *jsonParser) text() (goja.Value, error) {
	raw, ok := p.short()
	if ok {
		if v, ok := p.texts[string(raw)]; ok {
			p.pos += len(raw) + 2
			return v, nil
		}
	}
	s, err := p.str()
	if err != nil {
		return nil, err
	}
	v := p.vm.ToValue(s)
	if ok && len(p.texts) < maxCachedKeys {
		if p.texts == nil {
			p.texts = make(map[string]goja.Value)
		}
		p.texts[s] = v
	}
	return v, nil
}

func (p *jsonParser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (goja.Value, error) {
	if depth >= maxJSONDepth {
		return nil, errJSONTooDeep
	}
	if p.pos >= len(p.data) {
		return nil, errJSONFallback
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.text()
	case c == 't':
		return p.literal("true", p.vm.ToValue(true))
	case c == 'f':
		return p.literal("false", p.vm.ToValue(false))
	case c == 'n':
		return p.literal("null", goja.Null())
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	return nil, errJSONFallback
}

func (p *jsonParser) literal(word string, v goja.Value) (goja.Value, error) {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return nil, errJSONFallback
	}
	p.pos += len(word)
	return v, nil
}

func (p *jsonParser) number() (goja.Value, error) {
	start := p.pos
	isFloat := false
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.data[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(p.data) && p.data[p.pos] == '0':
		p.pos++
	case digits() == 0:
		return nil, errJSONFallback
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		isFloat = true
		if digits() == 0 {
			return nil, errJSONFallback
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		isFloat = true
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, errJSONFallback
		}
	}
	if !isFloat {
		if v, ok := p.smallInt(p.data[start:p.pos]); ok {
			return v, nil
		}
	}
	text := string(p.data[start:p.pos])
	if !isFloat {
		if i, err := strconv.ParseInt(text, 10, 64); err == nil && i <= 1<<53 && i >= -(1<<53) {
			if i == 0 && text[0] == '-' {
				return p.vm.ToValue(math.Copysign(0, -1)), nil
			}
			return p.vm.ToValue(i), nil
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, errJSONFallback
	}
	return p.vm.ToValue(f), nil
}

// smallInt converts an integer of up to 15 digits (always exact in a
// float64) without making a string of it; -0 is left to the caller.
func (p *jsonParser) smallInt(text []byte) (goja.Value, bool) {
	neg := text[0] == '-'
	if neg {
		text = text[1:]
	}
	if len(text) > 15 {
		return nil, false
	}
	var n int64
	for _, c := range text {
		n = n*10 + int64(c-'0')
	}
	if neg {
		if n == 0 {
			return nil, false
		}
		n = -n
	}
	return p.vm.ToValue(n), true
}

func (p *jsonParser) str() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	// Fast path: no escapes.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := string(p.data[start:p.pos])
			p.pos++
			return s, nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", errJSONFallback
		}
		p.pos++
	}
	p.buf = append(p.buf[:0], p.data[start:p.pos]...)
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(p.buf), nil
		case c < 0x20:
			return "", errJSONFallback
		case c != '\\':
			p.buf = append(p.buf, c)
			p.pos++
			continue
		}
		if p.pos+1 >= len(p.data) {
			return "", errJSONFallback
		}
		e := p.data[p.pos+1]
		p.pos += 2
		switch e {
		case '"', '\\', '/':
			p.buf = append(p.buf, e)
		case 'b':
			p.buf = append(p.buf, '\b')
		case 'f':
			p.buf = append(p.buf, '\f')
		case 'n':
			p.buf = append(p.buf, '\n')
		case 'r':
			p.buf = append(p.buf, '\r')
		case 't':
			p.buf = append(p.buf, '\t')
		case 'u':
			r1, ok := p.hex4()
			if !ok {
				return "", errJSONFallback
			}
			if utf16.IsSurrogate(r1) {
				// Only a proper pair can be held in a Go string; a lone
				// surrogate is left to the engine.
				if p.pos+1 >= len(p.data) || p.data[p.pos] != '\\' || p.data[p.pos+1] != 'u' {
					return "", errJSONFallback
				}
				p.pos += 2
				r2, ok := p.hex4()
				if !ok {
					return "", errJSONFallback
				}
				r1 = utf16.DecodeRune(r1, r2)
				if r1 == utf8.RuneError {
					return "", errJSONFallback
				}
			}
			p.buf = utf8.AppendRune(p.buf, r1)
		default:
			return "", errJSONFallback
		}
	}
	return "", errJSONFallback
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.pos+4 > len(p.data) {
		return 0, false
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	p.pos += 4
	return r, true
}

func (p *jsonParser) object(depth int) (goja.Value, error) {
	p.pos++
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return p.vm.NewObject(), nil
	}
	obj := p.bare()
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, errJSONFallback
		}
		k, err := p.key()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, errJSONFallback
		}
		p.pos++
		p.skipSpace()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		// Even "__proto__" is an own property, as JSON.parse makes it:
		// a bare object has no __proto__ accessor to call.
		p.put(obj, k, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, errJSONFallback
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			p.adopt(obj)
			return obj, nil
		default:
			return nil, errJSONFallback
		}
	}
}

func (p *jsonParser) array(depth int) (goja.Value, error) {
	p.pos++
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return p.vm.NewArray(), nil
	}
	mark := len(p.items)
	defer func() {
		clear(p.items[mark:])
		p.items = p.items[:mark]
	}()
	for {
		p.skipSpace()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.items = append(p.items, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, errJSONFallback
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			// NewArray copies the elements, so items can be reused.
			return p.vm.NewArray(p.items[mark:]...), nil
		default:
			return nil, errJSONFallback
		}
	}
}
