package openapi

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestCheckAnswer(t *testing.T) {
	t.Parallel()
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

// TestCheckAnswerNotChecked: an answer whose schema cannot be checked
// (past the budget, a $dynamicRef) gives one not-checked finding that
// says why, never silence; the budget bounds the work: an allOf of
// 10,000 parts took 413 MiB and seconds to compile.
func TestCheckAnswerNotChecked(t *testing.T) {
	// Not in parallel: it measures this process's memory, which tests beside it would add to.
	parts := make([]string, 10000)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"type":"object","properties":{"p%d":{"type":"string"}},"required":["p%d"]}`, i, i)
	}
	for _, tc := range []struct{ name, schema, why string }{
		{"large allOf", `{"allOf":[` + strings.Join(parts, ",") + `]}`, "too large to check"},
		{"dynamic ref", `{"$dynamicRef":"#meta"}`, "$dynamicRef"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := `{"openapi":"3.1.0","paths":{"/x":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":` + tc.schema + `}}}}}}}}`
			idx, err := BuildAnswers("x.json", []byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			found := idx.CheckAnswer(idx.Ops[0], 200, map[string]any{"p1": json.Number("1")}, true)
			runtime.ReadMemStats(&after)
			if len(found) != 1 || found[0].Rule != RuleNotChecked || !strings.Contains(found[0].Message, "GET /x, status 200: the body was not checked") ||
				!strings.Contains(found[0].Message, tc.why) {
				t.Errorf("found %+v", found)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("the check allocated %d KiB", alloc>>10)
			if alloc > 32<<20 { // 146 MiB and 4.6 s before the budget
				t.Errorf("the check allocated %d MiB", alloc>>20)
			}
			// Asked again, it says the same without compiling again.
			if again := idx.CheckAnswer(idx.Ops[0], 200, map[string]any{}, true); len(again) != 1 || again[0] != found[0] {
				t.Errorf("again %+v", again)
			}
		})
	}
}
