package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

func (s *session) didOpen(_ context.Context, req *jsonrpc2.Request) (any, error) {
	var p protocol.DidOpenTextDocumentParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	td := p.TextDocument
	d := newDocument(td.URI, td.Version, td.Text)
	s.mu.Lock()
	s.docs[d.uri] = d
	s.mu.Unlock()
	s.markDirty(td.URI)
	return nil, nil
}
