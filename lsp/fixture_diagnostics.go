package lsp

import (
	"context"
	"os"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
	"github.com/restls/restls/openapi"
	"github.com/restls/restls/workspace"
)

// publishFixtures publishes the findings of the fixture file beside the
// script of v (workspace.MockFileBeside) against the session's
// descriptions (workspace.CheckFixtures: openapi-fixture-status and
// -body), as restls check reports them. The descriptions are loaded with
// their answers' schemas in the store of the runs' answer checks (Snapshot.AnswerAPIs),
// only once a script with a fixture file beside it is open; when one
// completes, the documents are diagnosed again.
func (s *session) publishFixtures(ctx context.Context, v view) {
	if v.reg == nil || s.opts.ShowPath != nil || isConfigDocument(v.d.path) {
		return
	}
	if len(v.ws.APIs) == 0 {
		return
	}
	file := workspace.MockFileBeside(v.d.path)
	if file == "" {
		return
	}
	set := v.ws.AnswerAPIs(v.reg) // the store that checks the session's runs' answers
	u := hostPaths.fileURI(cleanAbs(file))
	s.mu.Lock()
	d := s.docs[u]
	s.mu.Unlock()
	// Diagnosed each time the script is: the file is read and checked
	// again only when it, or the descriptions, changed.
	key := fixtureKey{set: set, doc: d}
	if d == nil {
		fi, err := os.Stat(file)
		if err != nil {
			return
		}
		key.size, key.mod = fi.Size(), fi.ModTime()
	}
	s.fixtureMu.Lock()
	same := s.fixtureSeen[file] == key
	s.fixtureMu.Unlock()
	if same {
		return
	}
	var m *mapper
	if d != nil {
		m = d.m // the text as edited, not yet saved
	} else {
		data, err := input.ReadFileIn(workspace.FixtureRoot(v.d.path), file, input.Fixtures)
		if err != nil {
			return
		}
		m = newFileMapper(string(data))
	}
	out := []protocol.Diagnostic{}
	for _, p := range workspace.CheckFixtures([]byte(m.Text()), set) {
		out = append(out, configDiagnostic(m, config.Diagnostic{Position: config.Position{Line: p.Line, RuneCol: p.RuneCol},
			Severity: config.SeverityWarning, Code: p.Code, Message: p.Message}))
	}
	s.fixtureMu.Lock()
	if s.fixtureSeen == nil || len(s.fixtureSeen) > 256 {
		s.fixtureSeen = map[string]fixtureKey{}
	}
	s.fixtureSeen[file] = key
	s.fixtureMu.Unlock()
	s.notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: out})
}

// fixtureKey is what a fixture file's findings were published for: the
// descriptions, and the open document or the file's size and time.
type fixtureKey struct {
	set  *openapi.Set
	doc  *document
	size int64
	mod  time.Time
}

// fixtureEdited queues the script beside an edited fixture file, when it
// is open, so publishFixtures checks the file as edited.
func (s *session) fixtureEdited(path string) {
	for _, suffix := range workspace.MockSuffixes {
		if base, ok := strings.CutSuffix(path, suffix); ok {
			u := hostPaths.fileURI(cleanAbs(base + ".js"))
			if s.document(u) != nil {
				s.markDirty(u)
			}
		}
	}
}
