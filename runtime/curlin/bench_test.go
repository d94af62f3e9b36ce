package curlin

import (
	"strings"
	"testing"
)

// BenchmarkFromCurl: reading and writing (the text restls.pasteCurl
// inserts) a browser's copy of a call (headers, a JSON body in
// $'...'), and the largest command read (1 MiB, mostly a JSON body).
func BenchmarkFromCurl(b *testing.B) {
	reg := testRegistry(b, testServicesXML)
	browser := `curl 'https://crm.example.com/api/v2/orders?page=2&size=50' \
  -H 'accept: application/json, text/plain, */*' \
  -H 'accept-language: en-GB,en;q=0.9' \
  -H 'authorization: Basic Zm9vOmJhcg==' \
  -H 'content-type: application/json' \
  -H 'origin: https://app.example.com' \
  -H 'sec-ch-ua: "Chromium";v="130"' \
  -H 'sec-fetch-mode: cors' \
  -H 'user-agent: Mozilla/5.0' \
  --data-raw $'{"customer":{"name":"Ada \'L\'","tags":["a","b"]},"items":[{"sku":"x-1","qty":2}]}' \
  --compressed`
	large := "curl https://crm.example.com/api/v2/import --data-raw '[" + strings.Repeat(`{"a":[1,2,"x"]},`, (MaxInputBytes-100)/16) + "1]'"
	for _, bc := range []struct{ name, text string }{{"browser", browser}, {"1MiB", large}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			for b.Loop() {
				call, err := FromCurl(bc.text, reg)
				if err != nil {
					b.Fatal(err)
				}
				_ = call.Snippet("  ")
			}
		})
	}
}
