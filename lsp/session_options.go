package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
)

// SessionOptions say what one session's client may do and see. The zero
// value is the least trusted session: it may edit and ask for hints, but
// not run scripts or reload the configuration. ServeStream (stdio, where
// the editor started the server itself) grants everything; the HTTP
// backend decides per WebSocket.
type SessionOptions struct {
	// MayRun allows restls.runScript (when the server has a Runner).
	MayRun bool
	// MayReload allows restls.reload.
	MayReload bool
	// Refused is the sentence a refused command answers with: why this
	// session may not, and what to do. Empty means a generic one.
	Refused string
	// ShowPath turns the path of a configuration file into what this
	// session's client is shown (in hover, completion documentation,
	// diagnostics and restls/status); nil shows it as it is. Sessions that
	// show other paths get no diagnostics published on the configuration
	// files themselves, since a document URI must be the real path.
	ShowPath func(path string) string
}

// trusted is what a stdio session may do: its editor started the server.
var trusted = SessionOptions{MayRun: true, MayReload: true}

// ServeStream serves one LSP session on stream with every permission; see
// ServeSession.
func (s *Server) ServeStream(ctx context.Context, stream jsonrpc2.Stream) error {
	return s.ServeSession(ctx, stream, trusted)
}

// refused is the error a command the session may not use answers.
func (s *session) refused(command string) error {
	why := s.opts.Refused
	if why == "" {
		why = "this session is not allowed to use it"
	}
	return jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s: %s", command, why)
}

// showPath is how this session's client sees a configuration path.
func (s *session) showPath(p string) string {
	if s.opts.ShowPath == nil || p == "" {
		return p
	}
	return s.opts.ShowPath(p)
}
