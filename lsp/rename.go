package lsp

import (
	"context"
	"errors"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/workspace/index"
)

// errRequestFailed is LSP's RequestFailed: the request was valid, its
// answer is a refusal the user reads.
const errRequestFailed jsonrpc2.Code = -32803

// configAnnotation marks the edits of configuration files: the editor
// asks before it applies them.
const configAnnotation protocol.ChangeAnnotationIdentifier = "restls.configuration"

// prepareRename answers with the serviceId under the cursor (a call's
// literal, an entry's id or an <id>/<suffix> reference), or an error
// saying what can be renamed.
func (s *session) prepareRename(ctx context.Context, p *protocol.PrepareRenameParams, m *mapper) (any, error) {
	if m == nil {
		return nil, nil
	}
	ni, t, ok := s.navTargetAt(ctx, m, p.TextDocument.URI, p.Position)
	if ni == nil {
		return nil, nil
	}
	if !ok || t.oauth {
		return nil, jsonrpc2.NewError(errRequestFailed,
			"restls renames serviceIds: place the cursor on a serviceId string in an api.rest.v1 call, or on a serviceId or <serviceId>/<suffix> url in the configuration")
	}
	return &protocol.PrepareRenamePlaceholder{Range: protocol.Range{Start: m.position(t.start), End: m.position(t.end)}, Placeholder: t.id}, nil
}

// rename renames a serviceId everywhere it is named for the kinds
// concerned (index.Index.Rename): one workspace edit, the configuration
// edits annotated as needing confirmation. A refusal is an error whose
// message says why and where.
func (s *session) rename(ctx context.Context, p *protocol.RenameParams, m *mapper) (any, error) {
	if m == nil {
		return nil, nil
	}
	ni, t, ok := s.navTargetAt(ctx, m, p.TextDocument.URI, p.Position)
	if ni == nil {
		return nil, nil
	}
	if !ok || t.oauth {
		return nil, jsonrpc2.NewError(errRequestFailed, "restls renames serviceIds only: the cursor is not on one")
	}
	plan, err := ni.Index().Rename(t.id, p.NewName, t.kinds)
	if err != nil {
		if errors.Is(err, index.ErrRefused) {
			return nil, jsonrpc2.NewError(errRequestFailed, "restls: "+err.Error())
		}
		return nil, err
	}
	return s.workspaceEdit(ni, plan, t.id, p.NewName), nil
}

// edited returns the mapper of a file a rename plan edits.
func (ms *mappers) edited(f index.FileEdits) *mapper {
	switch {
	case f.Config:
		return ms.config(f.Path)
	case f.Data != nil:
		return ms.data(f.Path)
	}
	return ms.script(f.Script)
}

// workspaceEdit converts a rename plan: documentChanges, each
// configuration edit carrying the annotation that asks for confirmation;
// plain changes for a client without documentChanges (it cannot be asked).
func (s *session) workspaceEdit(ni *navIndex, plan *index.Plan, from, to string) *protocol.WorkspaceEdit {
	ms := s.newMappers(ni)
	s.mu.Lock()
	docChanges := s.caps.documentChanges
	s.mu.Unlock()
	if !docChanges {
		we := &protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{}}
		for _, f := range plan.Files {
			m := ms.edited(f)
			u := hostPaths.fileURI(cleanAbs(f.Path))
			for _, e := range f.Edits {
				we.Changes[u] = append(we.Changes[u], protocol.TextEdit{Range: protocol.Range{Start: m.position(e.Start), End: m.position(e.End)}, NewText: e.NewText})
			}
		}
		return we
	}
	yes := true
	desc := fmt.Sprintf("The platform reads its configuration only when webforms-rest starts: renaming %q to %q there takes effect after a restart, and every script on the server must be deployed with the new id at the same time.", from, to)
	we := &protocol.WorkspaceEdit{
		DocumentChanges: make([]protocol.DocumentChange, 0, len(plan.Files)),
		ChangeAnnotations: map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{
			configAnnotation: {Label: "Rename in the service configuration", NeedsConfirmation: &yes, Description: &desc},
		},
	}
	for _, f := range plan.Files {
		m := ms.edited(f)
		u := hostPaths.fileURI(cleanAbs(f.Path))
		td := &protocol.TextDocumentEdit{TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}}}
		if d := s.document(u); d != nil && !f.Config {
			v := d.version
			td.TextDocument.Version = &v
		}
		for _, e := range f.Edits {
			te := protocol.TextEdit{Range: protocol.Range{Start: m.position(e.Start), End: m.position(e.End)}, NewText: e.NewText}
			if f.Config {
				td.Edits = append(td.Edits, &protocol.AnnotatedTextEdit{TextEdit: te, AnnotationID: configAnnotation})
			} else {
				td.Edits = append(td.Edits, &te)
			}
		}
		we.DocumentChanges = append(we.DocumentChanges, td)
	}
	return we
}
