package restclient

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestBuildURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		base   string
		params []string
		query  []QueryParam
		want   string
	}{
		{"https://h/api/v2", nil, nil, "https://h/api/v2"},
		{"https://h/api/v2/", nil, nil, "https://h/api/v2/"},
		{"https://h/api/v2", []string{"customers", "42"}, nil, "https://h/api/v2/customers/42"},
		{"https://h/api/v2/", []string{"c"}, nil, "https://h/api/v2/c"},
		{"https://h", []string{"c"}, nil, "https://h/c"},
		{"https://h/a", []string{"x/y", "a?b", "c#d", "50%"}, nil, "https://h/a/x%2Fy/a%3Fb/c%23d/50%25"},
		{"https://h/a", []string{"..x", "a b", "ü"}, nil, "https://h/a/..x/a%20b/%C3%BC"},
		{"https://h/a", nil, []QueryParam{{"q", "a b&c=d"}, {"x", "1"}}, "https://h/a?q=a%20b%26c%3Dd&x=1"},
		{"https://h/v2?units=metric", []string{"today"}, []QueryParam{{"city", "Brno"}}, "https://h/v2/today?units=metric&city=Brno"},
		{"https://h/v2?units=metric#frag", nil, nil, "https://h/v2?units=metric"},
		{"http://127.0.0.1:8080/p%20q", []string{"r"}, nil, "http://127.0.0.1:8080/p%20q/r"},
		{"https://h/a", nil, []QueryParam{{"plus", "1+1"}, {"hash", "#"}}, "https://h/a?plus=1%2B1&hash=%23"},
	}
	for _, tt := range tests {
		got, err := BuildURL(tt.base, tt.params, tt.query)
		if err != nil {
			t.Errorf("BuildURL(%q, %q, %v): %v", tt.base, tt.params, tt.query, err)
			continue
		}
		if got != tt.want {
			t.Errorf("BuildURL(%q, %q, %v) = %q, want %q", tt.base, tt.params, tt.query, got, tt.want)
		}
	}
}

func TestBuildURLRejectsDotAndEmptySegments(t *testing.T) {
	t.Parallel()
	for _, seg := range []string{"", ".", ".."} {
		_, err := BuildURL("https://h/a", []string{"ok", seg}, nil)
		var ae *ArgError
		if !errors.As(err, &ae) || ae.Param != "PATH.pathParams" || !strings.Contains(ae.Msg, "pathParams[1]") {
			t.Errorf("segment %q: err = %v, want an ArgError naming pathParams[1]", seg, err)
		}
	}
	if _, err := BuildURL("not a url", nil, nil); err == nil {
		t.Error("relative base accepted")
	}
}

// FuzzBuildURL checks that no path segment or query parameter escapes the
// configured base: scheme, host and base path stay, each segment comes back
// whole, and the query holds exactly the base query then the parameters.
func FuzzBuildURL(f *testing.F) {
	f.Add("https://h/api/v2", "a", "b", "k", "v")
	f.Add("https://h/api/v2?units=metric", "../..", "%2e%2e", "k&x=1", "v#f")
	f.Add("http://127.0.0.1:9/x/", "/", "?q", "#", "%")
	f.Add("https://h", "\\..\\", "a;b", "", "\x00")
	f.Fuzz(func(t *testing.T, base, s1, s2, k, v string) {
		bu, err := url.Parse(base)
		if err != nil || bu.Scheme == "" || bu.Host == "" || bu.Opaque != "" {
			return
		}
		segs := []string{s1, s2}
		got, err := BuildURL(base, segs, []QueryParam{{k, v}})
		if err != nil {
			var ae *ArgError
			if !errors.As(err, &ae) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			for _, s := range segs {
				if s == "" || s == "." || s == ".." {
					return
				}
			}
			t.Fatalf("segments %q rejected: %v", segs, err)
		}
		u, err := url.Parse(got)
		if err != nil {
			t.Fatalf("result %q does not parse: %v", got, err)
		}
		if u.Scheme != bu.Scheme || u.Host != bu.Host || u.Fragment != "" || u.User.String() != bu.User.String() {
			t.Fatalf("%q left base %q", got, base)
		}
		prefix := strings.TrimRight(bu.EscapedPath(), "/")
		ep := u.EscapedPath()
		if !strings.HasPrefix(ep, prefix+"/") {
			t.Fatalf("path %q does not extend base path %q", ep, prefix)
		}
		rest := strings.Split(ep[len(prefix)+1:], "/")
		if len(rest) != len(segs) {
			t.Fatalf("path %q has %d segments after the base, want %d", ep, len(rest), len(segs))
		}
		for i, r := range rest {
			s, err := url.PathUnescape(r)
			if err != nil || s != segs[i] {
				t.Fatalf("segment %d = %q (%v), want %q", i, s, err, segs[i])
			}
		}
		if !strings.HasPrefix(u.RawQuery, bu.RawQuery) {
			t.Fatalf("query %q lost base query %q", u.RawQuery, bu.RawQuery)
		}
		added := strings.TrimPrefix(strings.TrimPrefix(u.RawQuery, bu.RawQuery), "&")
		q, err := url.ParseQuery(added)
		if err != nil || len(q) != 1 || len(q[k]) != 1 || q[k][0] != v {
			t.Fatalf("added query %q parses to %v (%v), want %q=%q", added, q, err, k, v)
		}
	})
}
