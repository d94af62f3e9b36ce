package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

// references answers textDocument/references for a serviceId, from a
// call's literal or from its configuration entry: every literal call in
// the scripts of the kinds concerned, and, with includeDeclaration, every
// definition (overridden ones too) and every <id>/<suffix> url naming it.
// For an oAuth id: its definitions and the services that use it.
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
	out := []protocol.Location{}
	if t.oauth {
		defs, uses := ni.ix.OAuthReferences(t.id)
		if p.Context.IncludeDeclaration {
			for _, e := range defs {
				out = append(out, protocol.Location{URI: hostPaths.fileURI(cleanAbs(e.Defined.File)), Range: entryRange(ms.config(e.Defined.File), e.IDSpan, e.IDAt)})
			}
		}
		for _, e := range uses {
			out = append(out, protocol.Location{URI: hostPaths.fileURI(cleanAbs(e.Defined.File)), Range: entryRange(ms.config(e.Defined.File), e.OAuthRefSpan, e.Defined)})
		}
		return out, nil
	}
	refs := ni.ix.References(t.id, t.kinds)
	if p.Context.IncludeDeclaration {
		for _, e := range refs.Definitions {
			out = append(out, protocol.Location{URI: hostPaths.fileURI(cleanAbs(e.Defined.File)), Range: entryRange(ms.config(e.Defined.File), e.IDSpan, e.IDAt)})
		}
	}
	for _, e := range refs.URLRefs {
		out = append(out, protocol.Location{URI: hostPaths.fileURI(cleanAbs(e.Defined.File)), Range: entryRange(ms.config(e.Defined.File), e.RefersToSpan, e.Defined)})
	}
	for _, r := range refs.Calls {
		c := r.Site()
		out = append(out, navLocation(r.Script.Path, ms.script(r.Script), c.IDRange.Start, c.IDRange.End))
	}
	return out, nil
}
