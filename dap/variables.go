package dap

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	godap "github.com/google/go-dap"

	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
)

// Variables references. A scope, a value of the script or a part of a
// call gets a number the client expands it by (variables): the script's
// are valid while the run stands stopped where they were made; a call's
// (the Calls scope, an output event's) for the whole session.

// ref is what a variables reference expands.
type ref struct {
	// stopScoped: valid only while the run stands at the stop that made
	// it.
	stopScoped bool
	// frame is the stack frame (0 the innermost) whose scope a script's
	// value is in; note, when set, is why the frame shows no values.
	frame int
	note  string
	// names are a scope's variables, each inspected where the run stands.
	names []string
	// expr is a value of the script to expand ("globalThis": the
	// globals).
	expr string
	// calls lists the calls made so far.
	calls bool
	// call is one call; value a part of it (decoded JSON, jsonObject,
	// []any, a scalar).
	call  *restclient.Call
	value any
	// line is the console line of call: the one variable of its output
	// event, which expands to the call's parts.
	line string
}

// maxRefs bounds the references a session keeps; past it a value shows
// without expanding. maxScopeTime bounds the evaluations of one scope.
const (
	maxRefs      = 100000
	maxScopeTime = 5 * time.Second
)

// newRef keeps r and returns its number; 0 when the session keeps too
// many. The caller holds s.mu.
func (s *session) newRef(r *ref) int {
	if len(s.refs) >= maxRefs {
		return 0
	}
	s.nextRef++
	s.refs[s.nextRef] = r
	return s.nextRef
}

// dropStopRefs forgets the references of the stop the run leaves. The
// caller holds s.mu.
func (s *session) dropStopRefs() {
	for id, r := range s.refs {
		if r.stopScoped {
			delete(s.refs, id)
		}
	}
}

// callRef keeps a reference to call c, answered, for its console line:
// one variable, the line, whose parts expand. A client shows an output
// event's variables in place of its text (VS Code does, as it does
// console.log's arguments), so the call stays one line there.
func (s *session) callRef(c *restclient.Call, line string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, c)
	return s.newRef(&ref{call: c, line: line})
}

// callLine is the one variable of a call's console line.
func (s *session) callLine(r *ref) []godap.Variable {
	s.mu.Lock()
	defer s.mu.Unlock()
	return []godap.Variable{{Name: "", Value: r.line, VariablesReference: s.newRef(&ref{call: r.call})}}
}

// scopes are the scopes of frame id: the innermost frame's Local,
// Closure and Script (the names the script declares there), then the
// Globals, context.input and the Calls made so far, which every frame
// shares.
func (s *session) scopes(frame int) []godap.Scope {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []godap.Scope{}
	if s.stopped == nil {
		return out
	}
	add := func(name, hint string, r *ref, expensive bool) {
		if id := s.newRef(r); id != 0 {
			out = append(out, godap.Scope{Name: name, PresentationHint: hint, VariablesReference: id, Expensive: expensive})
		}
	}
	p := s.stopped.p
	i := max(frame-1, 0)
	if i > 0 && p.Frame != nil {
		fp, err := p.Frame(s.stopped.frames, i)
		if err != nil {
			add("Locals", "locals", &ref{stopScoped: true, note: err.Error()}, false)
		}
		p.Scopes = fp.Scopes
	}
	if p.Scopes != nil {
		sc := p.Scopes()
		add("Locals", "locals", &ref{stopScoped: true, names: sc.Local, frame: i}, false)
		if len(sc.Closure) > 0 {
			add("Closure", "", &ref{stopScoped: true, names: sc.Closure, frame: i}, false)
		}
		if len(sc.Script) > 0 {
			add("Script", "", &ref{stopScoped: true, names: sc.Script, frame: i}, false)
		}
	}
	if p.Expand != nil {
		add("Globals", "", &ref{stopScoped: true, expr: "globalThis"}, true)
		add("context.input", "arguments", &ref{stopScoped: true, expr: "context.input"}, false)
	}
	if len(s.calls) > 0 {
		add("Calls", "", &ref{calls: true}, false)
	}
	return out
}

