package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Fixtures from the description (issue 27): a fixture for a call is the
// operation's first documented success with its example, else a minimal
// value built from the answer's schema. Only an index built by
// BuildAnswers keeps what this needs.

// Bounds of a generated value. Every step of the generator is charged
// to maxExampleSteps: a value or schema written, a part of an allOf, a
// property or a required name read; and the value stops growing past
// maxExampleBytes (a fixture file holds 16 MiB). Before issue 33 only the values
// written were counted, so an allOf of n parts each requiring its own
// property took n*n lookups per object, again at each level a $ref
// brought it back: minutes of CPU from a repository's description.
const (
	maxExampleDepth = 32
	maxExampleSteps = 100_000
	maxExampleBytes = 1 << 20
	maxExampleItems = 16
	maxExampleLen   = 1024
)

// mediaExample is a media type's example: example, else the value of
// its first examples entry ($ref followed).
func (b *builder) mediaExample(mt *node) *node {
	if ex := mt.get("example"); ex != nil {
		return ex
	}
	if exs := mt.get("examples"); exs != nil && exs.kind == kObject {
		for _, v := range exs.vals {
			if v = b.deref(v); v != nil {
				if val := v.get("value"); val != nil {
					return val
				}
			}
		}
	}
	return nil
}

// Example is the answer a fixture for an operation gives (AnswerExample).
type Example struct {
	// Status is the first documented 2XX status (200 for a class or
	// default).
	Status int
	// Body is the JSON body; nil when the answer has no JSON schema.
	Body json.RawMessage
	// Cut says what Body leaves out when the schema was too large or
	// too deep to build whole within the generator's budget; "" when it
	// is whole.
	Cut string
}

// AnswerExample is the answer a fixture for op gives: the first
// documented 2XX status and its JSON body, from the description's
// example when it holds to the schema, else a minimal value built from
// the schema, within maxExampleSteps (Example.Cut says what was left
// out). A schema with a pattern or a not may defeat the minimal value:
// the body is not checked against it.
func (idx *Index) AnswerExample(op *Operation) Example {
	return idx.answerExample(op, maxExampleSteps)
}

// answerExample is AnswerExample within steps (the fuzz target's smaller
// budget runs the same walk in less time).
func (idx *Index) answerExample(op *Operation, steps int) Example {
	if idx == nil || op == nil {
		return Example{Status: 200}
	}
	var a *answerRaw
	for i := range op.answers {
		if strings.HasPrefix(op.answers[i].status, "2") {
			a = &op.answers[i]
			break
		}
	}
	if a == nil {
		for i := range op.answers {
			if op.answers[i].status == "default" {
				a = &op.answers[i]
			}
		}
	}
	if a == nil {
		return Example{Status: 200}
	}
	ex := Example{Status: 200}
	if n, err := strconv.Atoi(a.status); err == nil {
		ex.Status = n
	}
	return idx.example(op, a, ex, steps)
}

// ErrorExamples are the answers of op's documented statuses outside 2XX
// (a status code, not a class such as 4XX or default), in the
// description's order, each with its JSON body as AnswerExample builds
// one (the example when it holds to the schema, else a minimal value),
// nil when the answer has no JSON schema: the failures the fault
// explorer answers a call with (issue 36).
func (idx *Index) ErrorExamples(op *Operation) []Example {
	if idx == nil || op == nil {
		return nil
	}
	var out []Example
	for i := range op.answers {
		a := &op.answers[i]
		n, err := strconv.Atoi(a.status)
		if err != nil || n < 300 || n > 599 {
			continue
		}
		out = append(out, idx.example(op, a, Example{Status: n}, maxExampleSteps))
	}
	return out
}

