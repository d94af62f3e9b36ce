package lsp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
	"github.com/restls/restls/hints"
)

// CommandShowEntry opens a configuration file at a range (window/
// showDocument): the command of the "add a skeleton entry" quick fix, run
// by the client once it has applied the edit, so that the user lands on
// the url to fill in. Arguments: {uri, range}.
const CommandShowEntry = "restls.showEntry"

// ShowEntryArgs are the arguments of restls.showEntry.
type ShowEntryArgs struct {
	URI   uri.URI        `json:"uri"`
	Range protocol.Range `json:"range"`
}

func (a *ShowEntryArgs) complete() bool { return a.URI.IsFile() }

// skeletonAction is the quick fix of an unknown serviceId that adds an
// entry for it to the XML file of the script's kind
// (script-service-api.xml, or script-handler-api.xml for scriptTask),
// creating the file when it does not exist (a client with
// documentChanges only: a plain edit cannot create a file). nil for a
// session shown other paths (the designer), when there is no such file to
// name, the file cannot be edited there, or the
// id is written with an escape.
func (s *session) skeletonAction(v view, d hints.Diagnostic, diag protocol.Diagnostic) *protocol.CodeAction {
	if s.opts.ShowPath != nil {
		return nil // a client shown other paths could not open the real file
	}
	text := v.d.doc.Text()
	if d.Code != hints.CodeUnknownService || d.Range.Start < 0 || d.Range.End > len(text) || d.Range.Start >= d.Range.End || v.snap == nil {
		return nil
	}
	id := text[d.Range.Start:d.Range.End]
	if strings.ContainsAny(id, "\\\n\r") {
		return nil
	}
	file := v.snap.Sources.KindXML(v.kind)
	if file == "" {
		return nil
	}
	file = cleanAbs(file)
	u := hostPaths.fileURI(file)
	var cur string
	exists := true
	if text, _, err := s.readConfig(file); err == nil {
		cur = text
	} else if errors.Is(err, fs.ErrNotExist) {
		exists = false
	} else {
		return nil
	}
	s.mu.Lock()
	docChanges := s.caps.documentChanges
	s.mu.Unlock()
	if !exists && !docChanges {
		return nil
	}
	off, insert, ok := config.SkeletonXMLEntry(cur, exists, id)
	if !ok {
		return nil
	}
	m := newMapper(cur)
	at := m.position(off)
	edit := protocol.TextEdit{Range: protocol.Range{Start: at, End: at}, NewText: insert}
	// Where the url to fill in lands: its line in the new text.
	after := cur[:off] + insert + cur[off:]
	urlAt := off + strings.Index(insert, config.SkeletonURL)
	am := newMapper(after)
	show := protocol.Range{Start: am.position(urlAt), End: am.position(urlAt + len(config.SkeletonURL))}
	we := &protocol.WorkspaceEdit{}
	if docChanges {
		td := &protocol.TextDocumentEdit{TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}}}
		td.Edits = append(td.Edits, &edit)
		if !exists {
			yes := true
			we.DocumentChanges = append(we.DocumentChanges, &protocol.CreateFile{Kind: "create", URI: u, Options: &protocol.CreateFileOptions{IgnoreIfExists: &yes}})
		}
		we.DocumentChanges = append(we.DocumentChanges, td)
	} else {
		we.Changes = map[uri.URI][]protocol.TextEdit{u: {edit}}
	}
	kind := protocol.CodeActionKindQuickFix
	a := &protocol.CodeAction{
		Title:       fmt.Sprintf("Add serviceId %q to %s (url to fill in)", id, filepath.Base(file)),
		Kind:        &kind,
		Diagnostics: []protocol.Diagnostic{diag},
		Edit:        we,
	}
	a.Command = protocol.Command{Title: "Open " + filepath.Base(file), Command: CommandShowEntry, Arguments: lspArgs(ShowEntryArgs{URI: u, Range: show})}
	return a
}

// showEntry asks the client to open a configuration file at a range
// (restls.showEntry); a client without window/showDocument is left as it
// is.
func (s *session) showEntry(ctx context.Context, c commandCall, a *ShowEntryArgs) (*ShowEntryResult, error) {
	// The client answers window/showDocument on the connection this
	// request came on: release the read goroutine first.
	ctx, done := s.detach(ctx, c.req)
	defer done()
	s.mu.Lock()
	can := s.caps.showDocument
	s.mu.Unlock()
	if !can {
		return &ShowEntryResult{Shown: false}, nil
	}
	yes := true
	var res protocol.ShowDocumentResult
	if _, err := s.conn.Call(ctx, protocol.MethodWindowShowDocument, &protocol.ShowDocumentParams{URI: a.URI, TakeFocus: &yes, Selection: &a.Range}, &res); err != nil {
		return &ShowEntryResult{Shown: false}, nil
	}
	return &ShowEntryResult{Shown: res.Success}, nil
}
