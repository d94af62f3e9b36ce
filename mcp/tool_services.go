package mcp

import (
	"context"
	"sort"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/restls/restls/config"
	"github.com/restls/restls/openapi"
)

// ServicesIn is the services tool's input.
type ServicesIn struct {
	Kind        string `json:"kind,omitempty" jsonschema:"the script kind whose services to list: scriptService (default), scriptTask or validationScript"`
	Environment string `json:"environment,omitempty" jsonschema:"the project file's environment (restls.yaml's environments); default its defaultEnvironment"`
	Query       string `json:"query,omitempty" jsonschema:"keep the services whose serviceId, url or description contains this text (case-insensitive)"`
	Limit       int    `json:"limit,omitempty" jsonschema:"at most this many services (default 100, at most 500); narrow the list with query rather than raise it"`
}

// ServicesOut is the services tool's answer.
type ServicesOut struct {
	Kind        string `json:"kind"`
	Environment string `json:"environment,omitempty"`
	// Total is how many services the kind has; Services those the query
	// kept, up to the limit (Truncated: more were kept).
	Total     int       `json:"total"`
	Services  []Service `json:"services"`
	Truncated bool      `json:"truncated,omitempty"`
	// Hints says why there are no services, when there are none.
	Hints string `json:"hints,omitempty"`
}

// Service is one configured service, without its credentials.
type Service struct {
	ServiceID   string `json:"serviceId"`
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
	// Auth is the kind of authorization: none, basic, oAuth GRANT.
	Auth string `json:"auth"`
	// RefersTo is the serviceId whose url this one extends.
	RefersTo string `json:"refersTo,omitempty"`
	// Operations are the operations of its API description ("GET
	// /orders/{id}", paths relative to the service's url), up to 50.
	Operations      []string `json:"operations,omitempty"`
	OperationsTotal int      `json:"operationsTotal,omitempty"`
}

// maxServiceOps bounds the operations listed per service.
const maxServiceOps = 50

func (s *Server) services(ctx context.Context, _ *sdk.CallToolRequest, in ServicesIn) (*sdk.CallToolResult, ServicesOut, error) {
	kind, err := kindArg(in.Kind)
	if err != nil {
		return nil, ServicesOut{}, err
	}
	snap, err := s.snapshot(ctx, in.Environment)
	if err != nil {
		return nil, ServicesOut{}, err
	}
	out := ServicesOut{Kind: string(kind), Environment: snap.Environment, Services: []Service{}}
	reg := snap.Config.For(kind)
	if h := reg.HintState(); !h.Offered || reg.Len() == 0 {
		out.Hints = h.Message()
	}
	if reg == nil {
		return nil, out, nil
	}
	apis := snap.APIsFor("", workspaceUsable(reg))
	limit := s.limit(in.Limit)
	if in.Limit <= 0 {
		// A project may configure thousands: an agent reads a page and
		// narrows with query, rather than take them all into its context.
		limit = min(limit, defaultServices)
	}
	q := strings.ToLower(in.Query)
	ids := reg.IDs()
	out.Total = len(ids)
	for _, id := range ids {
		svc, _ := reg.Service(id)
		if q != "" && !strings.Contains(strings.ToLower(id), q) && !strings.Contains(strings.ToLower(svc.URL), q) && !strings.Contains(strings.ToLower(svc.Description), q) {
			continue
		}
		if len(out.Services) == limit {
			out.Truncated = true
			break
		}
		e := Service{ServiceID: id, URL: openapi.Redact(svc.URL), Description: svc.Description, Auth: reg.AuthSummary(svc), RefersTo: svc.RefersTo}
		if apis != nil {
			if api, ok := apis.API(id); ok {
				ops := serviceOps(api)
				e.OperationsTotal = len(ops)
				for _, o := range ops[:min(len(ops), maxServiceOps)] {
					e.Operations = append(e.Operations, o.Method+" "+o.path)
				}
			}
		}
		out.Services = append(out.Services, e)
	}
	return nil, out, nil
}

// workspaceUsable is reg when it offers serviceId hints, else nil.
func workspaceUsable(reg *config.Registry) *config.Registry {
	if reg == nil || !reg.HintState().Offered {
		return nil
	}
	return reg
}

// serviceOp is an operation of a service's description, its path
// relative to the service's url.
type serviceOp struct {
	*openapi.Operation
	path string
}

// serviceOps are the operations of api below the service's url, by path
// then method.
func serviceOps(api openapi.API) []serviceOp {
	if api.Index == nil {
		return nil
	}
	var out []serviceOp
	for _, o := range api.Index.Ops {
		if len(o.Segments) < len(api.Prefix) {
			continue
		}
		ok := true
		for i, p := range api.Prefix {
			if !openapi.IsParam(o.Segments[i]) && o.Segments[i] != p {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, serviceOp{o, "/" + strings.Join(o.Segments[len(api.Prefix):], "/")})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// kindArg parses a kind argument; "" is scriptService.
func kindArg(s string) (config.Kind, error) {
	if s == "" {
		return config.ScriptService, nil
	}
	return config.ParseKind(s)
}

// defaultServices is the services tool's page without a limit.
const defaultServices = 100

// limit is a list's limit: n within (0, Limits.Items], else Items.
func (s *Server) limit(n int) int {
	if n <= 0 || n > s.o.Limits.Items {
		return s.o.Limits.Items
	}
	return n
}
