package openapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The request schemas of a description, kept for validation. The index
// keeps the nodes of the request bodies' and parameters' schemas and of
// the components their local $refs reach (reachRefs, at build); the rest of
// the document is dropped as before. A schema is rewritten into one JSON
// Schema document of the description's dialect (3.0 and Swagger 2.0 as
// draft 4, 3.1 as 2020-12) and compiled by santhosh-tekuri/jsonschema the
// first time a call is checked against it, then kept on the index.
// docs/decisions.md ("Literals checked against the description (issue
// 27)") says what the rewriting changes and why.

// Budgets of the schemas kept for validation: a description comes from a
// repository or a URL.
const (
	// maxRawReach bounds the nodes walked to find the components the
	// request schemas of one description reach.
	maxRawReach = 1 << 20
	// maxRawNodes bounds the values of one schema rewritten for the
	// validator, its components included; a larger one is not checked.
	maxRawNodes = 100_000
	// maxAnswerNodes bounds the values of one answer's schema rewritten
	// for its check, components included: the validator's compiler takes
	// some 7 KB and 60 microseconds a value, so an allOf of 10,000 parts
	// took 413 MiB and seconds. GitHub's largest answer schema is 1,052
	// values; a larger one is not checked, and the run says so
	// (CheckAnswer's not-checked note).
	maxAnswerNodes = 10_000
	// maxRawDepth bounds the nesting of one rewritten schema; deeper, a
	// schema allows anything.
	maxRawDepth = 64
	// MaxPattern is the longest pattern compiled; a longer one is left out.
	MaxPattern = 4096
)

// rawSchema is a request schema of the description: its node, and
// whether it is a Swagger 2.0 parameter that carries its schema's keys
// itself (type, enum, pattern ...).
type rawSchema struct {
	n      *node
	param  bool
	answer bool // an answer's schema: writeOnly, not readOnly, is optional
}

// validators is the index's kept request schemas and their compiled
// validators.
type validators struct {
	draft4 bool
	refs   map[string]*node // local $ref -> target, for the kept schemas

	mu       sync.Mutex
	compiled map[rawSchema]*jsonschema.Schema // nil: not checkable
	fast     map[rawSchema]*fastSchema        // answers' fast path (answer_fast.go)
	// skipped says why an answer's schema is not checkable.
	skipped map[rawSchema]string
}

// Formats asserted; the others (int32, binary, byte ...) are left out:
// a format the validator does not know, or that services read loosely,
// is not a rule we check.
var assertedFormats = map[string]bool{"date": true, "date-time": true, "uuid": true, "email": true, "uri": true}

// BodyValidator returns the validator of op's request body (its JSON
// value), or nil when the description gives none that can be checked.
func (idx *Index) BodyValidator(op *Operation) *jsonschema.Schema {
	if idx == nil || op == nil || op.bodyRaw.n == nil {
		return nil
	}
	return idx.validator(op.bodyRaw)
}

// ParamValidator returns the validator of a parameter's value, or nil.
// The value checked is the one the service reads: a string, or what the
// string parses as for a parameter of another type.
func (idx *Index) ParamValidator(p *Param) *jsonschema.Schema {
	if idx == nil || p == nil || p.raw.n == nil {
		return nil
	}
	return idx.validator(p.raw)
}

