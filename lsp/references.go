package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/restls/restls/workspace/index"
)

// references answers textDocument/references for a serviceId, from a
// call's literal or from its configuration entry: its occurrences
// (index.Index.Occurrences), exactly the places a rename from there
// edits: every literal call in the scripts of the scope (the kinds
// concerned, closed over the definitions), every <id>/<suffix> url naming
// it, and, with includeDeclaration, every definition (overridden ones
// too). For an oAuth id: its definitions and the services that use it.
func (s *session) references(ctx context.Context, p *protocol.ReferenceParams, m *mapper) (any, error) {
	if m == nil {
		return nil, nil
	}
	ni, t, ok := s.navTargetAt(ctx, m, p.TextDocument.URI, p.Position)
	if ni == nil {
		return nil, nil
	}
	if !ok {
		return nil, nil
	}
	ms := s.newMappers(ni)
	return occurrenceLocations(ms, ni.Index().Occurrences(t.id, t.oauth, t.kinds), p.Context.IncludeDeclaration), nil
}

// occurrenceLocations are the locations of a serviceId's or oAuth id's
// occurrences (index.Index.Occurrences, the places a rename edits): the
// definitions when decl is set, the <id>/<suffix> urls (for an oAuth id,
// the authorizations naming it), the calls, and the serviceIds of the
// fixtures and test files.
func occurrenceLocations(ms *mappers, o index.Occurrences, decl bool) []protocol.Location {
	out := []protocol.Location{}
	if decl {
		for _, e := range o.Definitions {
			out = append(out, protocol.Location{URI: hostPaths.fileURI(cleanAbs(e.Defined.File)), Range: entryRange(ms.config(e.Defined.File), e.IDSpan, e.IDAt)})
		}
	}
	for _, e := range o.URLRefs {
		sp := e.RefersToSpan
		if o.OAuth {
			sp = e.OAuthRefSpan
		}
		out = append(out, protocol.Location{URI: hostPaths.fileURI(cleanAbs(e.Defined.File)), Range: entryRange(ms.config(e.Defined.File), sp, e.Defined)})
	}
	for _, r := range o.Calls {
		c := r.Site()
		out = append(out, navLocation(r.Script.Path, ms.script(r.Script), c.IDRange.Start, c.IDRange.End))
	}
	for _, r := range o.Data {
		pl := r.At()
		m := ms.data(r.File.Path)
		if pl.Found {
			out = append(out, navLocation(r.File.Path, m, pl.Start, pl.End))
		} else {
			out = append(out, protocol.Location{URI: hostPaths.fileURI(cleanAbs(r.File.Path)), Range: m.lineRange(pl.Line)})
		}
	}
	return out
}
