package web

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/restls/restls/input"
	"github.com/restls/restls/runtime/dryrun"
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
		ok := s.hasKey(r)
		if tok := bearerOf(r); tok != "" && authz == "" {
			t.Fatalf("a bearer token read from the query %q", query)
		}
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

// FuzzHostOrigin: the Host and Origin checks never panic, and only let
// through this server's names: loopback names on the port the request
// arrived on (or none), and the --allow-host value.
func FuzzHostOrigin(f *testing.F) {
	f.Add("127.0.0.1:7373", "http://localhost:7373")
	f.Add("[::1]:7373", "http://[::1]:7373")
	f.Add("rebind.attacker.example:7373", "http://rebind.attacker.example:7373")
	f.Add("designer.internal:1", "https://designer.internal")
	f.Add("localhost.", "null")
	f.Add(strings.Repeat("[", 10000)+":7373", "http://"+strings.Repeat("a.", 50000)+"example:7373")
	f.Add(strings.Repeat("[::1]", 5000), strings.Repeat("http://", 5000))
	s := &Server{hosts: map[string]bool{"designer.internal": true}}
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7373}
	ok := func(hp string) bool {
		h, p := splitHost(hp)
		switch h {
		case "localhost", "127.0.0.1", "::1":
			return p == "" || p == "7373"
		case "designer.internal":
			return true
		}
		return false
	}
	f.Fuzz(func(t *testing.T, host, origin string) {
		r := (&http.Request{Host: host, Header: http.Header{}}).WithContext(
			context.WithValue(context.Background(), http.LocalAddrContextKey, net.Addr(local)))
		if s.hostAllowed(r, host) && !ok(host) {
			t.Fatalf("Host %q allowed", host)
		}
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		if s.originAllowed(r) && origin != "" {
			u, err := url.Parse(origin)
			if err != nil || !ok(u.Host) && !ok(u.Hostname()+":"+map[string]string{"http": "80", "https": "443"}[u.Scheme]) {
				t.Fatalf("Origin %q allowed", origin)
			}
		}
	})
}

// FuzzRunMock: a run body's mock and a runner's answer never panic; an
// accepted mock reaches the runner as sent (a string's text, anything
// else as its JSON), a blank one as no mock; an answer is counted as threw
// exactly when it is an object whose error is not null.
func FuzzRunMock(f *testing.F) {
	f.Add(`"- serviceId: crm\n  method: GET\n  body: {a: 1}\n"`, `{"result":1,"error":null}`)
	f.Add(`[{"serviceId":"crm","status":200,"body":[1,2,3]}]`, `{"error":{"name":"Error"}}`)
	f.Add(`{"fixtures":[]}`, `[]`)
	f.Add(`null`, `null`)
	f.Add(`"   "`, `"x"`)
	f.Add(`"`+strings.Repeat("- serviceId: s\\n  body: {a: [[[[1]]]]}\\n", 200)+`"`, `{"error":`+strings.Repeat("[", 3000)+`}`)
	f.Add(`"`+strings.Repeat("[", 10000)+`"`, strings.Repeat(`{"a":`, 1000))
	f.Fuzz(func(t *testing.T, mock, answer string) {
		b := runBody{Mock: json.RawMessage(mock)}
		doc, err := b.mockText()
		raw := bytes.TrimSpace([]byte(mock))
		var text string
		isString := json.Unmarshal(raw, &text) == nil
		switch {
		case err != nil:
		case doc == nil:
			if !(len(raw) == 0 || string(raw) == "null" || isString && strings.TrimSpace(text) == "") {
				t.Fatalf("mock %q taken for no mock", mock)
			}
		case isString && string(doc) != text:
			t.Fatalf("a string mock reached the runner as %q, not %q", doc, text)
		case !isString && !bytes.Equal(doc, raw):
			t.Fatalf("a mock reached the runner as %q, not %q", doc, raw)
		}
		// The oracle reads the answer as a map; the runner's reading
		// matches "error" in any case, so answers with another spelling
		// are left out.
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(answer), &obj) != nil || strings.Contains(strings.ToLower(answer), `"error"`) && obj["error"] == nil {
			return
		}
		want := "returned"
		if e, ok := obj["error"]; ok && string(bytes.TrimSpace(e)) != "null" {
			want = "threw"
		}
		// A child's answer reaches the server as a dryrun.Result, which
		// WrapRunner counts by Threw.
		var res dryrun.Result
		if json.Unmarshal([]byte(answer), &res) != nil {
			return
		}
		if got := map[bool]string{true: "threw", false: "returned"}[res.Threw()]; got != want {
			t.Fatalf("answer %q counted as %s, want %s", answer, got, want)
		}
	})
}

