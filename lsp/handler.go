package lsp

import (
	"context"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
)

// method handles one LSP method. Handlers run on the connection's read
// goroutine, in arrival order; a read-only request calls s.detach once it has
// taken its view of the state, and runs concurrently from there.
type method func(s *session, ctx context.Context, req *jsonrpc2.Request) (any, error)

// methods is the protocol surface; each entry lives in its own file.
var methods = withCustomMethods(map[string]method{
	protocol.MethodInitialize:             typed((*session).initialize),
	protocol.MethodInitialized:            (*session).initialized,
	protocol.MethodShutdown:               (*session).shutdown,
	protocol.MethodExit:                   (*session).exit,
	protocol.MethodCancelRequest:          typed((*session).cancelRequest),
	protocol.MethodSetTrace:               ignore,
	protocol.MethodTextDocumentDidOpen:    typed((*session).didOpen),
	protocol.MethodTextDocumentDidChange:  typed((*session).didChange),
	protocol.MethodTextDocumentDidClose:   typed((*session).didClose),
	protocol.MethodTextDocumentDidSave:    typed((*session).didSave),
	protocol.MethodTextDocumentCompletion: typed((*session).completion),
	protocol.MethodCompletionItemResolve:  typed((*session).completionResolve),
	protocol.MethodTextDocumentHover: request(func(s *session, p *protocol.HoverParams) viewed {
		return s.scriptViewed(p.TextDocument.URI)
	}, (*session).hover),
	protocol.MethodTextDocumentDefinition: request(func(s *session, p *protocol.DefinitionParams) viewed {
		return s.scriptViewed(p.TextDocument.URI)
	}, (*session).definition),
	protocol.MethodTextDocumentSignatureHelp: request(func(s *session, p *protocol.SignatureHelpParams) viewed {
		return s.scriptViewed(p.TextDocument.URI)
	}, (*session).signatureHelp),
	protocol.MethodTextDocumentCodeAction: request(func(s *session, p *protocol.CodeActionParams) viewed {
		return s.scriptViewed(p.TextDocument.URI)
	}, (*session).codeAction),
	protocol.MethodWorkspaceExecuteCommand:         typed((*session).executeCommand),
	protocol.MethodWorkspaceDidChangeWatchedFiles:  typed((*session).didChangeWatchedFiles),
	protocol.MethodWorkspaceDidChangeConfiguration: typed((*session).didChangeConfiguration),

	// Navigation over the project index (issue 26).
	protocol.MethodTextDocumentReferences: request(func(s *session, p *protocol.ReferenceParams) *mapper {
		return s.navMapper(p.TextDocument.URI)
	}, (*session).references),
	protocol.MethodTextDocumentPrepareRename: request(func(s *session, p *protocol.PrepareRenameParams) *mapper {
		return s.navMapper(p.TextDocument.URI)
	}, (*session).prepareRename),
	protocol.MethodTextDocumentRename: request(func(s *session, p *protocol.RenameParams) *mapper {
		return s.navMapper(p.TextDocument.URI)
	}, (*session).rename),
	protocol.MethodTextDocumentDocumentSymbol: request(func(s *session, p *protocol.DocumentSymbolParams) *document {
		return s.document(p.TextDocument.URI)
	}, (*session).documentSymbol),
	protocol.MethodWorkspaceSymbol: request(takeNothing[protocol.WorkspaceSymbolParams], (*session).workspaceSymbol),
	protocol.MethodTextDocumentCodeLens: request(func(s *session, p *protocol.CodeLensParams) *mapper {
		return s.navMapper(p.TextDocument.URI)
	}, (*session).codeLens),
	protocol.MethodTextDocumentInlayHint: request((*session).inlayHintView, (*session).inlayHint),
	// The last run's values (issue 35).
	protocol.MethodTextDocumentInlineValue: request(func(s *session, p *protocol.InlineValueParams) viewed {
		return s.scriptViewed(p.TextDocument.URI)
	}, (*session).inlineValue),
})

func ignore(*session, context.Context, *jsonrpc2.Request) (any, error) { return nil, nil }

// typed makes a method of a handler that takes its params decoded into
// P: every method with params is decoded here (request is built on it),
// never by its handler (an InvalidParams error when they do not decode). A P
// whose pointer is a rawDecoder decodes itself; any other is read by
// protocol's decoder. The handler runs on the read goroutine and detaches
// itself when it may.
func typed[P any](run func(s *session, ctx context.Context, req *jsonrpc2.Request, p *P) (any, error)) method {
	return func(s *session, ctx context.Context, req *jsonrpc2.Request) (any, error) {
		var p P
		if err := decodeParams(req, &p); err != nil {
			return nil, err
		}
		return run(s, ctx, req, &p)
	}
}

// rawDecoder is a params type that decodes its own wire form (didOpen's,
// which must not copy the script's text).
type rawDecoder interface{ decodeRaw(raw []byte) error }

