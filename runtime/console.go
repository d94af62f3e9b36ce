package runtime

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dop251/goja"

	"github.com/restls/restls/jsdepth"
)

// installConsole captures console.* into the result's logs; nothing is
// ever written to stdout (stdout is the LSP stream in server mode).
func (r *runner) installConsole() error {
	c := r.vm.NewObject()
	for _, level := range []string{"log", "info", "warn", "error", "debug"} {
		level := level
		_ = c.Set(level, func(call goja.FunctionCall) goja.Value {
			parts := make([]string, len(call.Arguments))
			for i, a := range call.Arguments {
				parts[i] = r.format(a)
			}
			line, _ := r.position(r.vm.CaptureCallStack(4, nil))
			e := LogEntry{Level: level, Message: strings.Join(parts, " "), Line: line, AfterCalls: len(r.res.Calls)}
			r.res.Logs = append(r.res.Logs, e)
			if r.opts.Observer != nil {
				e.Message = r.session.Redactor().String(e.Message) // as the result will show it
				r.opts.Observer.Log(e)
			}
			return goja.Undefined()
		})
	}
	return r.vm.Set("console", c)
}

// format shows a value the way a console would: strings as they are,
// errors as "Name: message", everything else as JSON where possible.
func (r *runner) format(v goja.Value) string {
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsNull(v):
		return "null"
	}
	// Not Export: it copies a whole object graph, recursively.
	if s, ok := v.(goja.String); ok {
		return s.String()
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		return v.String()
	}
	if r.vm.InstanceOf(obj, r.errorCtor) {
		return obj.String()
	}
	if _, isFn := goja.AssertFunction(v); isFn {
		return "[Function]"
	}
	out, defined, err := r.marshal(obj)
	switch {
	case errors.Is(err, errValueTooDeep):
		return fmt.Sprintf("[%s nested more than %d levels deep]", obj.ClassName(), jsdepth.MaxValue)
	case errors.Is(err, errStopped):
		// The script is interrupted as soon as console returns.
		return "[not shown: the run was stopped]"
	case err != nil || !defined:
		return r.shallowString(obj)
	}
	return out
}

// shallowString is String(obj) for an object JSON cannot show (a cycle, a
// throwing toJSON), without Array.prototype.join's walk into elements,
// which recurses without a limit: arrays show as [Array].
func (r *runner) shallowString(obj *goja.Object) string {
	if obj.ClassName() == "Array" {
		return "[Array]"
	}
	s := "[object " + obj.ClassName() + "]"
	_ = r.tryJS(func() { s = obj.String() })
	return s
}
