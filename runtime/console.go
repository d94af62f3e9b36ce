package runtime

import (
	"strings"

	"github.com/dop251/goja"
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
			r.res.Logs = append(r.res.Logs, LogEntry{Level: level, Message: strings.Join(parts, " "), Line: line, afterCalls: len(r.res.Calls)})
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
	if s, ok := v.Export().(string); ok {
		return s
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
	var out goja.Value
	if err := r.tryJS(func() { out = r.stringify(obj) }); err != nil || out == nil || goja.IsUndefined(out) {
		return obj.String()
	}
	return out.String()
}
