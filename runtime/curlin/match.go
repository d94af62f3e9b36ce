package curlin

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/restls/restls/config"
)

// matched is the service whose url is the longest prefix of a URL, and
// what of the URL is left: its path segments (escaped) and its query.
type matched struct {
	svc           *config.Service
	rest          []string
	trailingSlash bool
	query         string
	// ties are the other serviceIds whose url is as long a prefix.
	ties []string
}

// match finds the usable service of reg whose resolved url is the longest
// prefix of u: same scheme, host and port, and a path that u's path
// extends segment by segment (a url "/api/v2" is a prefix of
// "/api/v2/x", not of "/api/v2x"). A url with a query is a prefix when
// u's query starts with it, and beats the same url without one.
func match(reg *config.Registry, u *url.URL) (*matched, error) {
	var best *matched
	bestScore := -1
	var sameHost []string
	for _, id := range reg.IDs() {
		svc, _ := reg.Service(id)
		b, err := url.Parse(svc.URL)
		if err != nil || b.Host == "" || !strings.EqualFold(b.Scheme, u.Scheme) || hostPort(b) != hostPort(u) {
			continue
		}
		sameHost = append(sameHost, fmt.Sprintf("%s (%s)", id, b.Redacted()))
		rest, ok := pathPrefix(b.EscapedPath(), u.EscapedPath())
		if !ok {
			continue
		}
		score := 2 * segmentCount(b.EscapedPath())
		q := u.RawQuery
		if b.RawQuery != "" {
			switch {
			case q == b.RawQuery:
				q = ""
			case strings.HasPrefix(q, b.RawQuery+"&"):
				q = q[len(b.RawQuery)+1:]
			default:
				continue
			}
			score++
		}
		switch {
		case score > bestScore:
			bestScore = score
			best = &matched{svc: svc, rest: rest, query: q}
			if n := len(rest); n > 0 && rest[n-1] == "" {
				best.rest, best.trailingSlash = rest[:n-1], true
			}
		case score == bestScore:
			best.ties = append(best.ties, id)
		}
	}
	if best == nil {
		return nil, &NoServiceError{URL: displayURL(u), Suggest: suggestBase(u), SameHost: sameHost, Kind: reg.Kind}
	}
	return best, nil
}

// hostPort is the URL's lower-case host with its port, the scheme's
// default port made explicit.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

func splitPath(p string) []string {
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

func segmentCount(p string) int { return len(splitPath(strings.TrimSuffix(p, "/"))) }

// pathPrefix reports whether the escaped path full extends base segment
// by segment (segments compared unescaped), and returns the rest.
func pathPrefix(base, full string) ([]string, bool) {
	bs := splitPath(strings.TrimSuffix(base, "/"))
	fs := splitPath(full)
	if len(fs) < len(bs) {
		return nil, false
	}
	for i, b := range bs {
		if unescape(b) != unescape(fs[i]) {
			return nil, false
		}
	}
	return fs[len(bs):], true
}

func unescape(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

// suggestBase is a base url for u: without its query and last segment.
func suggestBase(u *url.URL) string {
	b := *u
	b.User, b.RawQuery, b.Fragment, b.RawFragment, b.ForceQuery = nil, "", "", "", false
	segs := splitPath(strings.TrimSuffix(b.EscapedPath(), "/"))
	if len(segs) > 0 {
		segs = segs[:len(segs)-1]
	}
	b.Path, b.RawPath = "", ""
	s := b.String()
	if len(segs) > 0 {
		s += "/" + strings.Join(segs, "/")
	}
	return s
}

// displayURL is u without the password in its user information.
func displayURL(u *url.URL) string { return u.Redacted() }
