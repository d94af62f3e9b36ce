package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// didSave of a configuration file reloads at once, without waiting for the
// file watcher: the editor knows the file changed.
func (s *session) didSave(_ context.Context, req *jsonrpc2.Request, p *protocol.DidSaveTextDocumentParams) (any, error) {
	if p.TextDocument.URI.IsFile() {
		s.configFilesChanged([]string{hostPaths.fsPath(p.TextDocument.URI)})
		s.testFilesMayHaveChanged() // a script or fixtures file a test file names
	}
	return nil, nil
}
