package config

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// ServiceDiff is one difference between two registries of one kind:
// restls services --diff prints them, restls check --since turns those of
// the services a script calls into diagnostics on the call.
type ServiceDiff struct {
	// ServiceID is "" for a difference of the kind's timeouts.
	ServiceID string `json:"serviceId,omitempty"`
	// What is one of the Diff* values.
	What string `json:"what"`
	A    string `json:"a"`
	B    string `json:"b"`
	// AUsable and BUsable say whether the id is usable on each side.
	AUsable bool `json:"-"`
	BUsable bool `json:"-"`
}

// What a ServiceDiff is about.
const (
	DiffMissing  = "missing"  // usable on one side, not configured on the other
	DiffUnusable = "unusable" // configured but unusable on one side
	DiffURL      = "url"      // the resolved url's host or path
	DiffHTTP     = "http"     // plain http on one side only
	DiffAuth     = "auth"     // the authorization kind (AuthSummary)
	DiffTimeouts = "timeouts" // the kind's timeout defaults or maxima
)

// DiffRegistries lists the differences between two registries of one
// kind, by serviceId, then the timeouts.
func DiffRegistries(a, b *Registry) []ServiceDiff {
	ids := map[string]bool{}
	for _, r := range []*Registry{a, b} {
		for _, id := range r.IDs() {
			ids[id] = true
		}
	}
	sorted := make([]string, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Strings(sorted)
	out := []ServiceDiff{}
	for _, id := range sorted {
		sa, okA := a.Service(id)
		sb, okB := b.Service(id)
		switch {
		case !okA || !okB:
			out = append(out, missingDiff(id, a, okA, b, okB))
			continue
		}
		ua, ub := urlWhere(sa.URL), urlWhere(sb.URL)
		if ua != ub {
			out = append(out, ServiceDiff{ServiceID: id, What: DiffURL, A: sa.URL, B: sb.URL, AUsable: true, BUsable: true})
		}
		if ha, hb := plainHTTP(sa.URL), plainHTTP(sb.URL); ha != hb {
			out = append(out, ServiceDiff{ServiceID: id, What: DiffHTTP, A: urlScheme(sa.URL), B: urlScheme(sb.URL), AUsable: true, BUsable: true})
		}
		if aa, ab := a.AuthSummary(sa), b.AuthSummary(sb); aa != ab {
			out = append(out, ServiceDiff{ServiceID: id, What: DiffAuth, A: aa, B: ab, AUsable: true, BUsable: true})
		}
	}
	ta, tb := a.Timeouts, b.Timeouts
	for _, t := range []struct {
		name string
		a, b int
	}{
		{"connectionTimeout default", ta.Connection.Default, tb.Connection.Default},
		{"connectionTimeout maximum", ta.Connection.Maximum, tb.Connection.Maximum},
		{"readTimeout default", ta.Read.Default, tb.Read.Default},
		{"readTimeout maximum", ta.Read.Maximum, tb.Read.Maximum},
	} {
		if t.a != t.b {
			out = append(out, ServiceDiff{What: DiffTimeouts, AUsable: true, BUsable: true, A: fmt.Sprintf("%s %d ms", t.name, t.a), B: fmt.Sprintf("%s %d ms", t.name, t.b)})
		}
	}
	return out
}

// missingDiff says how id is absent on one side: not configured, or
// configured but unusable (with why).
func missingDiff(id string, a *Registry, okA bool, b *Registry, okB bool) ServiceDiff {
	state := func(r *Registry, ok bool) string {
		if ok {
			s, _ := r.Service(id)
			return s.URL
		}
		if d, bad := r.Unusable(id); bad {
			return "unusable: " + d.Message
		}
		return "not configured"
	}
	d := ServiceDiff{ServiceID: id, What: DiffMissing, A: state(a, okA), B: state(b, okB), AUsable: okA, BUsable: okB}
	if strings.HasPrefix(d.A, "unusable") || strings.HasPrefix(d.B, "unusable") {
		d.What = DiffUnusable
	}
	return d
}

// urlWhere is a url's host and path, what a script's request reaches.
func urlWhere(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return strings.ToLower(u.Host) + strings.TrimSuffix(u.EscapedPath(), "/")
}

func urlScheme(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return strings.ToLower(u.Scheme)
	}
	return ""
}

func plainHTTP(raw string) bool { return urlScheme(raw) == "http" }