func (idx *Index) validator(r rawSchema) *jsonschema.Schema {
	v := idx.valid
	if v == nil {
		return nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.compiled[r]; ok {
		return s
	}
	s, _ := v.compile(r)
	if v.compiled == nil {
		v.compiled = map[rawSchema]*jsonschema.Schema{}
	}
	v.compiled[r] = s
	return s
}

// answerValidator returns the library's validator of an answer's schema
// and the fast path compiled from the same rewritten document; both are
// compiled once and kept on the index.
// why is the reason a schema it could not compile is not checked.
func (idx *Index) answerValidator(r rawSchema) (s *jsonschema.Schema, f *fastSchema, why string) {
	v := idx.valid
	if v == nil {
		return nil, nil, ""
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if f, ok := v.fast[r]; ok {
		return v.compiled[r], f, v.skipped[r]
	}
	doc, err := v.document(r)
	if err == nil {
		// The fast path first: the library's compiler may keep the
		// document it is handed.
		f = compileFast(doc, v.draft4)
		if doc, err = v.document(r); err == nil {
			s, err = v.compileDoc(doc)
		}
	}
	if s == nil {
		f = nil
		why = uncheckableWhy(err)
	}
	if v.compiled == nil {
		v.compiled, v.fast, v.skipped = map[rawSchema]*jsonschema.Schema{}, map[rawSchema]*fastSchema{}, map[rawSchema]string{}
	}
	v.compiled[r], v.fast[r] = s, f
	if why != "" {
		v.skipped[r] = why
	}
	return s, f, why
}

// uncheckableWhy says why a schema was not compiled, for a user.
func uncheckableWhy(err error) string {
	var u *uncheckableError
	switch {
	case err == nil:
		return "its schema could not be compiled"
	case errors.As(err, &u):
		return u.why
	}
	return "its schema could not be compiled (" + err.Error() + ")"
}

// errUncheckable is a schema the validator is not handed (a remote
// $ref, $dynamicRef, too large); the error is an *uncheckableError that
// says which.
var errUncheckable = errors.New("schema not checkable")

// uncheckableError is errUncheckable with the reason.
type uncheckableError struct{ why string }

func (e *uncheckableError) Error() string { return errUncheckable.Error() + ": " + e.why }
func (e *uncheckableError) Unwrap() error { return errUncheckable }

// compile rewrites r into a JSON Schema document of the dialect and
// compiles it.
func (v *validators) compile(r rawSchema) (*jsonschema.Schema, error) {
	doc, err := v.document(r)
	if err != nil {
		return nil, err
	}
	return v.compileDoc(doc)
}

// compileDoc compiles a rewritten document.
func (v *validators) compileDoc(doc any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	c.AssertFormat()
	draft := jsonschema.Draft2020
	if v.draft4 {
		draft = jsonschema.Draft4
	}
	c.DefaultDraft(draft)
	const url = "urn:restls:request-schema"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// noLoader loads nothing: every $ref of a rewritten schema is local.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s: only local $refs are followed", url)
}

// document rewrites r and the components it reaches into one document.
func (v *validators) document(r rawSchema) (any, error) {
	c := &rewriter{v: v, names: map[string]string{}, defs: map[string]any{}, answer: r.answer, limit: maxRawNodes}
	if r.answer {
		c.limit = maxAnswerNodes
	}
	root := c.schema(r.n, r.param, 0)
	for len(c.queue) > 0 && !c.bad {
		ref := c.queue[0]
		c.queue = c.queue[1:]
		c.defs[c.names[ref]] = c.schema(v.refs[ref], false, 1)
	}
	if c.bad {
		return nil, &uncheckableError{why: c.why}
	}
	obj, ok := root.(map[string]any)
	if !ok {
		obj = map[string]any{"allOf": []any{root}}
	}
	if len(c.defs) > 0 {
		obj[c.defsKey()] = c.defs
	}
	return obj, nil
}

type rewriter struct {
	v      *validators
	names  map[string]string // $ref -> its name under the definitions
	defs   map[string]any
	queue  []string
	nodes  int
	limit  int // of nodes: maxRawNodes, or maxAnswerNodes for an answer
	bad    bool
	why    string // what made it bad, for a user
	answer bool
}

// fail marks the schema uncheckable for why (the first reason stays).
func (c *rewriter) fail(why string) {
	if !c.bad {
		c.bad, c.why = true, why
	}
}

// tooLarge is the reason of a schema past the rewriter's limit.
func (c *rewriter) tooLarge() string {
	return fmt.Sprintf("its schema is too large to check (more than %d values with the components it reaches, as a large allOf or anyOf makes it; the budget of an answer's check)", c.limit)
}

func (c *rewriter) defsKey() string {
	if c.v.draft4 {
		return "definitions"
	}
	return "$defs"
}

// anything is the schema that allows every value, in both dialects.
func anything() any { return map[string]any{} }

var typeNames = map[string]bool{"null": true, "boolean": true, "object": true, "array": true, "number": true, "string": true, "integer": true}

// schema rewrites one schema node. param: a Swagger 2.0 parameter, whose
// schema keys sit on it.
func (c *rewriter) schema(n *node, param bool, depth int) any {
	c.nodes++
	if c.nodes > c.limit {
		c.fail(c.tooLarge())
		return anything()
	}
	if n == nil || depth > maxRawDepth {
		return anything()
	}
	if n.kind == kBool {
		if n.str == "true" || !c.v.draft4 {
			if c.v.draft4 {
				return anything()
			}
			return n.str == "true"
		}
		return map[string]any{"not": anything()}
	}
	if n.kind != kObject {
		return anything()
	}
	out := map[string]any{}
	nullable, dropAdditional := false, false
	var oneOf []any
	for i, k := range n.keys {
		val := n.vals[i]
		switch k {
		case "$ref":
			name, ok := "", val.kind == kString
			if ok {
				name, ok = c.ref(val.str)
			}
			if !ok {
				c.fail("its schema has a $ref restls does not follow (outside the description, or to nothing)")
				return anything()
			}
			out["$ref"] = "#/" + c.defsKey() + "/" + name
		case "$dynamicRef", "$recursiveRef":
			c.fail("its schema uses " + k + ", which restls does not follow")
			return anything()
		case "type":
			if t := typeList(val); t != nil {
				out["type"] = t
			}
		case "enum":
			if val.kind == kArray && len(val.vals) > 0 {
				vals := make([]any, 0, len(val.vals))
				for _, e := range val.vals {
					vals = append(vals, c.value(e, 0))
				}
				out["enum"] = vals
			}
		case "const":
			if c.v.draft4 {
				out["enum"] = []any{c.value(val, 0)}
			} else {
				out["const"] = c.value(val, 0)
			}
		case "format":
			if val.kind == kString && assertedFormats[val.str] {
				out["format"] = val.str
			}
		case "pattern":
			if val.kind == kString && patternOK(val.str) {
				out["pattern"] = val.str
			}
		case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
			if num, ok := count(val); ok {
				out[k] = num
			}
		case "minimum", "maximum":
			if safeNumber(val) {
				out[k] = json.Number(val.str)
			}
		case "multipleOf":
			if safeNumber(val) {
				if r, ok := new(big.Rat).SetString(val.str); ok && r.Sign() > 0 {
					out[k] = json.Number(val.str)
				}
			}
		case "exclusiveMinimum", "exclusiveMaximum":
			// Handled after the loop: their meaning depends on the dialect
			// and on minimum/maximum.
		case "uniqueItems":
			if val.kind == kBool {
				out[k] = val.str == "true"
			}
		case "required":
			if req := c.required(n, val); len(req) > 0 {
				out["required"] = req
			}
		case "properties":
			if val.kind == kObject {
				props := make(map[string]any, len(val.keys))
				for j, name := range val.keys {
					props[name] = c.schema(val.vals[j], false, depth+1)
				}
				out["properties"] = props
			}
		case "patternProperties":
			if val.kind == kObject {
				props := make(map[string]any, len(val.keys))
				ok := true
				for j, pat := range val.keys {
					ok = ok && patternOK(pat)
					props[pat] = c.schema(val.vals[j], false, depth+1)
				}
				if ok {
					out["patternProperties"] = props
				} else {
					// A pattern left out would send its properties to
					// additionalProperties: say nothing of either.
					dropAdditional = true
				}
			}
		case "additionalProperties":
			switch val.kind {
			case kBool: // a flag in every dialect
				out[k] = val.str == "true"
			case kObject:
				out[k] = c.schema(val, false, depth+1)
			}
		case "items":
			switch {
			case val.kind == kObject || val.kind == kBool:
				out["items"] = c.schema(val, false, depth+1)
			case val.kind == kArray && c.v.draft4:
				list := make([]any, 0, len(val.vals))
				for _, e := range val.vals {
					list = append(list, c.schema(e, false, depth+1))
				}
				out["items"] = list
			}
		case "prefixItems":
			if val.kind == kArray && !c.v.draft4 {
				list := make([]any, 0, len(val.vals))
				for _, e := range val.vals {
					list = append(list, c.schema(e, false, depth+1))
				}
				out["prefixItems"] = list
			}
		case "allOf", "anyOf", "oneOf":
			if val.kind != kArray || len(val.vals) == 0 {
				continue
			}
			list := make([]any, 0, len(val.vals))
			for _, e := range val.vals {
				list = append(list, c.schema(e, false, depth+1))
			}
			switch k {
			case "oneOf":
				// Checked as anyOf: descriptions write oneOf where the
				// choices overlap (a value matching two is not an error
				// the service makes).
				oneOf = list
			default:
				out[k] = list
			}
		case "not":
			if val.kind == kObject || val.kind == kBool {
				out["not"] = c.schema(val, false, depth+1)
			}
		case "nullable", "x-nullable":
			nullable = nullable || val.kind == kBool && val.str == "true"
		}
	}
	c.exclusive(n, out)
	if dropAdditional {
		delete(out, "additionalProperties")
	}
	if param {
		// A Swagger 2.0 parameter: its "required" is a flag, not a list.
		delete(out, "required")
	}
	if oneOf != nil {
		if _, ok := out["anyOf"]; ok {
			all, _ := out["allOf"].([]any)
			out["allOf"] = append(all, map[string]any{"anyOf": oneOf})
		} else {
			out["anyOf"] = oneOf
		}
	}
	if nullable {
		return map[string]any{"anyOf": []any{map[string]any{"type": "null"}, out}}
	}
	return out
}

// exclusive writes exclusiveMinimum/Maximum in the dialect's form: a flag
// beside minimum in draft 4, a number in 2020-12.
func (c *rewriter) exclusive(n *node, out map[string]any) {
	for _, kw := range [2][2]string{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
		val := n.get(kw[0])
		if val == nil {
			continue
		}
		bound, hasBound := out[kw[1]]
		switch {
		case val.kind == kBool && c.v.draft4:
			if hasBound {
				out[kw[0]] = val.str == "true"
			}
		case val.kind == kBool: // 2020-12: the flag makes the bound exclusive
			if val.str == "true" && hasBound {
				out[kw[0]] = bound
				delete(out, kw[1])
			}
		case !safeNumber(val):
		case c.v.draft4:
			if !hasBound {
				out[kw[1]] = json.Number(val.str)
				out[kw[0]] = true
			}
		default:
			out[kw[0]] = json.Number(val.str)
		}
	}
}

// required returns the names of a required list, less those whose
// property is readOnly (writeOnly in an answer): OpenAPI requires them in
// the other direction only.
func (c *rewriter) required(n, val *node) []any {
	if val.kind != kArray {
		return nil
	}
	props := n.get("properties")
	seen := map[string]bool{}
	var out []any
	for _, e := range val.vals {
		if e.kind != kString || seen[e.str] {
			continue
		}
		seen[e.str] = true
		optional := "readOnly"
		if c.answer {
			optional = "writeOnly"
		}
		if p := c.deref(props.get(e.str)); p != nil && p.flag(optional) {
			continue
		}
		out = append(out, e.str)
	}
	return out
}

// deref follows local $refs of the kept schemas, bounded.
func (c *rewriter) deref(n *node) *node {
	for i := 0; n != nil && i < 16; i++ {
		ref := n.text("$ref")
		if ref == "" {
			return n
		}
		n = c.v.refs[ref]
	}
	return nil
}

// ref names the definition of a local $ref, queueing its target.
func (c *rewriter) ref(ref string) (string, bool) {
	if name, ok := c.names[ref]; ok {
		return name, true
	}
	if c.v.refs[ref] == nil {
		return "", false
	}
	name := fmt.Sprintf("r%d", len(c.names))
	c.names[ref] = name
	c.queue = append(c.queue, ref)
	return name, true
}

// value converts a node to a JSON value (enum and const).
func (c *rewriter) value(n *node, depth int) any {
	c.nodes++
	if c.nodes > c.limit {
		c.fail(c.tooLarge())
		return nil
	}
	if depth > maxRawDepth {
		c.fail(fmt.Sprintf("its schema has an enum or const value nested deeper than %d levels", maxRawDepth))
		return nil
	}
	switch n.kind {
	case kString:
		return n.str
	case kNumber:
		if safeNumber(n) {
			return json.Number(n.str)
		}
		c.fail("its schema has an enum or const number the validator would take long to read") // 1e999999999
		return nil
	case kBool:
		return n.str == "true"
	case kArray:
		out := make([]any, 0, len(n.vals))
		for _, v := range n.vals {
			out = append(out, c.value(v, depth+1))
		}
		return out
	case kObject:
		out := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			out[k] = c.value(n.vals[i], depth+1)
		}
		return out
	}
	return nil
}

// typeList reads "type": a known name, or a list of them; nil when none
// is known ("file" of Swagger 2.0 ...).
func typeList(n *node) any {
	switch n.kind {
	case kString:
		if typeNames[n.str] {
			return n.str
		}
	case kArray:
		var out []any
		seen := map[string]bool{}
		for _, v := range n.vals {
			if v.kind == kString && typeNames[v.str] && !seen[v.str] {
				seen[v.str] = true
				out = append(out, v.str)
			}
		}
		if len(out) > 0 && len(out) == len(n.vals) {
			return out
		}
	}
	return nil
}

// safeNumber reports whether a number node is one the validator reads
// quickly: short, with an exponent a float64 holds (it reads numbers
// into big.Rat, where 1e999999999 takes gigabytes).
func safeNumber(n *node) bool {
	if n == nil || n.kind != kNumber || len(n.str) > 64 {
		return false
	}
	f, err := strconv.ParseFloat(n.str, 64)
	return err == nil && !math.IsInf(f, 0)
}

// count reads a non-negative integer keyword.
func count(n *node) (json.Number, bool) {
	if !safeNumber(n) {
		return "", false
	}
	r, ok := new(big.Rat).SetString(n.str)
	if !ok || r.Sign() < 0 || !r.IsInt() || !r.Num().IsInt64() {
		return "", false
	}
	return json.Number(r.Num().String()), true
}

// patternOK reports whether a pattern is checked: Go's RE2 compiles it
// and it is at most MaxPattern bytes. ECMA-262 features RE2 lacks
// (lookaround, backreferences) fail to compile, so such a pattern is left
// out rather than misread.
func patternOK(p string) bool {
	_, ok := compilePattern(p)
	return ok
}

// compilePattern compiles a schema's pattern by patternOK's rule: the
// one place a pattern from a description is compiled (the literal
// checks here, the answers' fast path in answer_fast.go).
func compilePattern(p string) (*regexp.Regexp, bool) {
	if len(p) > MaxPattern {
		return nil, false
	}
	re, err := regexp.Compile(p)
	return re, err == nil
}

// reachRefs keeps, for the request schemas of the index, the targets of
// the local $refs they reach (transitively), walking at most maxRawReach
// nodes: past it, a schema that needs a component not kept is not
// checked.
func (b *builder) reachRefs(roots []*node) {
	v := &validators{draft4: !strings.HasPrefix(b.idx.Version, "3.1"), refs: map[string]*node{}}
	b.idx.valid = v
	walked := 0
	stack := append([]*node(nil), roots...)
	for len(stack) > 0 && walked < maxRawReach {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		walked++
		switch n.kind {
		case kObject:
			for i, k := range n.keys {
				if k == "$ref" && n.vals[i].kind == kString {
					ref := n.vals[i].str
					if _, done := v.refs[ref]; done {
						continue
					}
					t := b.pointer(ref)
					v.refs[ref] = t
					if t != nil {
						stack = append(stack, t)
					}
					continue
				}
				stack = append(stack, n.vals[i])
			}
		case kArray:
			stack = append(stack, n.vals...)
		}
	}
	for ref, t := range v.refs {
		if t == nil {
			delete(v.refs, ref)
		}
	}
}
