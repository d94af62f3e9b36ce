package lsp

import (
	"context"
	"encoding/json"
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// Commands offered through workspace/executeCommand.
const (
	CommandRunScript = "restls.runScript"
	CommandServices  = "restls.services"
	CommandReload    = "restls.reload"
)

func (s *session) initialize(ctx context.Context, req *jsonrpc2.Request, p *protocol.InitializeParams) (any, error) {
	s.mu.Lock()
	if s.state != stateNew {
		s.mu.Unlock()
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "restls: initialize was already received")
	}
	s.caps = capsOf(&p.Capabilities)
	s.root = rootOf(p)
	set, problems := parseSettings(p.InitializationOptions)
	if msg := s.environmentProblem(set); msg != "" {
		problems = append(problems, msg)
	}
	s.applySettingsLocked(set)
	files := filesOf(s.settings)
	s.state = stateInitialized
	reg := s.registryLocked()
	s.mu.Unlock()
	// Load the registry while the editor opens its documents: the first
	// completion should not wait for it.
	s.bg.Go(func() { s.safely("preload", func() { reg.Get() }) })

	name := "unknown client"
	if p.ClientInfo.Name != "" {
		name = p.ClientInfo.Name
	}
	s.log.Info("initialize", zap.String("client", name), zap.String("root", s.root), zap.Bool("clientWatchesFiles", s.caps.dynamicWatch))
	for _, msg := range problems {
		s.log.Warn("settings problem", zap.String("problem", msg))
		s.showMessage(ctx, protocol.MessageTypeWarning, msg)
	}

	syncKind := protocol.TextDocumentSyncKindIncremental
	yes := true
	res := &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			PositionEncoding: protocol.PositionEncodingKindUTF16,
			TextDocumentSync: &protocol.TextDocumentSyncOptions{OpenClose: &yes, Change: &syncKind},
			CompletionProvider: &protocol.CompletionOptions{
				TriggerCharacters: []string{".", "'", "\"", "`", "{", ",", " "},
				ResolveProvider:   &yes,
			},
			HoverProvider:      protocol.Boolean(true),
			DefinitionProvider: protocol.Boolean(true),
			SignatureHelpProvider: &protocol.SignatureHelpOptions{
				TriggerCharacters:   []string{"(", ","},
				RetriggerCharacters: []string{","},
			},
			CodeActionProvider: &protocol.CodeActionOptions{
				CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix},
			},
			// Navigation (issue 26).
			ReferencesProvider:      protocol.Boolean(true),
			RenameProvider:          &protocol.RenameOptions{PrepareProvider: &yes},
			DocumentSymbolProvider:  protocol.Boolean(true),
			WorkspaceSymbolProvider: protocol.Boolean(true),
			CodeLensProvider:        &protocol.CodeLensOptions{},
			InlayHintProvider:       protocol.Boolean(true),
			InlineValueProvider:     protocol.Boolean(true),
			ExecuteCommandProvider: protocol.ExecuteCommandOptions{
				Commands: commandNames(),
			},
		},
		ServerInfo: protocol.ServerInfo{Name: "restls"},
	}
	// Before any document is opened, the editor learns which files to
	// send (docs/lsp.md, "Which files are scripts").
	if exp, err := json.Marshal(Experimental{Restls: files}); err == nil {
		res.Capabilities.Experimental = exp
	}
	if v := s.srv.opts.Version; v != "" {
		res.ServerInfo.Version = protocol.NewOptional(v)
	}
	return res, nil
}

// Experimental is what the initialize result's
// capabilities.experimental holds: restls' answers an editor needs
// before it sends any document.
type Experimental struct {
	Restls Files `json:"restls"`
}

func capsOf(c *protocol.ClientCapabilities) clientCaps {
	var cc clientCaps
	if w := c.Workspace; w != nil {
		if w.DidChangeWatchedFiles != nil && w.DidChangeWatchedFiles.DynamicRegistration != nil {
			cc.dynamicWatch = *w.DidChangeWatchedFiles.DynamicRegistration
		}
		if w.Configuration != nil {
			cc.configPull = *w.Configuration
		}
		if we := w.WorkspaceEdit; we != nil && we.DocumentChanges != nil {
			cc.documentChanges = *we.DocumentChanges
		}
		if cl := w.CodeLens; cl != nil && cl.RefreshSupport != nil {
			cc.lensRefresh = *cl.RefreshSupport
		}
		if ih := w.InlayHint; ih != nil && ih.RefreshSupport != nil {
			cc.inlayRefresh = *ih.RefreshSupport
		}
		if iv := w.InlineValue; iv != nil && iv.RefreshSupport != nil {
			cc.valueRefresh = *iv.RefreshSupport
		}
	}
	if w := c.Window; w != nil && w.WorkDoneProgress != nil {
		cc.workDoneProgress = *w.WorkDoneProgress
	}
	if w := c.Window; w != nil && w.ShowDocument != nil {
		cc.showDocument = w.ShowDocument.Support
	}
	if td := c.TextDocument; td != nil && td.Completion != nil {
		if ci := td.Completion.CompletionItem; ci != nil {
			if ci.SnippetSupport != nil {
				cc.snippets = *ci.SnippetSupport
			}
			cc.lazyDocs = slices.Contains(ci.ResolveSupport.Properties, "documentation")
		}
		if cl := td.Completion.CompletionList; cl != nil {
			cc.editRange = slices.Contains(cl.ItemDefaults, "editRange")
			cc.dataDefault = slices.Contains(cl.ItemDefaults, "data")
		}
	}
	return cc
}

// rootOf returns the workspace root directory: the first workspace folder,
// else rootUri, else rootPath.
func rootOf(p *protocol.InitializeParams) string {
	if folders, ok := p.WorkspaceFolders.Get(); ok && len(folders) > 0 && folders[0].URI.IsFile() {
		return hostPaths.fsPath(folders[0].URI)
	}
	//lint:ignore SA1019 LSP clients still send rootUri instead of workspace folders
	if u := p.RootURI; u != nil && u.IsFile() {
		return hostPaths.fsPath(*u)
	}
	//lint:ignore SA1019 LSP clients still send rootPath instead of workspace folders
	if rp, ok := p.RootPath.Get(); ok {
		return rp
	}
	return ""
}
