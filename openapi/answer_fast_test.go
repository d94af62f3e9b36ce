package openapi

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/restls/restls/internal/openapitest"
)

// schemaGen writes a schema, and a value to check against it, from fuzz
// bytes: the keywords the rewriter keeps and those the fast path leaves to
// the library (not, multipleOf, uniqueItems), in OpenAPI 3.0's and 3.1's
// forms, with $refs (recursive ones too) to one component.
type schemaGen struct {
	b    []byte
	i    int
	v31  bool
	size int
}

func (g *schemaGen) next() int {
	if g.i >= len(g.b) {
		return 0
	}
	c := g.b[g.i]
	g.i++
	return int(c)
}

var (
	genNames    = []string{"a", "b", "c", "x1"}
	genTypes    = []string{"null", "boolean", "object", "array", "number", "string", "integer"}
	genFormats  = []string{"date", "date-time", "uuid", "email", "uri", "int32"}
	genPatterns = []string{"^a", "[0-9]+$", "^(?!x)", "b"}
	genScalars  = []string{`null`, `true`, `false`, `0`, `1`, `-3`, `1.0`, `2.5`, `1e2`, `99999999999999999999`,
		`"a"`, `"ab"`, `"abc"`, `"2024-01-02"`, `"2024-01-02T03:04:05Z"`, `"https://x.test/a"`, `"x/y"`,
		`"0b8c1f7e-3c2d-4e5f-8a9b-0c1d2e3f4a5b"`, `"me@x.test"`, `"12"`, `"é"`}
)

