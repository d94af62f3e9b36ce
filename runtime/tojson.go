package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dop251/goja"

	"github.com/restls/restls/jsdepth"
)

// The converter from script values to JSON text. It gives what
// JSON.stringify(value) gives for the values scripts build (key order,
// toJSON, wrapper objects, undefined and functions left out, -0 as 0,
// NaN and Infinity as null, lone surrogates escaped, cycles a TypeError),
// but unlike goja's JSON.stringify it stops when the run's time is up, it
// refuses values nested deeper than jsdepth.MaxValue, and its cycle check
// costs the same at every depth (goja's is linear in the depth, which
// makes a deep value quadratic). See docs/runtime.md, "Limits".

// errValueTooDeep: the value nests deeper than jsdepth.MaxValue.
var errValueTooDeep = fmt.Errorf("the value nests more than %d levels deep", jsdepth.MaxValue)

// errStopped: the run's time limit passed, or the run was canceled.
var errStopped = errors.New("the run was stopped")

// typeError is a TypeError JSON.stringify throws; its text is the one
// goja gives.
type typeError string

func (e typeError) Error() string { return "TypeError: " + string(e) }

// checkEvery is how many values the converter writes between looks at the
// run's context.
const checkEvery = 256

type jsonWriter struct {
	r     *runner
	buf   bytes.Buffer
	open  map[*goja.Object]struct{} // objects being written: a cycle check
	depth int
	steps int
}

// marshal converts v as JSON.stringify(v) does. defined is false where
// JSON.stringify returns undefined (a function, a symbol, undefined). A
// JavaScript exception (a cycle, a throwing getter or toJSON) becomes an
// error whose text is the exception's, as tryJS gives it; errValueTooDeep
// and errStopped are returned as they are.
func (r *runner) marshal(v goja.Value) (text string, defined bool, err error) {
	w := &jsonWriter{r: r}
	var inner error
	if err = r.tryJS(func() { defined, inner = w.value(v, "") }); err == nil {
		err = inner
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		err = errors.New(ex.Value().String())
	}
	if err != nil {
		if errors.Is(err, errValueTooDeep) {
			return "", false, err
		}
		if r.ctx != nil && r.ctx.Err() != nil {
			// An interrupted toJSON or getter, or our own check.
			return "", false, errStopped
		}
		return "", false, err
	}
	return w.buf.String(), defined, nil
}

// value writes v, the property key of its holder; false when it is left
// out (nothing written).
func (w *jsonWriter) value(v goja.Value, key string) (bool, error) {
	if w.steps++; w.steps%checkEvery == 0 && w.r.ctx != nil && w.r.ctx.Err() != nil {
		return false, errStopped
	}
	if obj, ok := v.(*goja.Object); ok {
		if fn, ok := goja.AssertFunction(obj.Get("toJSON")); ok {
			out, err := fn(obj, w.r.vm.ToValue(key))
			if err != nil {
				return false, err
			}
			v = out
		}
	}
	if obj, ok := v.(*goja.Object); ok {
		// Wrapper objects stand for their primitive value.
		switch obj.ClassName() {
		case "Number":
			v = obj.ToNumber()
		case "String":
			v = obj.ToString()
		case "Boolean":
			if b, ok := obj.Export().(bool); ok {
				v = w.r.vm.ToValue(b)
			}
		case "BigInt":
			return false, typeError("Do not know how to serialize a BigInt")
		case "RawJSON":
			w.buf.WriteString(obj.Get("rawJSON").String())
			return true, nil
		}
	}
	switch {
	case v == nil || goja.IsUndefined(v):
		return false, nil
	case goja.IsNull(v):
		w.buf.WriteString("null")
		return true, nil
	}
	switch x := v.(type) {
	case goja.String:
		w.quote(x)
		return true, nil
	case *goja.Object:
		if _, isFn := goja.AssertFunction(x); isFn {
			return false, nil
		}
		return true, w.object(x)
	}
	switch x := v.Export().(type) {
	case bool:
		if x {
			w.buf.WriteString("true")
		} else {
			w.buf.WriteString("false")
		}
	case int64:
		w.buf.WriteString(strconv.FormatInt(x, 10))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			w.buf.WriteString("null")
		} else {
			w.buf.WriteString(v.String())
		}
	case *big.Int:
		return false, typeError("Do not know how to serialize a BigInt")
	default:
		// A symbol.
		return false, nil
	}
	return true, nil
}

// object writes an array or an object.
func (w *jsonWriter) object(o *goja.Object) error {
	if _, seen := w.open[o]; seen {
		return typeError("Converting circular structure to JSON")
	}
	if w.depth >= jsdepth.MaxValue {
		return errValueTooDeep
	}
	if w.open == nil {
		w.open = map[*goja.Object]struct{}{}
	}
	w.open[o] = struct{}{}
	w.depth++
	defer func() {
		delete(w.open, o)
		w.depth--
	}()
	if w.isArray(o) {
		n := o.Get("length").ToInteger()
		w.buf.WriteByte('[')
		for i := int64(0); i < n; i++ {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			k := strconv.FormatInt(i, 10)
			ok, err := w.value(o.Get(k), k)
			if err != nil {
				return err
			}
			if !ok {
				w.buf.WriteString("null")
			}
		}
		w.buf.WriteByte(']')
		return nil
	}
	w.buf.WriteByte('{')
	first := true
	for _, k := range o.Keys() {
		mark := w.buf.Len()
		if !first {
			w.buf.WriteByte(',')
		}
		w.quoteString(k)
		w.buf.WriteByte(':')
		ok, err := w.value(o.Get(k), k)
		if err != nil {
			return err
		}
		if !ok {
			w.buf.Truncate(mark)
			continue
		}
		first = false
	}
	w.buf.WriteByte('}')
	return nil
}

