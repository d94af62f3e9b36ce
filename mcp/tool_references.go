package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/restls/restls/config"
	"github.com/restls/restls/textpos"
	"github.com/restls/restls/workspace"
	"github.com/restls/restls/workspace/index"
)

// ReferencesIn is the references tool's input.
type ReferencesIn struct {
	ServiceID string `json:"serviceId" jsonschema:"the serviceId (or, with oauth, the oAuth id) to find"`
	OAuth     bool   `json:"oauth,omitempty" jsonschema:"find an oAuth id's definitions and the services naming it"`
	Kind      string `json:"kind,omitempty" jsonschema:"ask from this script kind (default: every kind)"`
	Limit     int    `json:"limit,omitempty" jsonschema:"at most this many places of each sort (default and maximum 500)"`
}

// ReferencesOut is the references tool's answer: exactly the places a
// rename of the id would change.
type ReferencesOut struct {
	ID    string   `json:"id"`
	Kinds []string `json:"kinds"`
	// Definitions are the configuration entries defining the id;
	// URLRefs the entries whose url is <id>/<suffix> (for an oAuth id:
	// the services naming it).
	Definitions []Place `json:"definitions"`
	URLRefs     []Place `json:"urlRefs,omitempty"`
	// Calls are the scripts' literal calls of the id; Data the fixtures
	// and test files naming it.
	Calls     []Call  `json:"calls"`
	Data      []Place `json:"data,omitempty"`
	Scripts   int     `json:"scripts"`
	Truncated bool    `json:"truncated,omitempty"`
	// LeftOut says which scripts the project index left out (past its
	// walk bounds, its size budget or its file cap), whose calls are not
	// in Calls: the message the editor shows once.
	LeftOut string `json:"leftOut,omitempty"`
}

// Place is a line of a file: relative to the root when it is below it.
type Place struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column,omitempty"`
}

// Call is one api.rest.v1 call of a script.
type Call struct {
	Place
	Kind   string `json:"kind"`
	Method string `json:"method"`
	// Path is its pathParams joined with "/", computed ones as {name}.
	Path string `json:"path,omitempty"`
	// Func is the function around the call.
	Func string `json:"func,omitempty"`
}

// index is the project index the references tool reads: the Session's,
// the one the language server's references and rename read (on serve
// --http), built at first use and brought current at each call: the
// registry's snapshot, the files changed on disk, the editors' open texts.
func (s *Server) index(ctx context.Context) (*workspace.ProjectIndex, error) {
	sess := s.o.Session
	pi, isNew, err := sess.ProjectIndex(s.o.Root, sess.Registry(), sess.Kinds())
	if err != nil {
		return nil, fmt.Errorf("no project index: %w", err)
	}
	switch {
	case isNew:
		// Shared with the session's other surfaces: a tool call that is
		// cancelled must not leave it partial for them (web's
		// projectTests builds so too). The build has its own time limit.
		if err := pi.Build(context.WithoutCancel(ctx)); err != nil {
			return nil, fmt.Errorf("indexing the project: %w", err)
		}
	case !pi.Wait(ctx):
		return nil, ctx.Err()
	default:
		pi.Poll(0)
	}
	pi.BringCurrent(sess.Overlays(pi.Index().Root()))
	return pi, nil
}

func (s *Server) references(ctx context.Context, _ *sdk.CallToolRequest, in ReferencesIn) (*sdk.CallToolResult, ReferencesOut, error) {
	out := ReferencesOut{ID: in.ServiceID, Definitions: []Place{}, Calls: []Call{}}
	if in.ServiceID == "" || len(in.ServiceID) > maxPath {
		return nil, out, fmt.Errorf("give a serviceId (at most %d bytes): the services tool lists them", maxPath)
	}
	kinds := config.Kinds
	if in.Kind != "" {
		k, err := config.ParseKind(in.Kind)
		if err != nil {
			return nil, out, err
		}
		kinds = []config.Kind{k}
	}
	if _, err := s.snapshot(ctx, ""); err != nil { // the configuration read again when it changed
		return nil, out, err
	}
	pi, err := s.index(ctx)
	if err != nil {
		return nil, out, err
	}
	ix := pi.Index()
	out.LeftOut = pi.LeftOutMessage()
	o := ix.Occurrences(in.ServiceID, in.OAuth, kinds)
	for _, k := range o.Kinds {
		out.Kinds = append(out.Kinds, string(k))
	}
	limit := s.limit(in.Limit)
	add := func(list []Place, p Place) []Place {
		if len(list) == limit {
			out.Truncated = true
			return list
		}
		return append(list, p)
	}
	for _, e := range o.Definitions {
		at := e.IDAt
		if at.Line == 0 {
			at = e.Defined
		}
		out.Definitions = add(out.Definitions, Place{File: s.rel(at.File), Line: at.Line, Column: at.RuneCol})
	}
	for _, e := range o.URLRefs {
		out.URLRefs = add(out.URLRefs, Place{File: s.rel(e.Defined.File), Line: e.Defined.Line, Column: e.Defined.RuneCol})
	}
	var mappers = map[*index.Script]*textpos.Mapper{}
	for _, r := range o.Calls {
		if len(out.Calls) == limit {
			out.Truncated = true
			break
		}
		m := mappers[r.Script]
		if m == nil {
			if r.Script.FromDisk() {
				m = textpos.NewFile(r.Script.Text)
			} else {
				m = textpos.New(r.Script.Text)
			}
			mappers[r.Script] = m
		}
		c := r.Site()
		p := m.RunePos(textpos.ByteOffset(c.IDRange.Start))
		out.Calls = append(out.Calls, Call{Place: Place{File: s.rel(r.Script.Path), Line: p.Line, Column: p.Col}, Kind: string(r.Script.Kind),
			Method: c.Method, Path: c.Path, Func: c.Func})
	}
	out.Scripts = o.Scripts()
	for _, d := range o.Data {
		p := d.At()
		out.Data = add(out.Data, Place{File: s.rel(d.File.Path), Line: p.Line})
	}
	return nil, out, nil
}