func (g *schemaGen) schema(depth int) string {
	g.size++
	if depth > 4 || g.size > 40 {
		return `{}`
	}
	n := g.next() % 4
	if n == 0 {
		switch g.next() % 4 {
		case 0:
			return `{"$ref":"#/components/schemas/X"}`
		case 1:
			if g.v31 {
				return []string{"true", "false"}[g.next()%2]
			}
		}
	}
	var parts []string
	for range n + 1 {
		parts = append(parts, g.keyword(depth))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func (g *schemaGen) keyword(depth int) string {
	pick := func(list []string) string { return list[g.next()%len(list)] }
	num := func() string { return pick([]string{"0", "1", "2", "-1", "2.5", "10"}) }
	list := func() string {
		var out []string
		for range g.next()%3 + 1 {
			out = append(out, g.schema(depth+1))
		}
		return "[" + strings.Join(out, ",") + "]"
	}
	switch g.next() % 24 {
	case 0, 1:
		if g.v31 && g.next()%2 == 0 {
			return `"type":["` + pick(genTypes) + `","` + pick(genTypes) + `"]`
		}
		return `"type":"` + pick(genTypes) + `"`
	case 2:
		return `"enum":[` + pick(genScalars) + `,` + pick(genScalars) + `]`
	case 3:
		return `"format":"` + pick(genFormats) + `"`
	case 4:
		p, _ := json.Marshal(pick(genPatterns))
		return `"pattern":` + string(p)
	case 5:
		return `"` + pick([]string{"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"}) + `":` + strconv.Itoa(g.next()%4)
	case 6:
		return `"minimum":` + num()
	case 7:
		return `"maximum":` + num()
	case 8:
		if g.v31 {
			return `"exclusiveMinimum":` + num()
		}
		return `"minimum":` + num() + `,"exclusiveMinimum":true`
	case 9:
		if g.v31 {
			return `"exclusiveMaximum":` + num()
		}
		return `"maximum":` + num() + `,"exclusiveMaximum":` + pick([]string{"true", "false"})
	case 10:
		return `"multipleOf":` + pick([]string{"2", "0.5"})
	case 11:
		return `"uniqueItems":true`
	case 12:
		return `"required":["` + pick(genNames) + `","` + pick(genNames) + `"]`
	case 13, 14:
		var props []string
		for range g.next()%3 + 1 {
			props = append(props, `"`+pick(genNames)+`":`+g.schema(depth+1))
		}
		return `"properties":{` + strings.Join(props, ",") + `}`
	case 15:
		if g.next()%2 == 0 {
			return `"additionalProperties":` + pick([]string{"true", "false"})
		}
		return `"additionalProperties":` + g.schema(depth+1)
	case 16:
		return `"patternProperties":{"^x":` + g.schema(depth+1) + `}`
	case 17, 18:
		if g.next()%3 == 0 {
			if g.v31 {
				return `"prefixItems":` + list()
			}
			return `"items":` + list()
		}
		return `"items":` + g.schema(depth+1)
	case 19:
		return `"` + pick([]string{"allOf", "anyOf", "oneOf"}) + `":` + list()
	case 20:
		return `"not":` + g.schema(depth+1)
	case 21:
		if g.v31 {
			return `"const":` + pick(genScalars)
		}
		return `"nullable":true`
	case 22:
		return `"` + pick([]string{"readOnly", "writeOnly"}) + `":true`
	default:
		return `"$ref":"#/components/schemas/X"`
	}
}

func (g *schemaGen) value(depth int) string {
	switch k := g.next() % 8; {
	case depth > 4 || k < 4:
		return genScalars[g.next()%len(genScalars)]
	case k < 6:
		var out []string
		for range g.next() % 4 {
			out = append(out, g.value(depth+1))
		}
		return "[" + strings.Join(out, ",") + "]"
	default:
		var out []string
		for range g.next() % 4 {
			out = append(out, `"`+genNames[g.next()%len(genNames)]+`":`+g.value(depth+1))
		}
		return "{" + strings.Join(out, ",") + "}"
	}
}

// answerDoc is a description whose GET /x answers 200 with schema, X
// being component.
func answerDoc(v31 bool, schema, component string) string {
	version := "3.0.3"
	if v31 {
		version = "3.1.0"
	}
	return `{"openapi":"` + version + `","paths":{"/x":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":` +
		schema + `}}}}}}},"components":{"schemas":{"X":` + component + `}}}`
}

func decodeNumber(t testing.TB, s string) any {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

// FuzzAnswerFast holds the fast path of answer checks to the library: a
// value it proves valid, the library finds valid.
func FuzzAnswerFast(f *testing.F) {
	for _, seed := range []string{"", "\x01\x02\x03", "\x03\x0d\x01\x00\x02\x05\x06", "\x02\x13\x01\x0e\x00\x07\x05",
		"\x01\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a", "\x03\x01\x0d\x02\x0e\x01\x15\x00\x06\x06\x07\x07"} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, v31 bool) {
		g := &schemaGen{b: data, v31: v31}
		schema, component := g.schema(0), g.schema(1)
		doc := answerDoc(v31, schema, component)
		idx, err := BuildAnswers("x.json", []byte(doc))
		if err != nil || len(idx.Ops) == 0 {
			return
		}
		a, ok := idx.Ops[0].documented(200)
		if !ok || a.raw.n == nil {
			return
		}
		lib, fast, _ := idx.answerValidator(rawSchema{n: a.raw.n, param: a.raw.param, answer: true})
		if lib == nil || fast == nil {
			return
		}
		for range 4 {
			text := g.value(0)
			v := decodeNumber(t, text)
			if fast.valid(v) {
				if err := lib.Validate(v); err != nil {
					t.Fatalf("the fast path proves %s valid against %s, the library finds %v", text, doc, err)
				}
			}
		}
	})
}

// TestAnswerFastTaken: the fast path proves the valid answers of the
// usual shapes valid, so the library's walk is skipped for them, and
// leaves the invalid ones to the library (whose findings TestCheckAnswer
// holds).
func TestAnswerFastTaken(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		v31       bool
		schema    string
		component string
		valid     []string
		invalid   []string
	}{
		{"3.1 objects", true, `{"type":"array","items":{"$ref":"#/components/schemas/X"}}`,
			`{"type":"object","required":["id"],"properties":{"id":{"type":"integer","minimum":0},"name":{"type":["string","null"],"maxLength":3},
				"state":{"enum":["open","closed"]},"at":{"type":"string","format":"date-time"},"url":{"type":"string","format":"uri"},
				"tags":{"type":"array","prefixItems":[{"const":"first"}],"items":{"type":"string","pattern":"^[a-z]+$"}},
				"price":{"type":"number","exclusiveMinimum":0.5},"next":{"$ref":"#/components/schemas/X"}},"additionalProperties":false}`,
			[]string{`[]`, `[{"id":0}]`, `[{"id":7,"name":"ab","state":"open","at":"2024-01-02T03:04:05Z","url":"https://x.test/a","tags":["first","ab"],"price":0.75,"next":{"id":2,"name":null}}]`,
				`[{"id":1.0}]`, `[{"id":12345678901234567890}]`},
			[]string{`{}`, `[{}]`, `[{"id":-1}]`, `[{"id":1.5}]`, `[{"id":1,"name":"abcd"}]`, `[{"id":1,"state":"gone"}]`, `[{"id":1,"at":"yesterday"}]`,
				`[{"id":1,"url":"x/y"}]`, `[{"id":1,"tags":["second"]}]`, `[{"id":1,"tags":["first","A"]}]`, `[{"id":1,"price":0.5}]`,
				`[{"id":1,"next":{}}]`, `[{"id":1,"extra":true}]`}},
		{"3.0 nullable, allOf, oneOf, exclusive flags", false, `{"$ref":"#/components/schemas/X"}`,
			`{"allOf":[{"type":"object","properties":{"n":{"type":"integer","minimum":1,"exclusiveMinimum":true,"nullable":true}}},
				{"oneOf":[{"required":["n"]},{"required":["m"]}]}],"properties":{"w":{"type":"string","writeOnly":true}},"required":["w"]}`,
			[]string{`{"n":2}`, `{"n":null}`, `{"m":"x"}`},
			[]string{`{"n":1}`, `{"x":1}`, `{"n":"2"}`, `[]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			idx, err := BuildAnswers("x.json", []byte(answerDoc(tc.v31, tc.schema, tc.component)))
			if err != nil {
				t.Fatal(err)
			}
			a, _ := idx.Ops[0].documented(200)
			lib, fast, _ := idx.answerValidator(rawSchema{n: a.raw.n, param: a.raw.param, answer: true})
			if lib == nil || fast == nil {
				t.Fatalf("no validator (%v) or fast path (%v)", lib, fast)
			}
			for _, text := range tc.valid {
				v := decodeNumber(t, text)
				if err := lib.Validate(v); err != nil {
					t.Fatalf("%s: the library finds %v", text, err)
				}
				if !fast.valid(v) {
					t.Errorf("%s: valid, but the fast path leaves it to the library", text)
				}
			}
			for _, text := range tc.invalid {
				v := decodeNumber(t, text)
				if fast.valid(v) {
					t.Errorf("%s: invalid, but the fast path proves it valid", text)
				}
				if len(idx.CheckAnswer(idx.Ops[0], 200, v, true)) == 0 {
					t.Errorf("%s: invalid, but CheckAnswer finds nothing", text)
				}
			}
		})
	}
}

// TestGitHubAnswerFast holds the fast path to the library on a real
// description: every documented answer of GitHub's, checked with its own
// example and with the fixture value AnswerExample builds. A value the
// fast path proves valid, the library finds valid; and the fast path
// proves most of the valid ones (else it is no faster).
func TestGitHubAnswerFast(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(openapitest.GitHub(t))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := BuildAnswers("api.github.com.json", data)
	if err != nil {
		t.Fatal(err)
	}
	checked, libValid, proven := 0, 0, 0
	check := func(op *Operation, a answerRaw, body []byte) {
		v, ok := decodeNumbers(body)
		if !ok {
			return
		}
		lib, fast, _ := idx.answerValidator(rawSchema{n: a.raw.n, param: a.raw.param, answer: true})
		if lib == nil || fast == nil {
			return
		}
		checked++
		valid := lib.Validate(v) == nil
		if valid {
			libValid++
		}
		if fast.valid(v) {
			proven++
			if !valid {
				t.Errorf("%s %s %s: the fast path proves %.200s valid, the library does not", op.Method, op.Path, a.status, body)
			}
		}
	}
	for _, op := range idx.Ops {
		for _, a := range op.answers {
			if a.raw.n == nil || a.example == nil {
				continue
			}
			var b bytes.Buffer
			g := exampleGen{}
			g.literal(&b, a.example, 0)
			if g.left == 0 {
				check(op, a, b.Bytes())
			}
		}
		if ex := idx.AnswerExample(op); ex.Body != nil {
			status, body := ex.Status, ex.Body
			if a, ok := op.documented(status); ok && a.raw.n != nil {
				check(op, a, body)
			}
		}
	}
	t.Logf("%d answers checked, %d valid, %d proven valid by the fast path", checked, libValid, proven)
	if checked < 1000 || proven*100 < libValid*95 {
		t.Errorf("the fast path proves %d of %d valid answers (of %d)", proven, libValid, checked)
	}
}

// TestAnswerFastLongPattern: a pattern past MaxPattern is checked by
// neither path (compilePattern): both find the answer valid.
func TestAnswerFastLongPattern(t *testing.T) {
	t.Parallel()
	long := "^(" + strings.Repeat("a|", MaxPattern/2) + "b)$"
	schema := `{"type":"object","properties":{"s":{"type":"string","pattern":` + strconv.Quote(long) + `}}}`
	idx, err := BuildAnswers("x.json", []byte(answerDoc(true, schema, `{}`)))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := idx.Ops[0].documented(200)
	_, fast, _ := idx.answerValidator(rawSchema{n: a.raw.n, param: a.raw.param, answer: true})
	if fast == nil {
		t.Fatal("no fast path")
	}
	v := decodeNumber(t, `{"s":"zzz"}`)
	if !fast.valid(v) {
		t.Error("the fast path checked a pattern past MaxPattern")
	}
	if got := idx.CheckAnswer(idx.Ops[0], 200, v, true); len(got) != 0 {
		t.Errorf("the library checked a pattern past MaxPattern: %v", got)
	}
}
