package lsp

import (
	"context"
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// didClose forgets the document and clears its diagnostics, unless it is a
// configuration file, whose diagnostics come from the registry and stay.
func (s *session) didClose(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p protocol.DidCloseTextDocumentParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	u := p.TextDocument.URI
	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	s.mu.Lock()
	delete(s.docs, u)
	delete(s.dirty, u)
	s.parsed = slices.DeleteFunc(s.parsed, func(p uri.URI) bool { return p == u })
	isConfig := s.configURIs[u]
	s.mu.Unlock()
	if !isConfig {
		s.notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: []protocol.Diagnostic{}})
	}
	return nil, nil
}