// variables are what reference a.VariablesReference expands to.
func (s *session) variables(a godap.VariablesArguments) ([]godap.Variable, error) {
	s.mu.Lock()
	r := s.refs[a.VariablesReference]
	s.mu.Unlock()
	if r == nil {
		return nil, fmt.Errorf("variables reference %d is not known (any longer): a value of the script expands only while the run stands where it was shown", a.VariablesReference)
	}
	switch {
	case r.note != "":
		return []godap.Variable{{Name: "(not shown)", Value: r.note}}, nil
	case r.calls:
		return s.callList(), nil
	case r.call != nil && r.line != "":
		return s.callLine(r), nil
	case r.call != nil && r.value == nil:
		return s.callParts(r.call), nil
	case r.value != nil:
		return s.jsonChildren(r.value, a.Start, a.Count), nil
	case r.expr != "":
		var out []godap.Variable
		var err error
		if werr := s.onRun(func(p dryrun.Paused) {
			if p, err = s.inFrame(p, r.frame); err != nil {
				return
			}
			if p.Expand == nil {
				err = errors.New("this run cannot expand values")
				return
			}
			var vars []dryrun.Var
			if vars, err = p.Expand(r.expr, a.Start, a.Count); err == nil {
				out = s.scriptVars(vars, r.frame)
			}
		}); werr != nil {
			return nil, werr
		}
		return out, err
	}
	var out []godap.Variable
	var ferr error
	err := s.onRun(func(p dryrun.Paused) {
		if p, ferr = s.inFrame(p, r.frame); ferr != nil || p.Inspect == nil {
			return
		}
		deadline := time.Now().Add(maxScopeTime)
		for _, n := range r.names {
			if time.Now().After(deadline) {
				out = append(out, godap.Variable{Name: n, Value: fmt.Sprintf("(not shown: the scope's values took longer than %v)", maxScopeTime)})
				continue
			}
			v, err := p.Inspect(n)
			if err != nil {
				out = append(out, godap.Variable{Name: n, Value: err.Error()})
				continue
			}
			out = append(out, s.scriptVars([]dryrun.Var{v}, r.frame)...)
		}
	})
	if err == nil {
		err = ferr
	}
	return out, err
}

// inFrame is p, the run stopped, as frame i (0 the innermost) stands.
func (s *session) inFrame(p dryrun.Paused, i int) (dryrun.Paused, error) {
	if i <= 0 || p.Frame == nil {
		return p, nil
	}
	s.mu.Lock()
	var frames []dryrun.Frame
	if s.stopped != nil {
		frames = s.stopped.frames
	}
	s.mu.Unlock()
	return p.Frame(frames, i)
}

// scriptVars are the script's values as DAP variables, each that
// expands with a reference.
func (s *session) scriptVars(vars []dryrun.Var, frame int) []godap.Variable {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]godap.Variable, 0, len(vars))
	for _, v := range vars {
		dv := godap.Variable{Name: v.Name, Value: v.Value, Type: v.Type, EvaluateName: v.Expr}
		if v.Children > 0 && v.Expr != "" {
			dv.VariablesReference = s.newRef(&ref{stopScoped: true, expr: v.Expr, frame: frame})
			if v.Type == "array" {
				dv.IndexedVariables = v.Children
			} else {
				dv.NamedVariables = v.Children
			}
		}
		out = append(out, dv)
	}
	return out
}

// evaluateRequest evaluates an expression where the run stands stopped
// (its innermost frame): a value that expands has a reference; for the
// clipboard, an object is its JSON.
func (s *session) evaluateRequest(a godap.EvaluateArguments) (godap.EvaluateResponseBody, error) {
	var body godap.EvaluateResponseBody
	var err error
	frame := max(a.FrameId-1, 0)
	werr := s.onRun(func(p dryrun.Paused) {
		if p, err = s.inFrame(p, frame); err != nil {
			return
		}
		if a.Context == "clipboard" || p.Inspect == nil {
			if p.Eval == nil {
				err = errors.New("this run cannot evaluate")
				return
			}
			body.Result, err = p.Eval(a.Expression)
			return
		}
		var v dryrun.Var
		if v, err = p.Inspect(a.Expression); err == nil {
			dv := s.scriptVars([]dryrun.Var{v}, frame)[0]
			body = godap.EvaluateResponseBody{Result: dv.Value, Type: dv.Type, VariablesReference: dv.VariablesReference,
				NamedVariables: dv.NamedVariables, IndexedVariables: dv.IndexedVariables}
		}
	})
	if werr != nil {
		return body, werr
	}
	return body, err
}

// callList is the Calls scope: each call so far, by number.
func (s *session) callList() []godap.Variable {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]godap.Variable, 0, len(s.calls))
	for i, c := range s.calls {
		out = append(out, godap.Variable{Name: fmt.Sprintf("#%d %s %s", i+1, c.Method, c.ServiceID),
			Value: strings.TrimSpace(statusOf(c) + " " + c.URL), VariablesReference: s.newRef(&ref{call: c})})
	}
	return out
}

