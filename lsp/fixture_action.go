package lsp

import (
	"bytes"
	"os"
	"time"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/hints"
	"github.com/restls/restls/openapi"
	"github.com/restls/restls/workspace"
)

// maxCheckedFixtureFile is the largest fixture file "Add a fixture"
// parses to see whether it answers the call already.
const maxCheckedFixtureFile = 1 << 20

// addFixtureTitle is the code action that writes a call's fixture from
// the description (issue 27).
const addFixtureTitle = "Add a fixture for this call"

// fixtureActions offers "Add a fixture for this call" on an
// api.rest.v1 call in [start, end] that the fixture file beside the
// script (workspace.FixtureFile) does not answer, when its serviceId's
// description (with its answers' schemas: Snapshot.AnswerAPIs) has the
// operation. The fixture is workspace.FixtureFor's, as restls fixtures
// generate writes it; a missing NAME.mock.yaml is created (a client
// without documentChanges gets no action then). The descriptions load
// on the first request and the action is offered once they have.
func (s *session) fixtureActions(v view, start, end int) []protocol.CommandOrCodeAction {
	if v.reg == nil || s.opts.ShowPath != nil || isConfigDocument(v.d.path) {
		return nil
	}
	if len(v.ws.APIs) == 0 {
		return nil
	}
	var call *hints.CallSite
	sites := hints.CallSites(v.d.doc)
	for i := range sites {
		if c := &sites[i]; c.Call.Start <= end && start <= c.Call.End {
			call = c // the innermost: calls come parents first
		}
	}
	if call == nil || call.Dynamic || call.ServiceID == "" || call.Method == "" {
		return nil
	}
	set := v.ws.AnswerAPIs(v.reg) // the store that checks the session's runs' answers
	if api, ok := set.API(call.ServiceID); !ok || api.Index == nil {
		return nil // no description (yet): the cheap answer, asked as the cursor moves
	}
	shape := workspace.CallShapeOf(call.ServiceID, call.Method, call.Path)
	file := workspace.FixtureFile(v.d.path)
	u := hostPaths.fileURI(cleanAbs(file))
	key := fixtureActionKey{call: call.ServiceID + " " + call.Method + " " + call.Path, file: file, set: set, caps: s.caps.documentChanges}
	d := s.document(u)
	if d != nil {
		key.doc = d
	} else {
		if fi, err := os.Stat(file); err == nil {
			key.size, key.mod = fi.Size(), fi.ModTime()
		}
		// A link to nothing stats as no file: its removal is a change.
		if fi, err := os.Lstat(file); err == nil {
			key.link = fi.Mode()&os.ModeSymlink != 0
		}
	}
	s.fixtureMu.Lock()
	out, ok := s.fixtureActs[key]
	s.fixtureMu.Unlock()
	if ok {
		return out
	}
	out = s.fixtureAction(v, shape, set, file, u, d)
	s.fixtureMu.Lock()
	if s.fixtureActs == nil || len(s.fixtureActs) > 64 {
		s.fixtureActs = map[fixtureActionKey][]protocol.CommandOrCodeAction{}
	}
	s.fixtureActs[key] = out
	s.fixtureMu.Unlock()
	return out
}

// fixtureActionKey is what an "Add a fixture" action was built for: the
// call, the descriptions, the fixture file as open or on disk, and
// whether the client takes documentChanges.
type fixtureActionKey struct {
	call, file string
	set        *openapi.Set
	doc        *document
	size       int64
	mod        time.Time
	caps, link bool
}

func (s *session) fixtureAction(v view, shape workspace.CallShape, set *openapi.Set, file string, u uri.URI, d *document) []protocol.CommandOrCodeAction {
	f, _, err := workspace.FixtureFor(set, shape)
	if err != nil {
		return nil
	}
	// The client creates or edits the file as told: through a link out
	// of the repository or to nothing, it would write outside.
	if workspace.FixtureWritable(v.d.path, file) != nil {
		return nil
	}
	var old []byte
	if d != nil {
		old = []byte(d.doc.Text()) // as edited
	} else if old, err = workspace.FixtureText(v.d.path, file); err != nil {
		return nil
	}
	// A large file is not parsed as the cursor moves: the action is
	// offered whether or not a fixture there answers the call (issue 33:
	// 24 s and 1.5 GiB beside a 15.5 MB file).
	large := len(old) > maxCheckedFixtureFile
	if !large && workspace.Answered(old, shape) {
		return nil
	}
	we := &protocol.WorkspaceEdit{}
	switch {
	case old == nil:
		if !s.caps.documentChanges {
			return nil
		}
		text, err := workspace.AddFixture(file, old, f)
		if err != nil {
			return nil
		}
		yes := true
		we.DocumentChanges = []protocol.DocumentChange{
			&protocol.CreateFile{Kind: "create", URI: u, Options: &protocol.CreateFileOptions{IgnoreIfExists: &yes}},
			&protocol.TextDocumentEdit{TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}},
				Edits: []protocol.TextDocumentEditElement{&protocol.TextEdit{NewText: string(text)}}},
		}
	default:
		// Edit what changes: the new fixture goes after the file's last
		// one, an insertion at its end, not the whole file again.
		if text, ok := workspace.AppendFixture(file, old, f); ok {
			end := endPosition(old)
			we.Changes = map[uri.URI][]protocol.TextEdit{u: {{Range: protocol.Range{Start: end, End: end}, NewText: text}}}
			break
		}
		if large {
			return nil // a shape only the whole rewrite handles: not for a large file
		}
		text, err := workspace.AddFixture(file, old, f)
		if err != nil {
			return nil
		}
		we.Changes = map[uri.URI][]protocol.TextEdit{u: {changedRange(old, text)}}
	}
	kind := protocol.CodeActionKindQuickFix
	return []protocol.CommandOrCodeAction{&protocol.CodeAction{Title: addFixtureTitle, Kind: &kind, Edit: we}}
}

// endPosition is the position of the end of text, under the protocol's
// line breaks (textpos': \n, \r\n and a lone \r).
func endPosition(text []byte) protocol.Position {
	line, start := 0, 0
	if bytes.IndexByte(text, '\r') < 0 {
		line = bytes.Count(text, []byte{'\n'})
		start = bytes.LastIndexByte(text, '\n') + 1
	} else {
		for i := 0; i < len(text); i++ {
			switch text[i] {
			case '\r':
				if i+1 < len(text) && text[i+1] == '\n' {
					i++
				}
				fallthrough
			case '\n':
				line, start = line+1, i+1
			}
		}
	}
	last := text[start:]
	// Only the last line is mapped: the file may be 16 MiB.
	return protocol.Position{Line: uint32(line), Character: newMapper(string(last)).position(len(last)).Character}
}

// changedRange is the edit that turns old into new: the part between
// their common beginning and end, so that a merge that added a fixture
// sends that fixture, not the file.
func changedRange(old, new []byte) protocol.TextEdit {
	p := 0
	for p < len(old) && p < len(new) && old[p] == new[p] {
		p++
	}
	for p > 0 && p < len(old) && !utf8.RuneStart(old[p]) {
		p--
	}
	q := 0
	for q < len(old)-p && q < len(new)-p && old[len(old)-1-q] == new[len(new)-1-q] {
		q++
	}
	for q > 0 && !utf8.RuneStart(old[len(old)-q]) {
		q--
	}
	m := newMapper(string(old))
	return protocol.TextEdit{Range: protocol.Range{Start: m.position(p), End: m.position(len(old) - q)}, NewText: string(new[p : len(new)-q])}
}
