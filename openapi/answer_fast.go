package openapi

import (
	"encoding/json"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The fast path of answer checks (issue 27: a 1 MB answer under 20 ms).
// santhosh-tekuri/jsonschema spends about 46 ms of CPU on a 1.2 MB answer:
// it keeps a scope, an evaluated-properties map and a big.Rat per value
// to be able to report every error. Most answers hold to their schema, and
// then no error is reported, so CheckAnswer first asks this checker, which
// can only say "valid". It is compiled from the same rewritten document as
// the library's schema (validators.document) and understands only part of
// it; whatever it does not understand (not, multipleOf, uniqueItems, an
// unknown keyword, a number it cannot compare exactly, a value of a Go type
// other than the decoder's) makes it say "not proven", and the library
// checks the answer and writes the findings, as before. So the findings
// are the library's own; the fast path only skips the library when it
// would find nothing. FuzzAnswerFast holds the fast verdict to the
// library's on generated schemas and answers.

// fastSchema is one compiled (sub)schema. ok reports whether v is proven
// valid; false means "ask the library".
type fastSchema struct {
	unsupported bool
	boolean     *bool // a boolean schema (2020-12)

	ref *fastSchema // $ref; in draft 4 the other keywords are ignored

	types   []string
	enums   [][]any         // enum, and const as an enum of one: v is in each
	format  func(any) error // the library's own check of the format
	pattern *regexp.Regexp

	minLen, maxLen     int // -1: none
	minItems, maxItems int
	minProps, maxProps int

	min, max, exMin, exMax *fastNumber

	props      map[string]*fastSchema
	patProps   []fastPattern
	addlFalse  bool
	addl       *fastSchema
	required   []string
	items      *fastSchema   // every item (after prefix)
	prefix     []*fastSchema // prefixItems, or draft 4's items list
	allOf      []*fastSchema
	anyOf      []*fastSchema
	draft4Ref  bool // draft 4: a $ref object checks only its target
	hasObjKeys bool
}

type fastPattern struct {
	re *regexp.Regexp
	s  *fastSchema
}

// fastNumber is a bound: exact as a big.Rat, and as an int64 when it is
// an integer that fits, for the usual comparison without a big.Rat.
type fastNumber struct {
	rat   *big.Rat
	i     int64
	isInt bool
}

// Bounds of the fast path; past them it asks the library, which has its
// own (answerTimeout).
const (
	// maxFastDepth bounds the nesting of values and schemas walked.
	maxFastDepth = 256
	// maxFastSteps bounds the (value, schema) pairs one answer's check
	// visits: anyOf under a recursive $ref can multiply them.
	maxFastSteps = 1 << 22
)

// fastRun is the state of one answer's check.
type fastRun struct {
	steps int
	// refs[base:] are the $ref targets entered at the current value:
	// entering one again is a cycle, which the library reports as an
	// error.
	refs []*fastSchema
	base int
}

// valid reports whether v is proven valid against s.
func (s *fastSchema) valid(v any) bool {
	return s.ok(v, 0, &fastRun{})
}

// fastCompiler compiles the rewritten document of one schema.
type fastCompiler struct {
	draft4 bool
	defs   map[string]any
	refs   map[string]*fastSchema
}

// compileFast compiles the checker of a rewritten document (the value
// validators.document returns), or nil when none can be built.
func compileFast(doc any, draft4 bool) *fastSchema {
	root, ok := doc.(map[string]any)
	if !ok {
		return nil
	}
	c := &fastCompiler{draft4: draft4, refs: map[string]*fastSchema{}}
	key := "$defs"
	if draft4 {
		key = "definitions"
	}
	c.defs, _ = root[key].(map[string]any)
	return c.schema(root, true)
}

func (c *fastCompiler) schema(v any, root bool) *fastSchema {
	s := &fastSchema{minLen: -1, maxLen: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1}
	switch v := v.(type) {
	case bool:
		if c.draft4 {
			s.unsupported = true
		} else {
			s.boolean = &v
		}
		return s
	case map[string]any:
		c.object(s, v, root)
	default:
		s.unsupported = true
	}
	return s
}

func (c *fastCompiler) object(s *fastSchema, m map[string]any, root bool) {
	for k, val := range m {
		switch k {
		case "$defs", "definitions":
			if !root {
				s.unsupported = true
			}
		case "$ref":
			ref, _ := val.(string)
			s.ref = c.ref(ref)
			s.draft4Ref = c.draft4
		case "type":
			switch t := val.(type) {
			case string:
				s.types = []string{t}
			case []any:
				for _, e := range t {
					name, _ := e.(string)
					s.types = append(s.types, name)
				}
			default:
				s.unsupported = true
			}
		case "enum":
			list, ok := val.([]any)
			if !ok {
				s.unsupported = true
			}
			s.enums = append(s.enums, list)
		case "const":
			s.enums = append(s.enums, []any{val})
		case "format":
			name, _ := val.(string)
			f, ok := formatCheck(name, c.draft4)
			if !ok {
				s.unsupported = true
			}
			s.format = f
		case "pattern":
			p, _ := val.(string)
			re, ok := compilePattern(p)
			if !ok {
				s.unsupported = true
			}
			s.pattern = re
		case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
			n, ok := fastCount(val)
			if !ok {
				s.unsupported = true
			}
			switch k {
			case "minLength":
				s.minLen = n
			case "maxLength":
				s.maxLen = n
			case "minItems":
				s.minItems = n
			case "maxItems":
				s.maxItems = n
			case "minProperties":
				s.minProps = n
			case "maxProperties":
				s.maxProps = n
			}
		case "minimum", "maximum":
			n := bound(val)
			if n == nil {
				s.unsupported = true
			}
			if k == "minimum" {
				s.min = n
			} else {
				s.max = n
			}
		case "exclusiveMinimum", "exclusiveMaximum":
			c.exclusive(s, m, k, val)
		case "required":
			list, _ := val.([]any)
			for _, e := range list {
				name, ok := e.(string)
				if !ok {
					s.unsupported = true
				}
				s.required = append(s.required, name)
			}
		case "properties":
			props, _ := val.(map[string]any)
			s.props = make(map[string]*fastSchema, len(props))
			for name, p := range props {
				s.props[name] = c.schema(p, false)
			}
		case "patternProperties":
			props, _ := val.(map[string]any)
			for pat, p := range props {
				re, ok := compilePattern(pat)
				if !ok {
					s.unsupported = true
					continue
				}
				s.patProps = append(s.patProps, fastPattern{re: re, s: c.schema(p, false)})
			}
		case "additionalProperties":
			if b, ok := val.(bool); ok {
				s.addlFalse = !b
			} else {
				s.addl = c.schema(val, false)
			}
		case "items":
			if list, ok := val.([]any); ok && c.draft4 {
				for _, e := range list {
					s.prefix = append(s.prefix, c.schema(e, false))
				}
			} else {
				s.items = c.schema(val, false)
			}
		case "prefixItems":
			list, _ := val.([]any)
			if c.draft4 {
				break // not a draft 4 keyword: the library ignores it
			}
			for _, e := range list {
				s.prefix = append(s.prefix, c.schema(e, false))
			}
		case "allOf", "anyOf":
			list, _ := val.([]any)
			out := make([]*fastSchema, 0, len(list))
			for _, e := range list {
				out = append(out, c.schema(e, false))
			}
			if k == "allOf" {
				s.allOf = out
			} else {
				s.anyOf = out
			}
		default:
			// not, multipleOf, uniqueItems, or a keyword the rewriter
			// learns later: the library decides.
			s.unsupported = true
		}
	}
	s.hasObjKeys = len(s.props) > 0 || len(s.patProps) > 0 || s.addlFalse || s.addl != nil || len(s.required) > 0 || s.minProps >= 0 || s.maxProps >= 0
}

// exclusive reads exclusiveMinimum/Maximum: a number in 2020-12, a flag
// that makes minimum/maximum exclusive in draft 4.
func (c *fastCompiler) exclusive(s *fastSchema, m map[string]any, k string, val any) {
	var n *fastNumber
	if c.draft4 {
		flag, ok := val.(bool)
		if !ok {
			s.unsupported = true
			return
		}
		if !flag {
			return
		}
		other := "minimum"
		if k == "exclusiveMaximum" {
			other = "maximum"
		}
		n = bound(m[other])
	} else {
		n = bound(val)
	}
	if n == nil {
		s.unsupported = true
		return
	}
	if k == "exclusiveMinimum" {
		s.exMin = n
	} else {
		s.exMax = n
	}
}

func (c *fastCompiler) ref(ref string) *fastSchema {
	if s, ok := c.refs[ref]; ok {
		return s
	}
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if c.draft4 {
		name, ok = strings.CutPrefix(ref, "#/definitions/")
	}
	target, found := c.defs[name]
	if !ok || !found || strings.ContainsAny(name, "/~") {
		return &fastSchema{unsupported: true}
	}
	// Entered before it is compiled: a recursive schema refers to itself.
	s := &fastSchema{minLen: -1, maxLen: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1}
	c.refs[ref] = s
	*s = *c.schema(target, false)
	return s
}

func fastCount(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(string(n))
	return i, err == nil && i >= 0
}

func bound(v any) *fastNumber {
	n, ok := v.(json.Number)
	if !ok {
		return nil
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		return nil
	}
	b := &fastNumber{rat: r}
	if r.IsInt() && r.Num().IsInt64() {
		b.i, b.isInt = r.Num().Int64(), true
	}
	return b
}

// formatCheck is the library's own check of one format, read from a
// schema of that one keyword compiled as the answers' schemas are, so that
// the fast path asserts exactly what the library does; nil when the
// library asserts nothing for it. ok is false when that schema does not
// compile.
func formatCheck(name string, draft4 bool) (check func(any) error, ok bool) {
	formatMu.Lock()
	defer formatMu.Unlock()
	key := name
	if draft4 {
		key += "/4"
	}
	if s, ok := formats[key]; ok {
		return formatOf(s), s != nil
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	c.AssertFormat()
	if draft4 {
		c.DefaultDraft(jsonschema.Draft4)
	} else {
		c.DefaultDraft(jsonschema.Draft2020)
	}
	const url = "urn:restls:format"
	var s *jsonschema.Schema
	if err := c.AddResource(url, map[string]any{"format": name}); err == nil {
		s, _ = c.Compile(url)
	}
	formats[key] = s
	return formatOf(s), s != nil
}

func formatOf(s *jsonschema.Schema) func(any) error {
	if s == nil || s.Format == nil || s.Format.Name == "regex" {
		// "regex" goes to the library's regexp engine, not to
		// Format.Validate; the rewriter never asserts it.
		return nil
	}
	return s.Format.Validate
}

var (
	formatMu sync.Mutex
	formats  = map[string]*jsonschema.Schema{}
)

// ok reports whether v is proven valid against s.
func (s *fastSchema) ok(v any, depth int, run *fastRun) bool {
	run.steps++
	if s.unsupported || depth > maxFastDepth || run.steps > maxFastSteps {
		return false
	}
	if s.boolean != nil {
		return *s.boolean
	}
	if s.ref != nil {
		for _, r := range run.refs[run.base:] {
			if r == s.ref {
				return false
			}
		}
		run.refs = append(run.refs, s.ref)
		ok := s.ref.ok(v, depth+1, run)
		run.refs = run.refs[:len(run.refs)-1]
		if !ok {
			return false
		}
		if s.draft4Ref {
			return true
		}
	}
	switch v := v.(type) {
	case nil:
		if !s.typeOK("null") {
			return false
		}
	case bool:
		if !s.typeOK("boolean") {
			return false
		}
	case string:
		if !s.typeOK("string") || !s.str(v) {
			return false
		}
	case json.Number:
		if !s.num(v) {
			return false
		}
	case []any:
		if !s.typeOK("array") || !s.arr(v, depth, run) {
			return false
		}
	case map[string]any:
		if !s.typeOK("object") || !s.obj(v, depth, run) {
			return false
		}
	default:
		return false // not a value the decoder makes: the library decides
	}
	for _, list := range s.enums {
		if !inEnum(v, list) {
			return false
		}
	}
	for _, a := range s.allOf {
		if !a.ok(v, depth+1, run) {
			return false
		}
	}
	if len(s.anyOf) > 0 {
		found := false
		for _, a := range s.anyOf {
			if a.ok(v, depth+1, run) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func (s *fastSchema) typeOK(t string) bool {
	if len(s.types) == 0 {
		return true
	}
	for _, want := range s.types {
		if want == t {
			return true
		}
	}
	return false
}

func (s *fastSchema) str(v string) bool {
	if s.minLen >= 0 || s.maxLen >= 0 {
		n := utf8.RuneCountInString(v)
		if s.minLen >= 0 && n < s.minLen || s.maxLen >= 0 && n > s.maxLen {
			return false
		}
	}
	if s.pattern != nil && !s.pattern.MatchString(v) {
		return false
	}
	return s.format == nil || s.format(v) == nil
}

// num checks a number's type and bounds: with int64s when the number is
// a plain integer, else with big.Rat as the library does.
func (s *fastSchema) num(v json.Number) bool {
	i, isInt := plainInt(string(v))
	var r *big.Rat
	rat := func() *big.Rat {
		if r == nil {
			r, _ = new(big.Rat).SetString(string(v))
		}
		return r
	}
	if len(s.types) > 0 && !s.typeOK("number") {
		if !s.typeOK("integer") {
			return false
		}
		if !isInt && (rat() == nil || !rat().IsInt()) {
			return false
		}
	}
	cmp := func(b *fastNumber) (int, bool) {
		if isInt && b.isInt {
			switch {
			case i < b.i:
				return -1, true
			case i > b.i:
				return 1, true
			}
			return 0, true
		}
		if rat() == nil {
			return 0, false
		}
		return rat().Cmp(b.rat), true
	}
	for _, c := range [...]struct {
		b    *fastNumber
		pass func(int) bool
	}{
		{s.min, func(c int) bool { return c >= 0 }},
		{s.max, func(c int) bool { return c <= 0 }},
		{s.exMin, func(c int) bool { return c > 0 }},
		{s.exMax, func(c int) bool { return c < 0 }},
	} {
		if c.b == nil {
			continue
		}
		if n, ok := cmp(c.b); !ok || !c.pass(n) {
			return false
		}
	}
	return true
}

// plainInt reads a number written as an optional minus and at most 18
// digits (an int64 without overflow).
func plainInt(s string) (int64, bool) {
	d := strings.TrimPrefix(s, "-")
	if d == "" || len(d) > 18 {
		return 0, false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return 0, false
		}
	}
	i, err := strconv.ParseInt(s, 10, 64)
	return i, err == nil
}

func (s *fastSchema) arr(a []any, depth int, run *fastRun) bool {
	saved := run.base
	run.base = len(run.refs)
	defer func() { run.base = saved }()
	if s.minItems >= 0 && len(a) < s.minItems || s.maxItems >= 0 && len(a) > s.maxItems {
		return false
	}
	for i, e := range a {
		switch {
		case i < len(s.prefix):
			if !s.prefix[i].ok(e, depth+1, run) {
				return false
			}
		case s.items != nil: // 2020-12's items after prefixItems; draft 4's list leaves it nil
			if !s.items.ok(e, depth+1, run) {
				return false
			}
		}
	}
	return true
}

func (s *fastSchema) obj(m map[string]any, depth int, run *fastRun) bool {
	if !s.hasObjKeys {
		return true
	}
	if s.minProps >= 0 && len(m) < s.minProps || s.maxProps >= 0 && len(m) > s.maxProps {
		return false
	}
	for _, name := range s.required {
		if _, ok := m[name]; !ok {
			return false
		}
	}
	saved := run.base
	run.base = len(run.refs)
	defer func() { run.base = saved }()
	for k, v := range m {
		p, known := s.props[k]
		if known && !p.ok(v, depth+1, run) {
			return false
		}
		for _, pp := range s.patProps {
			if pp.re.MatchString(k) {
				known = true
				if !pp.s.ok(v, depth+1, run) {
					return false
				}
			}
		}
		if known {
			continue
		}
		if s.addlFalse || s.addl != nil && !s.addl.ok(v, depth+1, run) {
			return false
		}
	}
	return true
}

// inEnum reports whether v is one of the values, compared strictly (a
// number by its text): a value equal only as the library compares (1.0
// and 1) is left to the library.
func inEnum(v any, list []any) bool {
	for _, e := range list {
		if strictEqual(v, e, 0) {
			return true
		}
	}
	return false
}

func strictEqual(a, b any, depth int) bool {
	if depth > maxFastDepth {
		return false
	}
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	case json.Number:
		bn, ok := b.(json.Number)
		return ok && a == bn
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !strictEqual(a[i], bl[i], depth+1) {
				return false
			}
		}
		return true
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, av := range a {
			bv, ok := bm[k]
			if !ok || !strictEqual(av, bv, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}