// callParts are a call's parts, as the preview shows them (masked).
func (s *session) callParts(c *restclient.Call) []godap.Variable {
	s.mu.Lock()
	defer s.mu.Unlock()
	str := func(name, v string) godap.Variable {
		b, _ := json.Marshal(v)
		return godap.Variable{Name: name, Value: string(b), Type: "string"}
	}
	out := []godap.Variable{str("method", c.Method), str("serviceId", c.ServiceID), str("url", c.URL)}
	if c.Status != nil {
		out = append(out, godap.Variable{Name: "status", Value: fmt.Sprintf("%d %s", c.Status.Code, c.Status.Message)})
	}
	if c.ErrorCode != "" {
		out = append(out, str("error", c.ErrorCode+": "+s.o.Display.Text(c.ErrorMessage)))
	}
	out = append(out, godap.Variable{Name: "durationMs", Value: strconv.FormatFloat(c.DurationMs, 'f', -1, 64), Type: "number"})
	headers := func(name string, h restclient.Headers) {
		if len(h) == 0 {
			return
		}
		obj := &jsonObject{}
		for _, f := range h {
			obj.keys, obj.vals = append(obj.keys, f.Name), append(obj.vals, f.Value)
		}
		out = append(out, s.jsonVar(name, obj))
	}
	body := func(name string, raw json.RawMessage) {
		if len(raw) > 0 {
			out = append(out, s.jsonVar(name, decodeJSON(raw)))
		}
	}
	headers("requestHeaders", c.RequestHeaders)
	body("requestBody", c.RequestBody)
	headers("responseHeaders", c.ResponseHeaders)
	body("responseBody", c.ResponseBody)
	return out
}

// jsonVar is a decoded JSON value as a variable, a reference to expand
// it when it has children. The caller holds s.mu.
func (s *session) jsonVar(name string, v any) godap.Variable {
	dv := godap.Variable{Name: name, Value: jsonPreview(v, 0)}
	switch x := v.(type) {
	case *jsonObject:
		dv.Type = "object"
		if len(x.keys) > 0 {
			dv.VariablesReference, dv.NamedVariables = s.newRef(&ref{value: x}), len(x.keys)
		}
	case []any:
		dv.Type = "array"
		if len(x) > 0 {
			dv.VariablesReference, dv.IndexedVariables = s.newRef(&ref{value: x}), len(x)
		}
	case string:
		dv.Type = "string"
	case json.Number:
		dv.Type = "number"
	case bool:
		dv.Type = "boolean"
	}
	return dv
}

// jsonChildren lists a decoded JSON object's or array's children, from
// start, at most count (maxExpandList when 0).
func (s *session) jsonChildren(v any, start, count int) []godap.Variable {
	s.mu.Lock()
	defer s.mu.Unlock()
	if count <= 0 || count > maxExpandList {
		count = maxExpandList
	}
	start = max(start, 0)
	var out []godap.Variable
	switch x := v.(type) {
	case *jsonObject:
		for i := start; i < len(x.keys) && len(out) < count; i++ {
			out = append(out, s.jsonVar(x.keys[i], x.vals[i]))
		}
	case []any:
		for i := start; i < len(x) && len(out) < count; i++ {
			out = append(out, s.jsonVar(strconv.Itoa(i), x[i]))
		}
	}
	return out
}

// maxExpandList bounds the children one variables request lists.
const maxExpandList = 1000

// jsonObject is a JSON object with its keys in their order.
type jsonObject struct {
	keys []string
	vals []any
}

// maxJSONDepth bounds how deep decodeJSON builds values; deeper ones
// stay text.
const maxJSONDepth = 256

// decodeJSON decodes raw keeping objects' key order (a body as it came);
// what does not decode is its text.
func decodeJSON(raw json.RawMessage) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return string(raw)
	}
	return v
}

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := t.(json.Delim)
	if !ok {
		return t, nil
	}
	if depth >= maxJSONDepth {
		return nil, errors.New("too deep")
	}
	switch d {
	case '{':
		obj := &jsonObject{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			obj.keys, obj.vals = append(obj.keys, fmt.Sprint(k)), append(obj.vals, v)
		}
		_, err := dec.Token()
		return obj, err
	case '[':
		arr := []any{}
		for dec.More() {
			v, err := decodeValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err := dec.Token()
		return arr, err
	}
	return nil, fmt.Errorf("unexpected %v", d)
}

// jsonPreview is v as short text, as the script's values show.
func jsonPreview(v any, depth int) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		b, _ := json.Marshal(x)
		return string(b)
	case []any:
		return fmt.Sprintf("Array(%d)", len(x))
	case *jsonObject:
		if depth > 0 {
			return "{…}"
		}
		var b strings.Builder
		b.WriteString("{")
		for i, k := range x.keys {
			if b.Len() > 100 {
				b.WriteString(", …")
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k + ": " + jsonPreview(x.vals[i], depth+1))
		}
		b.WriteString("}")
		return b.String()
	}
	return fmt.Sprint(v)
}
