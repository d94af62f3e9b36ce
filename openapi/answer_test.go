package openapi

import (
	"encoding/json"
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