// isArray is Array.isArray: a proxy of an array is written as an array.
func (w *jsonWriter) isArray(o *goja.Object) bool {
	switch o.ClassName() {
	case "Array":
		return true
	case "Object":
		if w.r.arrayIsArray == nil {
			return false
		}
		v, err := w.r.arrayIsArray(goja.Undefined(), o)
		return err == nil && v.ToBoolean()
	}
	return false
}

const hexDigits = "0123456789abcdef"

// quote writes a script string as JSON.stringify does: a lone surrogate
// is escaped, never replaced.
func (w *jsonWriter) quote(s goja.String) {
	n := s.Length()
	if str := s.String(); len(str) == n {
		w.quoteString(str) // ASCII: one byte per UTF-16 unit
		return
	}
	w.buf.WriteByte('"')
	for i := 0; i < n; i++ {
		c := rune(s.CharAt(i))
		if utf16.IsSurrogate(c) {
			if c < 0xDC00 && i+1 < n {
				if lo := rune(s.CharAt(i + 1)); lo >= 0xDC00 && lo <= 0xDFFF {
					w.buf.WriteRune(utf16.DecodeRune(c, lo))
					i++
					continue
				}
			}
			w.buf.WriteString(`\u`)
			w.buf.WriteByte(hexDigits[c>>12])
			w.buf.WriteByte(hexDigits[c>>8&0xF])
			w.buf.WriteByte(hexDigits[c>>4&0xF])
			w.buf.WriteByte(hexDigits[c&0xF])
			continue
		}
		w.char(c)
	}
	w.buf.WriteByte('"')
}

// quoteString writes a Go string (valid UTF-8 from the engine) quoted.
func (w *jsonWriter) quoteString(s string) {
	w.buf.WriteByte('"')
	for _, c := range s {
		w.char(c)
	}
	w.buf.WriteByte('"')
}

func (w *jsonWriter) char(c rune) {
	switch c {
	case '"', '\\':
		w.buf.WriteByte('\\')
		w.buf.WriteByte(byte(c))
	case '\b':
		w.buf.WriteString(`\b`)
	case '\t':
		w.buf.WriteString(`\t`)
	case '\n':
		w.buf.WriteString(`\n`)
	case '\f':
		w.buf.WriteString(`\f`)
	case '\r':
		w.buf.WriteString(`\r`)
	default:
		if c < 0x20 {
			w.buf.WriteString(`\u00`)
			w.buf.WriteByte(hexDigits[c>>4])
			w.buf.WriteByte(hexDigits[c&0xF])
		} else if c < utf8.RuneSelf {
			w.buf.WriteByte(byte(c))
		} else {
			w.buf.WriteRune(c)
		}
	}
}

// scriptStringify is the script's JSON.stringify. Called with a value alone
// it is the converter above, so a script's own JSON.stringify stops at the
// time limit and at jsdepth.MaxValue levels (a RangeError) instead of
// running for minutes; with a replacer or an indent it is goja's.
func (r *runner) scriptStringify(call goja.FunctionCall) goja.Value {
	if len(call.Arguments) > 1 && !(goja.IsUndefined(call.Argument(1)) && goja.IsUndefined(call.Argument(2))) {
		out, err := r.jsonStringify(call.This, call.Arguments...)
		if err != nil {
			panic(err)
		}
		return out
	}
	w := &jsonWriter{r: r}
	defined, err := w.value(call.Argument(0), "")
	var te typeError
	switch {
	case err == nil && !defined:
		return goja.Undefined()
	case err == nil:
		return r.vm.ToValue(w.buf.String())
	case errors.As(err, &te):
		panic(r.vm.NewTypeError(string(te)))
	case errors.Is(err, errValueTooDeep):
		panic(r.rangeError("JSON.stringify: " + err.Error()))
	}
	panic(err) // a JavaScript exception, or errStopped with the interrupt pending
}

// scriptParse is the script's JSON.parse: goja's, after a linear check
// that the text nests no deeper than jsdepth.MaxValue, because goja's
// recursion overflows the goroutine stack (fatal) on a few MiB of '['.
func (r *runner) scriptParse(call goja.FunctionCall) goja.Value {
	text := call.Argument(0).String()
	if !jsonDepthOK(text) {
		panic(r.rangeError(fmt.Sprintf("JSON.parse: the text nests more than %d levels deep", jsdepth.MaxValue)))
	}
	args := append([]goja.Value{r.vm.ToValue(text)}, call.Arguments[min(1, len(call.Arguments)):]...)
	out, err := r.jsonParse(call.This, args...)
	if err != nil {
		panic(err)
	}
	return out
}

func (r *runner) rangeError(msg string) *goja.Object {
	ctor, ok := goja.AssertConstructor(r.vm.Get("RangeError"))
	if !ok {
		return r.vm.NewGoError(errors.New(msg))
	}
	e, err := ctor(nil, r.vm.ToValue(msg))
	if err != nil {
		return r.vm.NewGoError(errors.New(msg))
	}
	return e
}

// jsonDepthOK reports whether JSON text nests at most jsdepth.MaxValue
// levels, counting brackets outside strings. Invalid text may pass: the
// parser then reports it, before it could nest deeper than it counted.
func jsonDepthOK(text string) bool {
	depth, inStr := 0, false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '[' || c == '{':
			if depth++; depth > jsdepth.MaxValue {
				return false
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return true
}
