package hints

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/dop251/goja"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/restls/restls/openapi"
)

// The differential fuzz target of the value checks: for a generated
// schema and literal, the hints report a value finding exactly when
// santhosh-tekuri/jsonschema, given the same schema, rejects the value the
// call sends. The payload sent is what goja's JSON.stringify makes of the
// literal (so the literal reader is held to JavaScript), and a query
// value is read as the service reads its parameter's one type.

// valueCodes are the codes of the value checks.
var valueCodes = map[string]bool{
	CodeOpenAPIEnum: true, CodeOpenAPIType: true, CodeOpenAPIFormat: true, CodeOpenAPIPattern: true,
	CodeOpenAPILength: true, CodeOpenAPIRange: true, CodeOpenAPIUnknownField: true, CodeOpenAPIValue: true,
	CodeOpenAPIMissingField: true,
}

// gen draws choices from the fuzzer's bytes; past their end, zeros.
type gen struct {
	b []byte
	i int
}

func (g *gen) n(k int) int {
	if k <= 1 {
		return 0
	}
	if g.i >= len(g.b) {
		return 0
	}
	v := int(g.b[g.i])
	g.i++
	return v % k
}

var (
	fuzzKeys     = []string{"a", "b", "name", "x-y", "0", "é"}
	fuzzStrings  = []string{"", "a", "abc", "ABC", "2024-01-31", "2024-02-30", "2024-01-31T10:00:00Z", "123e4567-e89b-12d3-a456-426614174000", "a@b.test", "https://x.test/p", "/rel", "12", "1.5", "-3", "true", "x\"y", "\u00e9t\u00e9", "line\nbreak", "1e400", ".5", "+7", "0x10", "Inf"}
	fuzzNumbers  = []string{"0", "1", "-1", "2.5", "10", "1e1", "1.0", "0.1", "-0", "100", "3", "1e21", "7e-1", "0.30000000000000004"}
	fuzzPatterns = []string{"^[a-z]+$", `^\d{2}$`, "b", "^$", "^(a|b)c?$"}
	fuzzFormats  = []string{"date", "date-time", "uuid", "email", "uri"}
	fuzzTypes    = []string{"string", "integer", "number", "boolean", "object", "array", "null"}
)

// schema generates a schema in 2020-12 form of the keywords the checks
// hand to the validator as they are (no oneOf, nullable or readOnly,
// which are rewritten).
func (g *gen) schema(depth int) map[string]any {
	s := map[string]any{}
	t := fuzzTypes[g.n(len(fuzzTypes))]
	switch g.n(4) {
	case 0:
	case 1:
		s["type"] = []any{t, fuzzTypes[g.n(len(fuzzTypes))]}
	default:
		s["type"] = t
	}
	for range g.n(4) {
		switch g.n(14) {
		case 0:
			s["enum"] = []any{g.value(1), g.value(1)}
		case 1:
			s["const"] = g.value(1)
		case 2:
			s["format"] = fuzzFormats[g.n(len(fuzzFormats))]
		case 3:
			s["pattern"] = fuzzPatterns[g.n(len(fuzzPatterns))]
		case 4:
			s["minLength"] = g.n(4)
			s["maxLength"] = g.n(6)
		case 5:
			s["minimum"] = json.Number(fuzzNumbers[g.n(len(fuzzNumbers))])
		case 6:
			s["maximum"] = json.Number(fuzzNumbers[g.n(len(fuzzNumbers))])
		case 7:
			s["exclusiveMinimum"] = json.Number(fuzzNumbers[g.n(len(fuzzNumbers))])
		case 8:
			s["multipleOf"] = json.Number([]string{"1", "2", "0.5", "3"}[g.n(4)])
		case 9:
			if depth < 3 {
				props := map[string]any{}
				for range g.n(3) + 1 {
					props[fuzzKeys[g.n(len(fuzzKeys))]] = g.schema(depth + 1)
				}
				s["properties"] = props
			}
		case 10:
			s["required"] = []any{fuzzKeys[g.n(len(fuzzKeys))], fuzzKeys[g.n(len(fuzzKeys))]}
		case 11:
			if g.n(2) == 0 || depth >= 3 {
				s["additionalProperties"] = false
			} else {
				s["additionalProperties"] = g.schema(depth + 1)
			}
		case 12:
			if depth < 3 {
				s["items"] = g.schema(depth + 1)
			}
			s["minItems"] = g.n(2)
			s["uniqueItems"] = g.n(2) == 0
		case 13:
			if depth < 3 {
				key := []string{"anyOf", "allOf", "not"}[g.n(3)]
				if key == "not" {
					s[key] = g.schema(depth + 1)
				} else {
					s[key] = []any{g.schema(depth + 1), g.schema(depth + 1)}
				}
			}
		}
	}
	if rq, ok := s["required"].([]any); ok && rq[0] == rq[1] {
		s["required"] = rq[:1]
	}
	return s
}