// example is ex with the body of answer a: its example when it holds to
// the schema, else a minimal value of the schema within steps.
func (idx *Index) example(op *Operation, a *answerRaw, ex Example, steps int) Example {
	if a.example != nil {
		var b bytes.Buffer
		g := exampleGen{out: &b, budget: steps}
		g.literal(&b, a.example, 0)
		if g.left == 0 && (a.raw.n == nil || idx.holds(op, ex.Status, b.Bytes())) {
			ex.Body = b.Bytes()
			return ex
		}
	}
	if a.raw.n == nil {
		return ex
	}
	g := exampleGen{budget: steps}
	if idx.valid != nil {
		g.refs = idx.valid.refs
	}
	var b bytes.Buffer
	g.out = &b
	g.schema(&b, a.raw.n, 0)
	ex.Body = b.Bytes()
	ex.Cut = g.cutText()
	return ex
}

// holds reports whether body holds to op's answer schema for status.
func (idx *Index) holds(op *Operation, status int, body []byte) bool {
	v, ok := decodeNumbers(body)
	return ok && len(idx.CheckAnswer(op, status, v, true)) == 0
}

func decodeNumbers(b []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	return v, dec.Decode(&v) == nil
}

// exampleGen writes JSON values, bounded: steps counts every step
// (maxExampleSteps); once over, nothing more is added. A value deeper
// than maxExampleDepth is left out alone. What is left out is counted
// (left) with where the first of it is (at).
type exampleGen struct {
	refs   map[string]*node
	out    *bytes.Buffer // the value written, for maxExampleBytes
	budget int           // steps allowed; 0 for maxExampleSteps
	steps  int
	over   bool
	why    string   // why over
	deep   bool     // a value was left out for its depth
	left   int      // values left out
	at     string   // where the first was left out, in the body
	path   []string // where the generator is, in the body
}

// charge counts n steps and reports whether the budget still holds.
func (g *exampleGen) charge(n int) bool {
	if g.over {
		return false
	}
	g.steps += n
	switch {
	case g.steps > g.allowed():
		g.over = true
		g.why = fmt.Sprintf("the schema takes more than %d steps to build", g.allowed())
	case g.out != nil && g.out.Len() > maxExampleBytes:
		g.over = true
		g.why = fmt.Sprintf("the value would be larger than %d KiB", maxExampleBytes>>10)
	}
	return !g.over
}

func (g *exampleGen) allowed() int {
	if g.budget > 0 {
		return g.budget
	}
	return maxExampleSteps
}

// count charges a value written at depth, and reports whether it may
// be; a value it may not write is one left out.
func (g *exampleGen) count(depth int) bool {
	if depth > maxExampleDepth {
		g.deep = true
		g.leave(1)
		return false
	}
	if !g.charge(1) {
		g.leave(1)
		return false
	}
	return true
}

// leave counts n values left out; the first gives the place.
func (g *exampleGen) leave(n int) {
	if g.left == 0 {
		g.at = "body" + strings.Join(g.path, "")
	}
	g.left += n
}

// cutText says what the value leaves out, or "" when it is whole.
func (g *exampleGen) cutText() string {
	if g.left == 0 {
		return ""
	}
	var why []string
	if g.over {
		why = append(why, g.why)
	}
	if g.deep {
		why = append(why, fmt.Sprintf("it nests deeper than %d levels", maxExampleDepth))
	}
	return fmt.Sprintf("the body is cut (%s): %d value(s) left out, the first at %s; complete the fixture by hand, or give the answer an example", strings.Join(why, "; "), g.left, g.at)
}

func (g *exampleGen) push(key string) { g.path = append(g.path, key) }
func (g *exampleGen) pop()            { g.path = g.path[:len(g.path)-1] }