// decodeParams decodes the params of req into p, by p's own decoder when
// it has one.
func decodeParams(req *jsonrpc2.Request, p any) error {
	if d, ok := p.(rawDecoder); ok {
		return decodeWith(req, d.decodeRaw)
	}
	return decode(req, p)
}

// request makes a read-only request's handler of its two parts, doing the
// steps every such request shares once: decode the params into P
// (typed); take, on the read
// goroutine, what the request needs of the session's state (a document's
// view, a mapper), so it sees every notification before it and none
// after; detach, so later messages are handled while run works; and
// answer a request cancelled meanwhile with RequestCancelled.
func request[P, T any](take func(*session, *P) T, run func(*session, context.Context, *P, T) (any, error)) method {
	return typed(func(s *session, ctx context.Context, req *jsonrpc2.Request, p *P) (any, error) {
		t := take(s, p)
		ctx, done := s.detach(ctx, req)
		defer done()
		res, err := run(s, ctx, p, t)
		return cancelled(ctx, res, err)
	})
}

// viewed is the take of a request about one script: its view, and
// whether it has one (an open script; scriptViewOf).
type viewed struct {
	view
	ok bool
}

func (s *session) scriptViewed(u uri.URI) viewed {
	v, ok := s.scriptViewOf(u)
	return viewed{v, ok}
}

// takeNothing is the take of a request that needs no document.
func takeNothing[P any](*session, *P) struct{} { return struct{}{} }

var (
	errNotInitialized = jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, "restls: the server is not initialized yet; send initialize first")
	errShutDown       = jsonrpc2.NewError(jsonrpc2.InvalidRequest, "restls: the server is shut down; only exit is accepted")
)

// handle is the connection's jsonrpc2.Handler. It never returns an error
// for a notification (jsonrpc2 would drop the connection) and never lets a
// panic escape (jsonrpc2 would fail the connection): both are logged, and a
// call gets an InternalError response.
func (s *session) handle(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
	name := strings.Clone(req.Method())
	isCall := req.IsCall()
	start := time.Now()
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("recovered from a panic in a handler", zap.String("method", name), zap.Any("panic", r), zap.StackSkip("stack", 1))
			result, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "restls: internal error while handling %s; the server log has the details", name)
		}
		if !isCall {
			if err != nil {
				s.log.Warn("notification failed", zap.String("method", name), zap.Error(err))
			}
			result, err = nil, nil
		}
		if ce := s.log.Check(zap.DebugLevel, "handled"); ce != nil {
			ce.Write(zap.String("method", name), zap.Bool("call", isCall), zap.Duration("took", time.Since(start)), zap.Error(err))
		}
	}()

	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	switch {
	case name == protocol.MethodExit:
	case state == stateNew && name != protocol.MethodInitialize:
		if isCall {
			return nil, errNotInitialized
		}
		return nil, nil // notifications before initialize are dropped (spec)
	case state == stateShutdown:
		if isCall {
			return nil, errShutDown
		}
		return nil, nil
	}

	m, ok := methods[name]
	if !ok {
		if isCall {
			return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "restls: method %q is not supported", name)
		}
		return nil, nil // "$/..." and unknown notifications are ignored (spec)
	}
	return m(s, ctx, req)
}

// decode unmarshals the params of req into v.
func decode(req *jsonrpc2.Request, v any) error {
	return decodeWith(req, func(raw []byte) error { return codec.Unmarshal(codec{}, raw, v) })
}

// decodeWith runs dec on the params of req, turning a missing or
// undecodable params into InvalidParams.
func decodeWith(req *jsonrpc2.Request, dec func([]byte) error) error {
	if len(req.Params()) == 0 {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "restls: %s needs params", req.Method())
	}
	if err := dec(req.Params()); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "restls: invalid params for %s: %v", req.Method(), err)
	}
	return nil
}

// detach releases the read goroutine so later messages are handled while
// this request runs, and returns a context that $/cancelRequest cancels.
// The caller must call done when it has its answer.
//
// The context is a child of the session's, not of the request's: jsonrpc2
// hands each request a context of its own type, and a cancelable child of
// a context the context package does not know costs a goroutine watching
// it, per request (10-15% of a completion's CPU over stdio). The request's
// context holds the session's values and ends with the connection, as the
// session's does.
func (s *session) detach(ctx context.Context, req *jsonrpc2.Request) (context.Context, func()) {
	id := req.ID()
	parent := s.ctx
	if parent == nil {
		parent = ctx
	}
	dctx, cancel := context.WithCancel(parent)
	s.mu.Lock()
	s.inflight[id] = cancel
	s.mu.Unlock()
	jsonrpc2.Async(ctx)
	return dctx, func() {
		s.mu.Lock()
		delete(s.inflight, id)
		s.mu.Unlock()
		cancel()
	}
}

// cancelled turns a finished request whose context was cancelled into the
// RequestCancelled error (-32800) the specification asks for.
func cancelled(ctx context.Context, result any, err error) (any, error) {
	if ctx.Err() != nil {
		return nil, protocol.ErrRequestCancelled
	}
	return result, err
}
