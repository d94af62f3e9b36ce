package openapi

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/restls/restls/internal/openapitest"
)

// TestAnswerExample: the fixture of an operation is its first 2XX answer
// with the description's example when it holds to the schema, else a
// minimal value that does, in each description style.
func TestAnswerExample(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, schema, media, want string
		status                    string
		wantStatus                int
	}{
		{name: "media example", schema: `{"type":"object","required":["id"],"properties":{"id":{"type":"integer"}}}`, media: `,"example":{"id":7,"name":"Ann"}`, want: `{"id":7,"name":"Ann"}`},
		{name: "examples entry", schema: `{"type":"object"}`, media: `,"examples":{"one":{"value":{"a":1}}}`, want: `{"a":1}`},
		{name: "example that breaks the schema", schema: `{"type":"object","required":["id"],"properties":{"id":{"type":"integer"}}}`, media: `,"example":{"id":"seven"}`, want: `{"id":0}`},
		{name: "required at depth, bounds, formats, enum", schema: `{"type":"object","required":["id","at","kind","tags","n","owner"],"properties":{
			"id":{"type":"string","format":"uuid"},"at":{"type":"string","format":"date-time"},"kind":{"enum":["a","b"]},
			"tags":{"type":"array","minItems":2,"items":{"type":"string","minLength":3}},"n":{"type":"integer","minimum":5,"exclusiveMaximum":9},
			"owner":{"$ref":"#/components/schemas/User"},"opt":{"type":"string"}}}`,
			want: `{"id":"00000000-0000-4000-8000-000000000000","at":"2024-01-31T12:00:00Z","kind":"a","tags":["xxx","xxx"],"n":5,"owner":{"login":""}}`},
		{name: "allOf and oneOf", schema: `{"allOf":[{"$ref":"#/components/schemas/User"},{"type":"object","required":["pet"],"properties":{"pet":{"oneOf":[{"type":"null"},{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}]}}}]}`,
			want: `{"login":"","pet":{"name":""}}`},
		{name: "3.1 type list and exclusive bound", schema: `{"type":["null","number"],"exclusiveMinimum":0}`, want: `0.5`},
		{name: "created", status: "201", wantStatus: 201, schema: `{"type":"array"}`, want: `[]`},
		{name: "class", status: "2XX", wantStatus: 200, schema: `{"type":"boolean"}`, want: `false`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status := tc.status
			if status == "" {
				status, tc.wantStatus = "200", 200
			}
			doc := `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/x":{"get":{"responses":{"404":{"description":"no"},"` + status +
				`":{"description":"ok","content":{"application/json":{"schema":` + tc.schema + tc.media + `}}}}}}},
				"components":{"schemas":{"User":{"type":"object","required":["login"],"properties":{"login":{"type":"string"}}}}}}`
			idx, err := BuildAnswers("t.json", []byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			ex := idx.AnswerExample(idx.Ops[0])
			st, body, valid := ex.Status, ex.Body, ex.Cut == "" && idx.holds(idx.Ops[0], ex.Status, ex.Body)
			if st != tc.wantStatus || string(body) != tc.want || !valid {
				t.Errorf("got %d %s (valid %v), want %d %s", st, body, valid, tc.wantStatus, tc.want)
			}
		})
	}
}

// TestAnswerExampleSwagger: a Swagger 2.0 answer's examples and schema.
func TestAnswerExampleSwagger(t *testing.T) {
	t.Parallel()
	doc := `{"swagger":"2.0","info":{"title":"t","version":"1"},"paths":{
		"/a":{"get":{"produces":["application/json"],"responses":{"200":{"description":"ok","schema":{"type":"object"},"examples":{"application/json":{"ok":true}}}}}},
		"/b":{"get":{"produces":["application/json"],"responses":{"200":{"description":"ok","schema":{"type":"object","required":["n"],"properties":{"n":{"type":"integer","minimum":3}}}}}}}}}`
	idx, err := BuildAnswers("t.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, op := range idx.Ops {
		ex := idx.AnswerExample(op)
		st, body, valid := ex.Status, ex.Body, ex.Cut == "" && idx.holds(op, ex.Status, ex.Body)
		got = append(got, op.Path+" "+string(body))
		if st != 200 || !valid {
			t.Errorf("%s: status %d, valid %v", op.Path, st, valid)
		}
	}
	if strings.Join(got, "|") != `/a {"ok":true}|/b {"n":3}` {
		t.Errorf("got %q", got)
	}
}

