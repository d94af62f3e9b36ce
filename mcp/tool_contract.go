package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/restls/restls/openapi"
	"github.com/restls/restls/workspace"
)

// ContractIn is the contract tool's input.
type ContractIn struct {
	ServiceID   string `json:"serviceId" jsonschema:"the serviceId, as the services tool lists it"`
	Method      string `json:"method,omitempty" jsonschema:"GET, DELETE, POST, PUT or PATCH; default every method of the path"`
	Path        string `json:"path,omitempty" jsonschema:"the call's pathParams joined with '/', as the script passes them (orders/42), or the template (orders/{id}); default: list the service's operations"`
	Kind        string `json:"kind,omitempty" jsonschema:"the script kind whose configuration names the serviceId (default scriptService)"`
	Environment string `json:"environment,omitempty" jsonschema:"the project file's environment (default its defaultEnvironment)"`
}

// ContractOut is the contract tool's answer.
type ContractOut struct {
	ServiceID string `json:"serviceId"`
	// Description is the API description attached to the service.
	Description string `json:"description,omitempty"`
	// Operations are those the path and method match, in full; or, with
	// no path, every operation of the service in brief (up to the limit).
	Operations []Operation `json:"operations"`
	Truncated  bool        `json:"truncated,omitempty"`
	// Note says what was not found and what to do.
	Note string `json:"note,omitempty"`
}

// Operation is one operation of an API description: the call's contract.
type Operation struct {
	Method string `json:"method"`
	// Path is the template relative to the service's url.
	Path        string `json:"path"`
	OperationID string `json:"operationId,omitempty"`
	Summary     string `json:"summary,omitempty"`
	Description string `json:"description,omitempty"`
	Deprecated  bool   `json:"deprecated,omitempty"`
	// PathParams are the template's parameters, in pathParams' order.
	PathParams []Param `json:"pathParams,omitempty"`
	// Query are the queryParams; Headers the header parameters.
	Query   []Param `json:"queryParams,omitempty"`
	Headers []Param `json:"headers,omitempty"`
	// Payload is the request body's schema (PAYLOAD, a *Schema),
	// PayloadMedia its media type. The schemas are typed any: their
	// JSON Schema in the tool's output schema would be recursive.
	Payload         any    `json:"payload,omitempty"`
	PayloadMedia    string `json:"payloadMedia,omitempty"`
	PayloadRequired bool   `json:"payloadRequired,omitempty"`
	// Response is the first 2XX answer's body schema (response.body),
	// Example an answer a fixture may give.
	Response any     `json:"response,omitempty"`
	Example  *Answer `json:"example,omitempty"`
	// Errors are the documented answers of other statuses (thrown: the
	// exception's status.code and body).
	Errors []ErrorAnswer `json:"errors,omitempty"`
}

// Param is a path, query or header parameter.
type Param struct {
	Name        string   `json:"name"`
	Type        string   `json:"type,omitempty"`
	Required    bool     `json:"required,omitempty"`
	Description string   `json:"description,omitempty"`
	Default     string   `json:"default,omitempty"`
	Enum        []string `json:"enum,omitempty"`
	Deprecated  bool     `json:"deprecated,omitempty"`
}

// Schema is the shape of a JSON value, to a depth of maxSchemaDepth.
type Schema struct {
	Type        string             `json:"type,omitempty"`
	Description string             `json:"description,omitempty"`
	Format      string             `json:"format,omitempty"`
	Enum        []string           `json:"enum,omitempty"`
	Ref         string             `json:"ref,omitempty"`
	Properties  map[string]*Schema `json:"properties,omitempty"`
	Required    []string           `json:"required,omitempty"`
	Items       *Schema            `json:"items,omitempty"`
	// Cut: deeper levels were left out.
	Cut bool `json:"cut,omitempty"`
}

// Answer is an example answer.
type Answer struct {
	Status int `json:"status"`
	// Body is the JSON body (a json.RawMessage).
	Body any    `json:"body,omitempty"`
	Cut  string `json:"cut,omitempty"`
}

// ErrorAnswer is a documented answer outside 2XX.
type ErrorAnswer struct {
	Status      string `json:"status"`
	Description string `json:"description,omitempty"`
	Body        any    `json:"body,omitempty"`
}

// maxSchemaDepth and maxSchemaProps bound a schema in an answer: a
// description's schemas may be recursive or huge.
const (
	maxSchemaDepth = 6
	maxSchemaProps = 200
)

