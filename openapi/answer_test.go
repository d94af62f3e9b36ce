package openapi

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestCheckAnswer(t *testing.T) {
	doc := `{"openapi":"3.0.3","paths":{"/x":{"get":{"responses":{
		"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/X"}}}},
		"404":{"description":"none"},
		"5XX":{"description":"broken","content":{"application/json":{"schema":{"type":"object","required":["code"]}}}}}}}},
		"components":{"schemas":{"X":{"type":"object","required":["id","password"],"properties":{
			"id":{"type":"integer"},"password":{"type":"string","writeOnly":true},
			"items":{"type":"array","items":{"type":"string","enum":["a","b"]}}}}}}}`
	idx, err := BuildAnswers("x.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	op := idx.Ops[0]
	for _, tc := range []struct {
		name   string
		status int
		body   string // "" = not JSON
		want   []string
	}{
		{"valid", 200, `{"id":1,"items":["a"]}`, nil},
		{"wrong type", 200, `{"id":"1"}`, []string{"type /id"}},
		{"enum in an array", 200, `{"id":1,"items":["a","c"]}`, []string{"enum /items/1"}},
		{"required", 200, `{}`, []string{"required "}},
		{"undocumented status", 418, `{}`, []string{"status "}},
		{"documented without a schema", 404, `{"x":1}`, nil},
		{"a class", 503, `{}`, []string{"required "}},
		{"not JSON", 200, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body any
			if tc.body != "" {
				dec := json.NewDecoder(strings.NewReader(tc.body))
				dec.UseNumber()
				if err := dec.Decode(&body); err != nil {
					t.Fatal(err)
				}
			}
			var got []string
			for _, f := range idx.CheckAnswer(op, tc.status, body, tc.body != "") {
				got = append(got, f.Rule+" "+f.Path)
				if !strings.HasPrefix(f.Message, "GET /x") {
					t.Errorf("message %q does not name the operation", f.Message)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	// An index built for the editor keeps no answer schemas.
	plain, err := Build("x.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if f := plain.CheckAnswer(plain.Ops[0], 418, nil, false); f != nil {
		t.Errorf("an index without answers found %v", f)
	}
}

// BenchmarkCheckAnswer1MB checks a 1 MB answer (an array of 10,000
// objects) against its schema; issue 27 bounds it at 20 ms.
//
//	go test -run '^$' -bench CheckAnswer1MB -benchmem ./openapi/
func BenchmarkCheckAnswer1MB(b *testing.B) {
	doc := `{"openapi":"3.1.0","paths":{"/x":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":
		{"type":"array","items":{"$ref":"#/components/schemas/X"}}}}}}}}},
		"components":{"schemas":{"X":{"type":"object","required":["id","name"],"properties":{
			"id":{"type":"integer","minimum":0},"name":{"type":"string","maxLength":64},"state":{"enum":["open","closed"]},
			"owner":{"type":["object","null"],"properties":{"login":{"type":"string"},"url":{"type":"string","format":"uri"}}}}}}}}`
	idx, err := BuildAnswers("x.json", []byte(doc))
	if err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	sb.WriteString("[")
	for i := range 10000 {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(`{"id":` + strconv.Itoa(i) + `,"name":"item number ` + strconv.Itoa(i) + `","state":"open","owner":{"login":"someone","url":"https://example.test/users/someone"}}`)
	}
	sb.WriteString("]")
	b.Logf("answer: %d bytes", sb.Len())
	var body any
	dec := json.NewDecoder(strings.NewReader(sb.String()))
	dec.UseNumber()
	if err := dec.Decode(&body); err != nil {
		b.Fatal(err)
	}
	op := idx.Ops[0]
	b.ReportAllocs()
	for b.Loop() {
		if f := idx.CheckAnswer(op, 200, body, true); f != nil {
			b.Fatal(f)
		}
	}
}
