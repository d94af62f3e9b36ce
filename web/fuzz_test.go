package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// FuzzRequestHeaders: the header parsers never panic; only the exact token
// authorizes; a 304 is only given for a list that names the ETag or "*".
func FuzzRequestHeaders(f *testing.F) {
	f.Add("Bearer tok", "tok", `"abc"`)
	f.Add("bearer  tok ", "", `W/"abc", "x"`)
	f.Add("Basic tok", "tok", "*")
	f.Add("", "", "")
	f.Fuzz(func(t *testing.T, authz, query, inm string) {
		s := &Server{opts: Options{Token: "tok"}, key: "tok"}
		r := &http.Request{Header: http.Header{}, URL: &url.URL{RawQuery: "access_token=" + url.QueryEscape(query)}}
		if authz != "" {
			r.Header.Set("Authorization", authz)
		}
		ok := s.authorized(r)
		if ok {
			got := query
			if authz != "" {
				scheme, tok, _ := strings.Cut(authz, " ")
				if !strings.EqualFold(scheme, "Bearer") {
					t.Fatalf("authorized with %q", authz)
				}
				got = strings.TrimSpace(tok)
			}
			if got != "tok" {
				t.Fatalf("authorized with header %q query %q", authz, query)
			}
		}
		const etag = `"abc"`
		if etagMatch(inm, etag) && !strings.Contains(inm, etag) && !strings.Contains(inm, "*") {
			t.Fatalf("If-None-Match %q matched %s", inm, etag)
		}
	})
}
