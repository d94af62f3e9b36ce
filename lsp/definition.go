package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/restls/restls/hints"
)

// definition opens, for a call, the operation in its service's API
// description, and for a serviceId, its configuration.
func (s *session) definition(ctx context.Context, p *protocol.DefinitionParams, t viewed) (any, error) {
	v, ok := t.view, t.ok
	if !ok || s.opts.ShowPath != nil {
		// A client shown other paths cannot open the real ones.
		return nil, nil
	}
	def, ok := hints.DefinitionAt(v.d.doc, v.d.m.offset(p.Position), v.reg, s.displayFor(v))
	if !ok {
		return nil, nil
	}
	line := uint32(max(def.Line-1, 0))
	m := s.configMapper(hostPaths.fileURI(cleanAbs(def.File)), def.File)
	start := protocol.Position{Line: line}
	end := start
	if def.Line >= 1 && def.Line <= m.Lines() {
		end = m.position(int(m.LineEnd(def.Line)))
	}
	loc := protocol.Location{URI: hostPaths.fileURI(cleanAbs(def.File)), Range: protocol.Range{Start: start, End: end}}
	return []protocol.Location{loc}, nil
}
