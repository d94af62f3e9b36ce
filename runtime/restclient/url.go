package restclient

import (
	"fmt"
	"net/url"
	"strings"
	"sync"
)

// QueryParam is one query parameter, in the order the script wrote it.
type QueryParam struct {
	Name, Value string
}

// BuildURL appends pathParams to base, each as one path-escaped segment,
// and adds query after any query base already has.
//
// A segment can never leave base: "/", "?", "#" and "%" inside a segment
// are escaped, and the segments "", "." and ".." are rejected with an
// *ArgError because servers and proxies normalise them away. base's own
// fragment, if any, is dropped (it is never sent over HTTP).
func BuildURL(base string, pathParams []string, query []QueryParam) (string, error) {
	u, err := parseBase(base)
	if err != nil {
		return "", err
	}
	for i, seg := range pathParams {
		switch seg {
		case "":
			return "", &ArgError{Param: "PATH.pathParams", Msg: fmt.Sprintf("pathParams[%d] is empty; every segment must have text (an empty segment would change the path)", i)}
		case ".", "..":
			return "", &ArgError{Param: "PATH.pathParams", Msg: fmt.Sprintf("pathParams[%d] is %q; dot segments are not allowed because they would leave the configured address", i, seg)}
		}
	}
	var b strings.Builder
	b.Grow(len(base) + 16*len(pathParams) + 32*len(query))
	b.WriteString(u.Scheme)
	b.WriteString("://")
	if u.User != nil {
		b.WriteString(u.User.String())
		b.WriteByte('@')
	}
	b.WriteString(u.Host)
	p := u.EscapedPath()
	if len(pathParams) > 0 {
		p = strings.TrimRight(p, "/")
		b.WriteString(p)
		for _, seg := range pathParams {
			b.WriteByte('/')
			b.WriteString(escapeSegment(seg))
		}
	} else {
		b.WriteString(p)
	}
	sep := byte('?')
	if u.RawQuery != "" {
		b.WriteByte('?')
		b.WriteString(u.RawQuery)
		sep = '&'
	} else if u.ForceQuery && len(query) == 0 {
		b.WriteByte('?')
	}
	for _, q := range query {
		b.WriteByte(sep)
		sep = '&'
		b.WriteString(escapeQuery(q.Name))
		b.WriteByte('=')
		b.WriteString(escapeQuery(q.Value))
	}
	return b.String(), nil
}

// escapeSegment escapes everything but RFC 3986 unreserved characters and
// the sub-delimiters that are harmless inside one segment.
func escapeSegment(s string) string {
	return escape(s, func(c byte) bool {
		switch c {
		case '-', '.', '_', '~', '!', '$', '&', '\'', '(', ')', '*', '+', ',', '=', ':', '@':
			return false
		}
		return !isAlnum(c)
	})
}

// escapeQuery encodes a query name or value; spaces become %20, as the
// platform's Java URI builder does, not "+".
func escapeQuery(s string) string {
	return escape(s, func(c byte) bool {
		switch c {
		case '-', '.', '_', '~', '!', '$', '\'', '(', ')', '*', ',', ':', '@', '/', '?':
			return false
		}
		return !isAlnum(c)
	})
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func escape(s string, must func(byte) bool) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if must(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hex = "0123456789ABCDEF"
	out := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if must(c) {
			out = append(out, '%', hex[c>>4], hex[c&15])
		} else {
			out = append(out, c)
		}
	}
	return string(out)
}

// baseCache holds parsed service addresses: a registry has few, and a
// script may call one thousands of times.
var baseCache sync.Map // string -> *url.URL

const maxBaseCache = 4096

var baseCacheLen int64

func parseBase(base string) (*url.URL, error) {
	if u, ok := baseCache.Load(base); ok {
		return u.(*url.URL), nil
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("service url %q: %w", base, err)
	}
	if u.Scheme == "" || u.Host == "" || u.Opaque != "" {
		return nil, fmt.Errorf("service url %q is not an absolute http(s) address", base)
	}
	baseCacheMu.Lock()
	if baseCacheLen < maxBaseCache {
		baseCache.Store(base, u)
		baseCacheLen++
	}
	baseCacheMu.Unlock()
	return u, nil
}

var baseCacheMu sync.Mutex
