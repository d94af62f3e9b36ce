package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

func (s *session) didChangeWatchedFiles(_ context.Context, req *jsonrpc2.Request, p *protocol.DidChangeWatchedFilesParams) (any, error) {
	var paths []string
	for _, ev := range p.Changes {
		if ev.URI.IsFile() {
			paths = append(paths, hostPaths.fsPath(ev.URI))
		}
	}
	if len(paths) > 0 {
		s.configFilesChanged(paths)
		if s.srv.ws.FilesChanged(paths) { // the project index's scripts
			s.diagnostics.mark(true) // service-unused follows them
		}
		if ni := s.projectIndex(); ni != nil {
			s.sayWalkStop(ni)
		}
		s.testFilesMayHaveChanged()
	}
	return nil, nil
}