// value generates a JSON value.
func (g *gen) value(depth int) any {
	k := g.n(7)
	if depth > 3 {
		k %= 4
	}
	switch k {
	case 0:
		return fuzzStrings[g.n(len(fuzzStrings))]
	case 1:
		return json.Number(fuzzNumbers[g.n(len(fuzzNumbers))])
	case 2:
		return g.n(2) == 0
	case 3:
		return nil
	case 4, 5:
		obj := map[string]any{}
		for range g.n(4) {
			obj[fuzzKeys[g.n(len(fuzzKeys))]] = g.value(depth + 1)
		}
		return obj
	}
	arr := []any{}
	for range g.n(4) {
		arr = append(arr, g.value(depth+1))
	}
	return arr
}

// literal writes v as JavaScript, in one of several spellings.
func (g *gen) literal(v any) string {
	switch v := v.(type) {
	case string:
		if g.n(3) == 0 && !strings.ContainsAny(v, "`\\$\r") {
			return "`" + v + "`"
		}
		b, _ := json.Marshal(v)
		if g.n(2) == 0 && !strings.ContainsAny(v, "'\"\\\n\r\u2028\u2029") {
			return "'" + v + "'"
		}
		return string(b)
	case json.Number:
		f, _ := strconv.ParseFloat(string(v), 64)
		switch g.n(3) {
		case 1:
			return strconv.FormatFloat(f, 'e', -1, 64)
		case 2:
			if f < 0 {
				return "-" + strconv.FormatFloat(-f, 'f', -1, 64)
			}
		}
		return string(v)
	case bool:
		return strconv.FormatBool(v)
	case nil:
		return "null"
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			key := jsKey(k)
			if g.n(4) == 0 {
				key = strconv.Quote(k)
			}
			parts[i] = key + ": " + g.literal(v[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = g.literal(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return "null"
}

// paramSchema generates a parameter's schema: one scalar type, so the
// service's reading of the text is the one the type names.
func (g *gen) paramSchema() map[string]any {
	t := []string{"string", "integer", "number", "boolean"}[g.n(4)]
	s := map[string]any{"type": t}
	switch g.n(6) {
	case 0:
		switch t {
		case "string":
			s["enum"] = []any{fuzzStrings[g.n(len(fuzzStrings))], fuzzStrings[g.n(len(fuzzStrings))]}
		case "boolean":
			s["enum"] = []any{true}
		default:
			s["enum"] = []any{json.Number(fuzzNumbers[g.n(len(fuzzNumbers))]), json.Number("1")}
		}
	case 1:
		s["minimum"] = json.Number(fuzzNumbers[g.n(len(fuzzNumbers))])
	case 2:
		s["maximum"] = json.Number(fuzzNumbers[g.n(len(fuzzNumbers))])
	case 3:
		if t == "string" {
			s["pattern"] = fuzzPatterns[g.n(len(fuzzPatterns))]
		}
	case 4:
		if t == "string" {
			s["format"] = fuzzFormats[g.n(len(fuzzFormats))]
		}
	}
	return s
}

// wireDigits is what the reference lets a service read as a number:
// Go's float parser on text of digits, signs, points and exponents only
// (no hex, Inf, NaN or underscores).
var wireDigits = regexp.MustCompile(`^[0-9+\-.eE]+$`)

// readParam is the reference reading of a query value: the parameter's
// type decides, as a service binding it does.
func readParam(text, typ string) (any, bool) {
	switch typ {
	case "integer", "number":
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || !wireDigits.MatchString(text) || math.IsInf(f, 0) {
			return nil, false
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), true
	case "boolean":
		switch text {
		case "true":
			return true, true
		case "false":
			return false, true
		}
		return nil, false
	}
	return text, true
}

func FuzzLiteralSchema(f *testing.F) {
	for _, seed := range [][]byte{
		{},
		{2, 9, 3, 0, 4, 4, 1, 1, 5, 0, 1, 2},
		{1, 0, 2, 10, 2, 2, 4, 0, 0, 0, 5, 1, 3},
		{5, 3, 13, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
		{0, 1, 11, 0, 4, 2, 5, 1, 0, 1, 1, 2, 3, 1, 4},
		{3, 2, 9, 3, 1, 2, 9, 1, 0, 12, 0, 6, 2, 2, 1, 0},
	} {
		f.Add(seed, "12", uint8(0))
	}
	f.Add([]byte{1, 2, 3}, "abc", uint8(1))
	f.Add([]byte{7, 7, 7, 7}, "1e1", uint8(2))
	f.Add([]byte{9, 1, 2}, " 1", uint8(3))
	reg := testRegistry(f)
	f.Fuzz(func(t *testing.T, data []byte, text string, pick uint8) {
		if len(data) > 256 || len(text) > 64 {
			return
		}
		g := &gen{b: data}
		body := g.schema(0)
		body["type"] = "object" // the index keeps an object body
		param := g.paramSchema()
		val := g.value(0)
		if _, ok := val.(map[string]any); !ok {
			val = map[string]any{"v": val}
		}
		lit := g.literal(val)
		if pick%2 == 1 {
			text = fuzzStrings[int(pick/2)%len(fuzzStrings)]
		}

		doc := map[string]any{
			"openapi": "3.1.0",
			"info":    map[string]any{"title": "fuzz", "version": "1"},
			"paths": map[string]any{"/x": map[string]any{"post": map[string]any{
				"parameters":  []any{map[string]any{"name": "q", "in": "query", "schema": param}},
				"requestBody": map[string]any{"content": map[string]any{"application/json": map[string]any{"schema": body}}},
				"responses":   map[string]any{"200": map[string]any{"description": "ok"}},
			}}},
		}
		raw, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		idx, err := openapi.Build("fuzz.json", raw)
		if err != nil {
			t.Fatal(err)
		}
		disp := Display{APIs: openapi.Attach(reg, []openapi.Doc{{ServiceID: "crm", Index: idx}})}
		qlit, _ := json.Marshal(text)
		_ = json.Unmarshal(qlit, &text) // the text the script holds (invalid UTF-8 replaced)
		script := fmt.Sprintf("api.rest.v1.post(\"crm\", {pathParams: [\"x\"], queryParams: {q: %s}}, {}, %s);", qlit, lit)

		bodyBad, queryBad := false, false
		for _, d := range Diagnose(NewDocument(script), reg, disp) {
			if !valueCodes[d.Code] {
				continue
			}
			if strings.HasPrefix(d.Message, "queryParams.q") {
				queryBad = true
			} else {
				bodyBad = true
			}
		}

		// The reference: the library on the value as sent.
		sent, err := goja.New().RunString("JSON.stringify(" + lit + ")")
		if err != nil {
			t.Fatalf("%s: %v", lit, err)
		}
		sentValue, err := jsonschema.UnmarshalJSON(strings.NewReader(sent.String()))
		if err != nil {
			t.Fatal(err)
		}
		bodySchema, err := compileReference(body)
		if err != nil {
			return // a generated schema the library refuses: nothing to compare
		}
		if want := bodySchema.Validate(sentValue) != nil; want != bodyBad {
			t.Fatalf("payload %s against %s: hints say invalid=%v, the library %v\n%s", sent, raw, bodyBad, want, script)
		}
		paramSchema, err := compileReference(param)
		if err != nil {
			return
		}
		want := true
		if v, ok := readParam(text, param["type"].(string)); ok {
			want = paramSchema.Validate(v) != nil
		}
		if want != queryBad {
			t.Fatalf("query %q against %v: hints say invalid=%v, the reference %v", text, param, queryBad, want)
		}
	})
}

// compileReference compiles a generated schema as the index compiles the
// description's (2020-12, formats asserted, nothing loaded).
func compileReference(doc any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.DefaultDraft(jsonschema.Draft2020)
	const url = "urn:restls:reference-schema"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}