// TestGitHubAnswerExamples: the fixture of every GitHub operation with a
// JSON success answer holds to its schema, but for the few whose schema
// a minimal value cannot meet; counted, not listed.
func TestGitHubAnswerExamples(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(openapitest.GitHub(t))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := BuildAnswers("api.github.com.json", data)
	if err != nil {
		t.Fatal(err)
	}
	total, invalid := 0, 0
	var first []string
	for _, op := range idx.Ops {
		ex := idx.AnswerExample(op)
		if ex.Body == nil {
			continue
		}
		valid := ex.Cut == "" && idx.holds(op, ex.Status, ex.Body)
		total++
		if !valid {
			invalid++
			if len(first) < 5 {
				first = append(first, op.Method+" "+op.Path)
			}
		}
	}
	t.Logf("%d of %d generated answers hold to their schema", total-invalid, total)
	if total < 500 || invalid*100 > total {
		t.Errorf("%d of %d generated answers break their schema (first: %v)", invalid, total, first)
	}
}

// TestErrorExamples (issue 36): the documented statuses outside 2XX of an
// operation, each with a body from the description (its example when it
// holds, else a minimal valid value), in OpenAPI 3.0, 3.1 and Swagger
// 2.0; classes and default are no status, and 2XX are left out.
func TestErrorExamples(t *testing.T) {
	t.Parallel()
	problem := `{"type":"object","required":["code"],"properties":{"code":{"type":"string"},"detail":{"type":"string"}}}`
	for _, tc := range []struct{ name, doc string }{
		{"3.0", `{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{"/x":{"get":{"responses":{
			"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object"}}}},
			"404":{"description":"no","content":{"application/json":{"schema":` + problem + `,"example":{"code":"missing"}}}},
			"409":{"description":"conflict","content":{"application/json":{"schema":` + problem + `}}},
			"4XX":{"description":"other"},
			"503":{"description":"down"},
			"default":{"description":"else"}}}}}}`},
		{"3.1", `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/x":{"get":{"responses":{
			"200":{"description":"ok"},
			"404":{"description":"no","content":{"application/problem+json":{"schema":` + problem + `,"examples":{"a":{"value":{"code":"missing"}}}}}},
			"409":{"description":"conflict","content":{"application/json":{"schema":{"$ref":"#/components/schemas/P"}}}},
			"503":{"description":"down","content":{"text/plain":{"schema":{"type":"string"}}}}}}}},
			"components":{"schemas":{"P":` + problem + `}}}`},
		{"2.0", `{"swagger":"2.0","info":{"title":"t","version":"1"},"produces":["application/json"],"paths":{"/x":{"get":{"responses":{
			"200":{"description":"ok"},
			"404":{"description":"no","schema":` + problem + `,"examples":{"application/json":{"code":"missing"}}},
			"409":{"description":"conflict","schema":{"$ref":"#/definitions/P"}},
			"503":{"description":"down"}}}}},
			"definitions":{"P":` + problem + `}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			idx, err := BuildAnswers("t.json", []byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, ex := range idx.ErrorExamples(idx.Ops[0]) {
				got = append(got, strconv.Itoa(ex.Status)+" "+string(ex.Body))
				if ex.Body != nil && !idx.holds(idx.Ops[0], ex.Status, ex.Body) {
					t.Errorf("%d: %s breaks its schema", ex.Status, ex.Body)
				}
			}
			want := `404 {"code":"missing"}|409 {"code":""}|503 `
			if strings.Join(got, "|") != want {
				t.Errorf("got  %q\nwant %q", strings.Join(got, "|"), want)
			}
		})
	}
}
