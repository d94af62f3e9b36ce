package dryrun

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// sample is a result as a child writes it: a call with ordered headers
// (not sorted: the order is the request's), timing, wire blocks and curl.
const sample = `{"result":{"ok":true},"error":null,"calls":[{"serviceId":"crm","method":"GET","url":"http://127.0.0.1:1/x",` +
	`"requestHeaders":{"Accept":"application/json","Authorization":"Bearer ****","X-B":"1","X-A":"2"},"status":{"code":200,"message":"OK"},` +
	`"responseHeaders":{"content-type":"application/json","x-restls-mock":"pasted mocks fixture 1"},"responseBody":{"ok":true},` +
	`"durationMs":0.157,"timing":{"dnsMs":0.01,"totalMs":0.129,"reused":true},"responseBytes":11,` +
	`"wire":{"request":["GET /x HTTP/1.1"],"response":["HTTP/1.1 200 OK"]},"curl":"curl http://127.0.0.1:1/x","events":[{"kind":"mock","message":"m"}]}],` +
	`"logs":[{"level":"log","message":"hi","line":1}],"mode":"mock"}`

// TestResultRoundTrip: a child's result decodes in the parent and encodes
// again to the same bytes, header order included.
func TestResultRoundTrip(t *testing.T) {
	var res Result
	if err := json.Unmarshal([]byte(sample), &res); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(&res)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != sample {
		t.Errorf("got\n%s\nwant\n%s", out, sample)
	}
}

// FuzzResultRoundTrip: whatever a child writes either does not decode (and
// the parent reports runner-crashed) or decodes to a Result whose encoding
// is stable: encoding, decoding and encoding again gives the same bytes.
func FuzzResultRoundTrip(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte(`{"result":null,"error":{"name":"Error","message":"m","code":"runner-failed","errors":[{"message":"a","line":1,"column":2}]},"calls":[],"logs":[]}`))
	f.Add([]byte(`{"calls":[{"requestHeaders":{"a":"1","a":"2","A":"3"},"responseHeaders":null}]}`))
	f.Add([]byte(`{"calls":[{"requestHeaders":{"\u00e9\ud800":"\xff"}}]}`))
	f.Add([]byte(`{"result":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`))
	var many strings.Builder
	many.WriteString(`{"calls":[`)
	for i := range 200 {
		if i > 0 {
			many.WriteByte(',')
		}
		many.WriteString(`{"requestHeaders":{"h":"` + strings.Repeat("v", 50) + `","g":"1"}}`)
	}
	many.WriteString(`]}`)
	f.Add([]byte(many.String()))
	f.Fuzz(func(t *testing.T, in []byte) {
		var res Result
		if json.Unmarshal(in, &res) != nil {
			return
		}
		once, err := json.Marshal(&res)
		if err != nil {
			t.Fatalf("a decoded result does not encode: %v", err)
		}
		var again Result
		if err := json.Unmarshal(once, &again); err != nil {
			t.Fatalf("an encoded result does not decode: %v\n%s", err, once)
		}
		twice, _ := json.Marshal(&again)
		if !bytes.Equal(once, twice) {
			t.Fatalf("encoding is not stable:\n%s\n%s", once, twice)
		}
	})
}
