package lsp

import (
	"context"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
	"github.com/restls/restls/workspace"
)

// MethodDocumentInfo is the custom request an editor sends to learn what
// the server decided about one script: its kind and why, the fixture
// files a dry run of it uses, and how to name it. The editor asks rather
// than deciding again (the rules live here and in config, once).
const MethodDocumentInfo = "restls/documentInfo"

// DocumentInfoParams are the params of restls/documentInfo.
type DocumentInfoParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
}

// DocumentInfo is the result of restls/documentInfo.
type DocumentInfo struct {
	// Kind is the script kind hints, diagnostics and dry runs use, with
	// where the decision came from (directive, kindMap and its glob, or
	// default).
	Kind config.KindDecision `json:"kind"`
	// Fixtures are the fixture files beside the script, in the order a
	// dry run with mock "auto" looks for them (workspace.MockSuffixes); empty for
	// a document that is not a file.
	Fixtures []string `json:"fixtures"`
	// MockFile is the first of Fixtures that exists and that a dry run
	// would read (workspace.MockFileBeside), "" when there is none.
	MockFile string `json:"mockFile"`
	// Script says whether the document is a platform script (Files'
	// Scripts match its path; a document that is no file always is): an
	// editor offers its run commands and lenses on this answer.
	Script bool `json:"script"`
	// DisplayPath is how the server names the script: relative to the
	// workspace root when below it, else as it is (the designer's paths as
	// it shows them).
	DisplayPath string `json:"displayPath"`
}

// documentInfo answers restls/documentInfo for an open document, or for
// a script file on disk the editor has not opened; null for anything
// else (a closed document of another scheme, an unreadable file).
func (s *session) documentInfo(ctx context.Context, req *jsonrpc2.Request, p *DocumentInfoParams) (*DocumentInfo, error) {
	if p.TextDocument.URI == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "restls: %s needs textDocument.uri", MethodDocumentInfo)
	}
	u := canonicalURI(string(p.TextDocument.URI))
	s.mu.Lock()
	d := s.docs[u]
	set := s.settings
	root := s.root
	s.mu.Unlock()
	var info DocumentInfo
	var path string
	switch {
	case d != nil:
		path = scriptPath(d.uri, d.path)
		info = fixturesOf(path)
		info.Kind = s.workspaceSnapshot().Kind(hostPaths.slash(d.path), d.doc.Text())
	case u.IsFile():
		path = hostPaths.fsPath(u)
		text, _, err := s.readFile(path, input.Script)
		if err != nil {
			return nil, nil
		}
		info = fixturesOf(path)
		info.Kind = s.workspaceSnapshot().Kind(hostPaths.slash(path), text)
	default:
		return nil, nil
	}
	info.Script = path == "" || set.Scripts.Match(path)
	info.DisplayPath = s.displayScript(root, path, string(u))
	show := s.opts.ShowPath
	if show != nil {
		for i, f := range info.Fixtures {
			info.Fixtures[i] = show(f)
		}
		if info.MockFile != "" {
			info.MockFile = show(info.MockFile)
		}
	}
	return &info, nil
}

// fixturesOf is the fixture files of the script at path ("": not a file),
// as a dry run names and finds them.
func fixturesOf(path string) DocumentInfo {
	info := DocumentInfo{Fixtures: []string{}}
	if path != "" {
		info.Fixtures = workspace.MockCandidates(path)
		info.MockFile = workspace.MockFileBeside(path)
	}
	return info
}

// displayScript names a script for the client: ShowPath's name when the
// session has one, else the path relative to the workspace root when it
// lies below it, else the path (the URI for a document that is no file).
func (s *session) displayScript(root, path, u string) string {
	if path == "" {
		return u
	}
	if s.opts.ShowPath != nil {
		return s.opts.ShowPath(path)
	}
	if root != "" {
		if rel, err := filepath.Rel(root, path); err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
			return filepath.ToSlash(rel)
		}
	}
	return path
}
