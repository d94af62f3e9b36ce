package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// didClose forgets the document and clears its diagnostics, unless it is a
// configuration file, whose diagnostics come from the registry and stay.
func (s *session) didClose(ctx context.Context, req *jsonrpc2.Request, p *protocol.DidCloseTextDocumentParams) (any, error) {
	u := p.TextDocument.URI
	s.diagnostics.forget(ctx, u, func() {
		s.dropDocument(u)
		s.forgetExplored(u)
	})
	return nil, nil
}