// FuzzAuthInputs: what --auth oidc and proxy read from a request and
// what the audit writes of a URL never panic; a bearer token is never
// read from the URL; a masked URL holds no query value.
func FuzzAuthInputs(f *testing.F) {
	f.Add("Bearer a.b.c", "restls.lsp, restls.bearer.x.y.z", "https://u:p@h/p?apiKey=s3cret&x=1#f", "10.0.0.0/8", "[\"a\",1,\"b\"]")
	f.Add("", "restls.bearer.", "http://h/%zz?=&=", "::1", "\"g\"")
	f.Add("Basic x", "", "::not a url", "1.2.3.4/33", "{}")
	f.Fuzz(func(t *testing.T, authz, protocols, rawURL, cidr, claim string) {
		r := &http.Request{Header: http.Header{}, URL: &url.URL{RawQuery: "access_token=in-the-url"}}
		if authz != "" {
			r.Header.Set("Authorization", authz)
		}
		r.Header.Set("Sec-WebSocket-Protocol", protocols)
		if tok := bearerOf(r); tok == "in-the-url" && !strings.Contains(authz+protocols, "in-the-url") {
			t.Fatal("a token read from the URL")
		}
		// What is kept must read back with every query value and the
		// user information masked. (Looking for a value's text anywhere
		// in the result was wrong: a path may hold the same text, and
		// the audit keeps the path.)
		masked := maskURL(rawURL)
		if u, err := url.Parse(rawURL); err == nil {
			m, err := url.Parse(masked)
			if err != nil {
				t.Fatalf("maskURL(%q) = %q, which does not parse: %v", rawURL, masked, err)
			}
			for k, vs := range m.Query() {
				for _, v := range vs {
					if v != "****" {
						t.Fatalf("maskURL(%q) = %q keeps the value %q of %q", rawURL, masked, v, k)
					}
				}
			}
			if m.User != nil && (m.User.Username() != "****" || m.User.String() != url.User("****").String()) {
				t.Fatalf("maskURL(%q) = %q keeps the user information %q", rawURL, masked, m.User.String())
			}
			if m.Fragment != "" {
				t.Fatalf("maskURL(%q) = %q keeps the fragment", rawURL, masked)
			}
			if u.User != nil && u.User.String() != "" && len(u.User.String()) >= 4 && strings.Contains(masked, u.User.String()+"@") {
				t.Fatalf("maskURL(%q) = %q keeps the user information", rawURL, masked)
			}
		}
		_, _ = parsePrefix(cidr)
		var v any
		if json.Unmarshal([]byte(claim), &v) == nil {
			for _, s := range claimValues(v) {
				_ = s
			}
		}
	})
}

// FuzzAuditText: whatever a client sends as a script name, a user or a
// URL, the audited text is within its bound, valid UTF-8, and holds no
// character input.Printable escapes.
func FuzzAuditText(f *testing.F) {
	for _, s := range []string{"", "payments.js", "a\u202eb\u009bc\u2028", strings.Repeat("\x1b", 300), strings.Repeat("é\x80", 400),
		strings.Repeat("x", 1<<16) + "\u202e", "\xf0\x9f\x98"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := auditText(s, auditFieldMax)
		if len(out) > auditFieldMax+len("...(18446744073709551615 bytes more)") {
			t.Fatalf("%d bytes", len(out))
		}
		if !utf8.ValidString(out) || input.Printable(out) != out {
			t.Fatalf("auditText(%q) = %q: not printable", s, out)
		}
	})
}