// literal writes a description's value (an example, an enum value).
func (g *exampleGen) literal(b *bytes.Buffer, n *node, depth int) {
	if n == nil || !g.count(depth) {
		b.WriteString("null")
		return
	}
	switch n.kind {
	case kString:
		s, _ := json.Marshal(n.str)
		b.Write(s)
	case kNumber:
		if safeNumber(n) {
			b.WriteString(n.str)
		} else {
			b.WriteString("0")
		}
	case kBool:
		b.WriteString(n.str)
	case kArray:
		b.WriteByte('[')
		for i, v := range n.vals {
			if g.over {
				g.leave(len(n.vals) - i)
				break
			}
			if i > 0 {
				b.WriteByte(',')
			}
			g.push("[" + strconv.Itoa(i) + "]")
			g.literal(b, v, depth+1)
			g.pop()
		}
		b.WriteByte(']')
	case kObject:
		b.WriteByte('{')
		for i, k := range n.keys {
			if g.over {
				g.leave(len(n.keys) - i)
				break
			}
			if i > 0 {
				b.WriteByte(',')
			}
			s, _ := json.Marshal(k)
			b.Write(s)
			b.WriteByte(':')
			g.push("." + k)
			g.literal(b, n.vals[i], depth+1)
			g.pop()
		}
		b.WriteByte('}')
	default:
		b.WriteString("null")
	}
}

func (g *exampleGen) deref(n *node) *node {
	for i := 0; n != nil && i < 16; i++ {
		ref := n.text("$ref")
		if ref == "" {
			return n
		}
		if !g.charge(1) {
			return nil
		}
		n = g.refs[ref]
	}
	return nil
}

// schema writes a minimal value of schema n: its example, const, first
// enum value or default, else the least its type and bounds take.
func (g *exampleGen) schema(b *bytes.Buffer, n *node, depth int) {
	n = g.deref(n)
	if g.over {
		g.leave(1)
		b.WriteString("null")
		return
	}
	if n == nil || n.kind != kObject || !g.count(depth) {
		b.WriteString("{}")
		return
	}
	for _, k := range []string{"example", "const", "default"} {
		if v := n.get(k); v != nil {
			g.literal(b, v, depth+1)
			return
		}
	}
	if e := n.get("enum"); e != nil && e.kind == kArray && len(e.vals) > 0 {
		g.literal(b, e.vals[0], depth+1)
		return
	}
	if all := n.get("allOf"); all != nil && all.kind == kArray && len(all.vals) > 0 {
		g.allOf(b, n, all.vals, depth)
		return
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		if alt := n.get(k); alt != nil && alt.kind == kArray && len(alt.vals) > 0 {
			pick := alt.vals[0]
			for _, v := range alt.vals {
				if !g.charge(1) {
					break
				}
				if d := g.deref(v); d != nil && d.text("type") != "null" {
					pick = v
					break
				}
			}
			g.schema(b, pick, depth+1)
			return
		}
	}
	switch schemaType(n) {
	case "object":
		g.object(b, []*node{n}, depth)
	case "array":
		k := 0
		if m, ok := intOf(n.get("minItems")); ok {
			k = min(m, maxExampleItems)
		}
		b.WriteByte('[')
		for i := range k {
			if g.over {
				g.leave(k - i)
				break
			}
			if i > 0 {
				b.WriteByte(',')
			}
			g.push("[" + strconv.Itoa(i) + "]")
			g.schema(b, n.get("items"), depth+1)
			g.pop()
		}
		b.WriteByte(']')
	case "string":
		b.WriteString(stringExample(n))
	case "integer", "number":
		b.WriteString(numberExample(n))
	case "boolean":
		b.WriteString("false")
	case "null":
		b.WriteString("null")
	default:
		b.WriteString("{}")
	}
}

// allOf writes an object that has the properties every part requires,
// or the first part's value when no part is an object.
func (g *exampleGen) allOf(b *bytes.Buffer, n *node, parts []*node, depth int) {
	objs := []*node{n}
	for _, p := range parts {
		if !g.charge(1) {
			break
		}
		if d := g.deref(p); d != nil && d.kind == kObject {
			if schemaType(d) == "object" {
				objs = append(objs, d)
			}
			if inner := d.get("allOf"); inner != nil && inner.kind == kArray && depth < maxExampleDepth {
				for _, q := range inner.vals {
					if !g.charge(1) {
						break
					}
					if dq := g.deref(q); dq != nil && schemaType(dq) == "object" {
						objs = append(objs, dq)
					}
				}
			}
		}
	}
	if g.over {
		g.leave(1)
		b.WriteString("{}")
		return
	}
	if len(objs) == 1 {
		g.schema(b, parts[0], depth+1)
		return
	}
	g.object(b, objs, depth)
}