func (s *Server) contract(ctx context.Context, _ *sdk.CallToolRequest, in ContractIn) (*sdk.CallToolResult, ContractOut, error) {
	out := ContractOut{ServiceID: in.ServiceID, Operations: []Operation{}}
	if in.ServiceID == "" {
		return nil, out, fmt.Errorf("give a serviceId: the services tool lists them")
	}
	if len(in.ServiceID) > maxPath || len(in.Path) > maxPath {
		return nil, out, fmt.Errorf("serviceId and path are at most %d bytes", maxPath)
	}
	kind, err := kindArg(in.Kind)
	if err != nil {
		return nil, out, err
	}
	method := strings.ToUpper(in.Method)
	switch method {
	case "", "GET", "DELETE", "POST", "PUT", "PATCH":
	default:
		return nil, out, fmt.Errorf("method %s: api.rest.v1 sends GET, DELETE, POST, PUT or PATCH", in.Method)
	}
	snap, err := s.snapshot(ctx, in.Environment)
	if err != nil {
		return nil, out, err
	}
	reg := workspaceUsable(snap.Config.For(kind))
	if reg == nil {
		return nil, out, fmt.Errorf("no services are configured for %s: %s", kind, snap.Config.For(kind).HintState().Message())
	}
	if _, ok := reg.Service(in.ServiceID); !ok {
		msg := fmt.Sprintf("serviceId %s is not configured for %s", in.ServiceID, kind)
		if near := reg.Nearest(in.ServiceID, 3); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, ", ") + "?"
		}
		return nil, out, fmt.Errorf("%s (the services tool lists them)", msg)
	}
	set := snap.APIsFor("", reg)
	api, ok := set.API(in.ServiceID)
	if set == nil || !ok || api.Index == nil {
		out.Note = "no API description is attached to serviceId " + in.ServiceID + ": restls knows its url, not its operations; attach one with the project file's openapi key (restls.yaml) or --openapi ID=PATH_OR_URL"
		return nil, out, nil
	}
	out.Description = api.Index.Source
	if openapi.IsURL(out.Description) {
		out.Description = openapi.Redact(out.Description)
	} else {
		out.Description = s.rel(out.Description)
	}
	if api.Index.Title != "" {
		out.Description = api.Index.Title + " (" + out.Description + ")"
	}
	if in.Path == "" {
		ops := serviceOps(api)
		limit := s.o.Limits.Items
		for _, o := range ops {
			if method != "" && o.Method != method {
				continue
			}
			if len(out.Operations) == limit {
				out.Truncated = true
				break
			}
			out.Operations = append(out.Operations, Operation{Method: o.Method, Path: o.path, OperationID: o.OperationID, Summary: o.Summary, Deprecated: o.Deprecated})
		}
		return nil, out, nil
	}
	shape := workspace.CallShapeOf(in.ServiceID, method, in.Path)
	op, others := api.Match(method, shape.Segments)
	var found []*openapi.Operation
	if op != nil {
		found = append(found, op)
	}
	if method == "" {
		found = append(found, others...)
	}
	if len(found) == 0 {
		out.Note = fmt.Sprintf("no operation of serviceId %s's description matches %s /%s", in.ServiceID, orAny(method), strings.TrimPrefix(in.Path, "/"))
		for _, o := range others {
			out.Note += "; the path has " + o.Method
		}
		out.Note += ": call contract without path to list the operations"
		return nil, out, nil
	}
	answers := s.answerAPIs(ctx, reg)
	for _, o := range found {
		e := operation(o, api)
		if answers != nil {
			if a, ok := answers.API(in.ServiceID); ok && a.Index != nil {
				if ao, _ := a.Match(o.Method, shape.Segments); ao != nil {
					ex := a.Index.AnswerExample(ao)
					e.Example = &Answer{Status: ex.Status, Cut: ex.Cut}
					if ex.Body != nil {
						e.Example.Body = ex.Body
					}
				}
			}
		}
		out.Operations = append(out.Operations, e)
	}
	return nil, out, nil
}

func orAny(method string) string {
	if method == "" {
		return "any method"
	}
	return method
}

// operation is o in full, its path relative to the service's url.
func operation(o *openapi.Operation, api openapi.API) Operation {
	path := "/" + strings.Join(o.Segments[min(len(api.Prefix), len(o.Segments)):], "/")
	e := Operation{Method: o.Method, Path: path, OperationID: o.OperationID, Summary: o.Summary, Description: o.Description, Deprecated: o.Deprecated,
		PathParams: params(o.PathParams), Query: params(o.Query), Headers: params(o.Headers),
		Payload: anySchema(o.Body), PayloadMedia: o.BodyMedia, PayloadRequired: o.BodyRequired, Response: anySchema(o.Response)}
	for _, a := range o.Errors {
		e.Errors = append(e.Errors, ErrorAnswer{Status: a.Status, Description: a.Description, Body: anySchema(a.Schema)})
	}
	return e
}

func params(ps []openapi.Param) []Param {
	var out []Param
	for _, p := range ps {
		out = append(out, Param{Name: p.Name, Type: p.Type, Required: p.Required, Description: p.Description, Default: p.Default, Enum: p.Enum, Deprecated: p.Deprecated})
	}
	return out
}

// anySchema is schema(s, 0), nil (not a typed nil) for none.
func anySchema(s *openapi.Schema) any {
	if s == nil {
		return nil
	}
	return schema(s, 0)
}

// schema is s to maxSchemaDepth levels.
func schema(s *openapi.Schema, depth int) *Schema {
	if s == nil {
		return nil
	}
	out := &Schema{Type: s.Type, Description: s.Description, Format: s.Format, Enum: s.Enum, Ref: s.Ref}
	if depth >= maxSchemaDepth {
		out.Cut = len(s.Props) > 0 || s.Items != nil
		return out
	}
	for i, p := range s.Props {
		if i == maxSchemaProps {
			out.Cut = true
			break
		}
		if out.Properties == nil {
			out.Properties = map[string]*Schema{}
		}
		out.Properties[p.Name] = schema(p.Schema, depth+1)
		if out.Properties[p.Name] == nil {
			out.Properties[p.Name] = &Schema{}
		}
		if p.Required {
			out.Required = append(out.Required, p.Name)
		}
	}
	out.Items = schema(s.Items, depth+1)
	return out
}
