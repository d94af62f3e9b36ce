package remote

import (
	"errors"
	"testing"
)

// FuzzDecodeHints: any answer from a backend either decodes to a usable map
// (every entry with a serviceId and a url) or is a bad-answer error; never a
// panic.
func FuzzDecodeHints(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":{"url":"https://a.example.com","description":"A"}}`, `null`, `[]`, `{"a":{}}`,
		`{"":{"url":"x"}}`, `{"a":{"url":1}}`, `"str"`, ``, `{"a":{"url":"u","description":"é\u0000"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ids, err := decodeHints(body)
		if err != nil {
			if !errors.Is(err, errBadAnswer) || ids != nil {
				t.Fatalf("error %v with map %v", err, ids)
			}
			return
		}
		for id, e := range ids {
			if id == "" || e.URL == "" {
				t.Fatalf("unusable entry %q: %+v", id, e)
			}
		}
	})
}