// object writes the required properties of the schemas objs, each once,
// with the schema the first of objs that defines it gives. The
// properties are read once into a map: looking each required name up
// in every part was the quadratic walk of issue 33.
func (g *exampleGen) object(b *bytes.Buffer, objs []*node, depth int) {
	b.WriteByte('{')
	defer b.WriteByte('}')
	props := map[string]*node{}
	for _, o := range objs {
		p := o.get("properties")
		if p == nil || p.kind != kObject || !g.charge(1+len(p.keys)) {
			continue
		}
		for i, k := range p.keys {
			if _, ok := props[k]; !ok {
				props[k] = p.vals[i]
			}
		}
	}
	seen := map[string]bool{}
	for _, o := range objs {
		req := o.get("required")
		if req == nil || req.kind != kArray {
			continue
		}
		for _, r := range req.vals {
			if r.kind != kString || seen[r.str] {
				continue
			}
			seen[r.str] = true
			if !g.charge(1) {
				g.leave(1)
				continue // counted, not written
			}
			if len(seen) > 1 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(r.str)
			b.Write(k)
			b.WriteByte(':')
			prop := props[r.str]
			if prop == nil {
				b.WriteString(`""`)
				continue
			}
			g.push("." + r.str)
			g.schema(b, prop, depth+1)
			g.pop()
		}
	}
}

// schemaType is a schema's type: the first of a list that is not null,
// else what its keys say (properties: object, items: array).
func schemaType(n *node) string {
	t := n.get("type")
	switch {
	case t != nil && t.kind == kString:
		return t.str
	case t != nil && t.kind == kArray:
		for _, v := range t.vals {
			if v.kind == kString && v.str != "null" {
				return v.str
			}
		}
		return "null"
	case n.get("properties") != nil || n.get("required") != nil:
		return "object"
	case n.get("items") != nil:
		return "array"
	}
	return ""
}

func intOf(n *node) (int, bool) {
	if n == nil || n.kind != kNumber {
		return 0, false
	}
	f, err := strconv.ParseFloat(n.str, 64)
	if err != nil || f < 0 || f > 1e6 {
		return 0, false
	}
	return int(f), true
}

var formatExamples = map[string]string{
	"date": "2024-01-31", "date-time": "2024-01-31T12:00:00Z", "uuid": "00000000-0000-4000-8000-000000000000",
	"email": "user@example.com", "uri": "https://example.com/", "hostname": "example.com", "ipv4": "192.0.2.1",
}

func stringExample(n *node) string {
	s := formatExamples[n.text("format")]
	if m, ok := intOf(n.get("minLength")); ok && len(s) < m {
		s += strings.Repeat("x", min(m, maxExampleLen)-len(s))
	}
	out, _ := json.Marshal(s)
	return string(out)
}

// numberExample is 0, or the bound nearest to it that the schema allows.
func numberExample(n *node) string {
	isInt := n.text("type") == "integer"
	bound := func(key, exKey string, up bool) (float64, bool) {
		v := n.get(key)
		excl := false
		if e := n.get(exKey); e != nil && e.kind == kNumber {
			v, excl = e, true // 3.1: exclusiveMinimum is the bound
		} else if e != nil && e.kind == kBool && e.str == "true" {
			excl = true // 3.0: a flag on minimum
		}
		if v == nil || v.kind != kNumber {
			return 0, false
		}
		f, err := strconv.ParseFloat(v.str, 64)
		if err != nil {
			return 0, false
		}
		if excl {
			step := 1.0
			if !isInt {
				step = 0.5
			}
			if up {
				f += step
			} else {
				f -= step
			}
		}
		return f, true
	}
	x := 0.0
	if lo, ok := bound("minimum", "exclusiveMinimum", true); ok && lo > x {
		x = lo
	}
	if hi, ok := bound("maximum", "exclusiveMaximum", false); ok && hi < x {
		x = hi
	}
	if isInt {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}
