package openapi

import (
	"sort"
	"strings"

	"github.com/restls/restls/config"
)

// Doc is a loaded description and the service it was attached to: a
// serviceId, or "" for a description used by every service whose url
// starts with one of its servers' urls.
type Doc struct {
	ServiceID string
	Location  string
	Index     *Index // nil when it failed to load
	Err       error
}

// Set is the descriptions of the services of one registry snapshot.
// Immutable; a nil *Set has none.
type Set struct {
	apis map[string]API
}

// Attach matches the descriptions to the services of reg: a description
// named for a serviceId belongs to it; a service defined by reference to
// another (crm-customers = crm/customers) uses its base's description with
// the rest of its url as a path prefix; a description attached to no
// serviceId belongs to every service whose url starts with one of its
// servers' urls (the rest of the url is the prefix). The longest server
// url wins.
func Attach(reg *config.Registry, docs []Doc) *Set {
	s := &Set{apis: map[string]API{}}
	if reg == nil {
		return s
	}
	byID := map[string]*Index{}
	for _, d := range docs {
		if d.ServiceID != "" && d.Index != nil && byID[d.ServiceID] == nil {
			byID[d.ServiceID] = d.Index
		}
	}
	for _, id := range reg.IDs() {
		svc, ok := reg.Service(id)
		if !ok {
			continue
		}
		if idx := byID[id]; idx != nil {
			s.apis[id] = API{Index: idx}
			continue
		}
		if base, ok := reg.Service(svc.RefersTo); ok && byID[base.ID] != nil {
			if rest, ok := strings.CutPrefix(svc.URL, strings.TrimSuffix(base.URL, "/")); ok {
				s.apis[id] = API{Index: byID[base.ID], Prefix: splitPath(rest)}
				continue
			}
		}
		best := -1
		for _, d := range docs {
			if d.ServiceID != "" || d.Index == nil || d.Index.Recorded {
				continue
			}
			for _, srv := range d.Index.Servers {
				srv = strings.TrimSuffix(srv, "/")
				rest, ok := strings.CutPrefix(svc.URL, srv)
				if !ok || rest != "" && rest[0] != '/' || len(srv) <= best {
					continue
				}
				best = len(srv)
				s.apis[id] = API{Index: d.Index, Prefix: splitPath(rest)}
			}
		}
		if _, ok := s.apis[id]; ok {
			continue
		}
		// Recorded answers: the first file with answers of this serviceId.
		for _, d := range docs {
			if d.Index != nil && d.Index.Recorded && d.Index.paths.find(id) != nil {
				s.apis[id] = API{Index: d.Index, Prefix: []string{id}}
				break
			}
		}
	}
	return s
}

// API returns the description of serviceId id.
func (s *Set) API(id string) (API, bool) {
	if s == nil {
		return API{}, false
	}
	a, ok := s.apis[id]
	return a, ok
}

// Len returns how many services have a description.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.apis)
}

// IDs returns the serviceIds that have a description, sorted.
func (s *Set) IDs() []string {
	if s == nil {
		return nil
	}
	out := make([]string, 0, len(s.apis))
	for id := range s.apis {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}
