package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"

	"github.com/restls/restls/config"
	"github.com/restls/restls/hints"
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
	// MayUseFiles allows restls.runScript's mock and record arguments,
	// which make a run read and write fixture files on the server's
	// machine, anywhere its user may.
	MayUseFiles bool

	// HistoryInMemory keeps this session's dry runs in memory, for this
	// session only (a designer's), rather than in the server's
	// Options.History on disk.
	HistoryInMemory bool

	// MayAttachAPIs lets the session's settings name API descriptions
	// (files and URLs the server then reads) and its scripts' directories
	// give recorded answers; the server's --openapi descriptions apply
	// either way.
	MayAttachAPIs bool
	// ReloadRefused, when set, is asked as restls.reload is handled (after
	// MayReload): an error refuses the reload with its text (a designer
	// session whose sign-in has expired).
	ReloadRefused func() error
	// Refused is the sentence a refused command answers with: why this
	// session may not, and what to do. Empty means a generic one.
	Refused string
	// SourcesRefused, when set, says why this session's settings may not
	// choose configuration sources (configRoot, the file settings,
	// registryUrl): settings that name sources other than the server's get
	// a registry with no serviceId hints and this diagnostic, and nothing
	// they name is read or fetched. Nil lets settings choose, as an editor
	// that started the server itself may.
	SourcesRefused *config.Diagnostic
	// ShowPath turns the path of a configuration file into what this
	// session's client is shown (in hover, completion documentation,
	// diagnostics and restls/status); nil shows it as it is. Sessions that
	// show other paths get no diagnostics published on the configuration
	// files themselves, since a document URI must be the real path.
	ShowPath func(path string) string

	// MaxDocuments caps the documents open at once, MaxBytes their text
	// in all; zero means no cap. A document past either is not kept: it
	// gets one session-limit diagnostic saying which limit and
	// RaiseLimits (how to raise them, e.g. the flags).
	MaxDocuments int
	MaxBytes     int64
	RaiseLimits  string
}

// trusted is what a stdio session may do: its editor started the server.
var trusted = SessionOptions{MayRun: true, MayReload: true, MayUseFiles: true, MayAttachAPIs: true}

// ServeStream serves one LSP session on stream with every permission; see
// ServeSession.
func (s *Server) ServeStream(ctx context.Context, stream jsonrpc2.Stream) error {
	return s.ServeSession(ctx, stream, trusted)
}

// load is how this session reads the sources its settings name.
func (s *session) load() func(config.Sources) *config.Snapshot {
	if d := s.opts.SourcesRefused; d != nil {
		refusal := *d
		return func(src config.Sources) *config.Snapshot {
			// The project file's environments are the server's own
			// configuration: choosing one reads nothing a client named.
			if s.srv.ws.IsEnvironment(src) {
				return s.srv.ws.Load(src)
			}
			return config.FailedSnapshot(src, refusal)
		}
	}
	return s.srv.ws.Load
}

// refused is the error a command the session may not use answers.
func (s *session) refused(command string) error {
	why := s.opts.Refused
	if why == "" {
		why = "this session is not allowed to use it"
	}
	return jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s: %s", command, why)
}

// display is how the hint engine shows paths to this session's client.
func (s *session) display() hints.Display { return hints.Display{Path: s.opts.ShowPath} }

// displayFor is the session's display with the API descriptions of the
// view's services.
func (s *session) displayFor(v view) hints.Display {
	d := s.display()
	d.APIs = v.apis
	d.ConfiguredFor = hints.ConfiguredIn(v.snap, v.kind)
	d.KindChosen = v.kindSource == config.KindFromExplicit
	d.TimeLimit = v.ws.TimeLimit(v.kind)
	d.EngineLevel = v.ws.EngineLevel
	return d
}
