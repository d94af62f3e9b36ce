//go:build unix

package openapi

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkCheckAnswer1MB checks a 1 MB answer (an array of 10,000
// objects, formats and an enum included) against its schema; issue 27
// bounds it at 20 ms. "library" is the library's walk alone (the check
// before the fast path, and still the one that writes findings);
// "CheckAnswer" is the check restls makes, fast path first. cpu-ms/op is
// the process's CPU time, GC included: on the shared machine wall time
// follows the load.
//
//	go test -run '^$' -bench CheckAnswer1MB -benchmem -count 3 ./openapi/
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
		sb.WriteString(`{"id":` + strconv.Itoa(i) + `,"name":"item number ` + strconv.Itoa(i) + `","state":"open","owner":{"login":"someone","url":"https://example.test/users/someone/` + strconv.Itoa(i) + `"}}`)
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
	a, _ := op.documented(200)
	lib, _, _ := idx.answerValidator(rawSchema{n: a.raw.n, param: a.raw.param, answer: true})
	for _, c := range []struct {
		name  string
		check func() bool
	}{
		{"library", func() bool { return lib.Validate(body) == nil }},
		{"CheckAnswer", func() bool { return idx.CheckAnswer(op, 200, body, true) == nil }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			before := processCPU(b)
			for b.Loop() {
				if !c.check() {
					b.Fatal("the answer breaks its schema")
				}
			}
			b.ReportMetric(float64((processCPU(b)-before).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
