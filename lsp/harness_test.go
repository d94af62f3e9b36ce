package lsp

import (
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

// testClient is a real jsonrpc2 client on the other end of a loopback
// socket from a real Server: what an editor sees.
type testClient struct {
	t    testing.TB
	conn jsonrpc2.Conn
	srv  *Server
	done chan error // ServeStream's result
	// initResult is the server's answer to initialize.
	initResult protocol.InitializeResult

	mu       sync.Mutex
	seq      int
	changed  chan struct{} // closed and replaced on every event
	diags    map[uri.URI]published
	statuses []Status
	statusAt int // seq of the last status
	messages []protocol.ShowMessageParams
	progress []string
	// settings answers workspace/configuration.
	settings json.RawMessage
	regs     []protocol.Registration
	shown    []string // window/showDocument params
	// lensRefreshes and inlayRefreshes count workspace/codeLens/refresh
	// and workspace/inlayHint/refresh requests.
	lensRefreshes, inlayRefreshes int
	// valueRefreshes counts workspace/inlineValue/refresh requests.
	valueRefreshes int
	versions       map[uri.URI]int32
}

type published struct {
	seq    int // messages received before it: the first one after now() has seq now()
	params protocol.PublishDiagnosticsParams
}

type clientOptions struct {
	initOptions any
	caps        protocol.ClientCapabilities
	settings    any // workspace/configuration answer
	root        string
	skipInit    bool
	session     *SessionOptions // nil: ServeStream (every permission)
}

func defaultCaps() protocol.ClientCapabilities {
	yes := true
	return protocol.ClientCapabilities{
		Window:    &protocol.WindowClientCapabilities{WorkDoneProgress: &yes},
		Workspace: &protocol.WorkspaceClientCapabilities{WorkspaceEdit: &protocol.WorkspaceEditClientCapabilities{DocumentChanges: &yes}},
		TextDocument: &protocol.TextDocumentClientCapabilities{
			Completion: &protocol.CompletionClientCapabilities{CompletionItem: &protocol.ClientCompletionItemOptions{SnippetSupport: &yes}},
		},
	}
}

// newTestServer returns a server whose logs go to the test log.
func newTestServer(t testing.TB, opts Options) *Server {
	if opts.Logger == nil {
		if tt, ok := t.(*testing.T); ok {
			opts.Logger = zaptest.NewLogger(tt, zaptest.Level(zap.InfoLevel))
		} else {
			opts.Logger = zap.NewNop()
		}
	}
	if opts.PollInterval == 0 {
		opts.PollInterval = -1
	}
	srv := NewServer(opts)
	if opts.Session == nil {
		// The server made its workspace session: closed when the test
		// ends, after the sessions returned (registered before any
		// connect's), so the description loads end before the test does
		// (a delayed one logged after TestInlineValues with -count=40).
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := srv.Session().Close(ctx); err != nil {
				t.Errorf("closing the workspace session: %v", err)
			}
		})
	}
	return srv
}

// socketPair is a connected pair of loopback TCP sockets. Unlike
// net.Pipe, whose writes wait for the other side's read, the kernel
// buffers them, as it buffers an editor's pipes: with net.Pipe the two
// read goroutines deadlocked when each wrote at once (the server a
// notification from a handler, the client its answer to the server's
// workspace/codeLens/refresh).
func socketPair(t testing.TB) (net.Conn, net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	type accepted struct {
		c   net.Conn
		err error
	}
	ch := make(chan accepted, 1)
	go func() {
		c, err := l.Accept()
		ch <- accepted{c, err}
	}()
	b, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	acc := <-ch
	if acc.err != nil {
		t.Fatal(acc.err)
	}
	return acc.c, b
}

// connect starts a session on srv and, unless skipInit, initializes it.
func connect(t testing.TB, srv *Server, co clientOptions) *testClient {
	t.Helper()
	a, b := socketPair(t)
	c := &testClient{t: t, srv: srv, done: make(chan error, 1), changed: make(chan struct{}),
		diags: map[uri.URI]published{}, versions: map[uri.URI]int32{}}
	if co.settings != nil {
		raw, _ := json.Marshal(co.settings)
		c.settings = raw
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		if co.session != nil {
			c.done <- srv.ServeSession(ctx, NewStream(a, nil), *co.session)
			return
		}
		c.done <- srv.ServeStream(ctx, NewStream(a, nil))
	}()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(b), jsonrpc2.WithCodec(codec{}))
	c.conn.Go(context.Background(), c.handle)
	t.Cleanup(func() {
		cancel()
		_ = c.conn.Close()
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			t.Errorf("ServeStream did not return after the client went away")
		}
	})
	if co.skipInit {
		return c
	}
	caps := co.caps
	if caps.Window == nil && caps.Workspace == nil && caps.TextDocument == nil {
		caps = defaultCaps()
	}
	p := &protocol.InitializeParams{Capabilities: caps}
	if co.root != "" {
		u := uri.File(co.root)
		//lint:ignore SA1019 the test client sends rootUri as older clients do
		p.RootURI = &u
	}
	if co.initOptions != nil {
		raw, err := json.Marshal(co.initOptions)
		if err != nil {
			t.Fatal(err)
		}
		p.InitializationOptions = raw
	}
	var res protocol.InitializeResult
	if err := c.call(protocol.MethodInitialize, p, &res); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	c.initResult = res
	c.notify(protocol.MethodInitialized, &protocol.InitializedParams{})
	return c
}

// handle answers the server's calls and records its notifications.
func (c *testClient) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.bump()
	switch req.Method() {
	case protocol.MethodTextDocumentPublishDiagnostics:
		var p protocol.PublishDiagnosticsParams
		if err := protocol.Unmarshal(req.Params(), &p); err != nil {
			c.t.Errorf("bad publishDiagnostics: %v", err)
			return nil, nil
		}
		c.diags[p.URI] = published{seq: c.seq, params: p}
	case MethodStatus:
		var st Status
		if err := json.Unmarshal(req.Params(), &st); err != nil {
			c.t.Errorf("bad status: %v", err)
		}
		c.statuses = append(c.statuses, st)
		c.statusAt = c.seq
	case protocol.MethodWindowShowMessage:
		var p protocol.ShowMessageParams
		_ = protocol.Unmarshal(req.Params(), &p)
		c.messages = append(c.messages, p)
	case protocol.MethodProgress:
		c.progress = append(c.progress, string(req.Params()))
	case protocol.MethodWorkspaceConfiguration:
		if c.settings == nil {
			return []any{nil}, nil
		}
		return []json.RawMessage{c.settings}, nil
	case protocol.MethodClientRegisterCapability:
		var p protocol.RegistrationParams
		_ = protocol.Unmarshal(req.Params(), &p)
		c.regs = append(c.regs, p.Registrations...)
		return nil, nil
	case protocol.MethodClientUnregisterCapability, protocol.MethodWindowWorkDoneProgressCreate:
		return nil, nil
	case protocol.MethodWindowShowDocument:
		c.shown = append(c.shown, string(req.Params()))
		return protocol.ShowDocumentResult{Success: true}, nil
	case protocol.MethodWorkspaceCodeLensRefresh:
		c.lensRefreshes++
		return nil, nil
	case protocol.MethodWorkspaceInlayHintRefresh:
		c.inlayRefreshes++
		return nil, nil
	case protocol.MethodWorkspaceInlineValueRefresh:
		c.valueRefreshes++
		return nil, nil
	default:
		if req.IsCall() {
			return nil, jsonrpc2.ErrMethodNotFound
		}
	}
	return nil, nil
}

// bump records an event; callers hold mu.
func (c *testClient) bump() {
	c.seq++
	close(c.changed)
	c.changed = make(chan struct{})
}

// waitFor blocks until cond (run under mu) holds, failing after 10s.
func (c *testClient) waitFor(what string, cond func() bool) {
	c.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		c.mu.Lock()
		ok := cond()
		ch := c.changed
		c.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			c.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (c *testClient) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := c.conn.Call(ctx, method, params, result)
	return err
}

func (c *testClient) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("notify %s: %v", method, err)
	}
}

func (c *testClient) open(u uri.URI, text string) {
	c.t.Helper()
	c.mu.Lock()
	c.versions[u] = 1
	c.mu.Unlock()
	c.notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "javascript", Version: 1, Text: text},
	})
}

// change sends incremental changes and returns the new version.
func (c *testClient) change(u uri.URI, changes ...protocol.TextDocumentContentChangeEvent) int32 {
	c.t.Helper()
	c.mu.Lock()
	c.versions[u]++
	v := c.versions[u]
	c.mu.Unlock()
	c.notify(protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
		ContentChanges: changes,
	})
	return v
}

// diagnostics waits for diagnostics of u at version (or any version when
// version is 0) published after event seq since.
func (c *testClient) diagnostics(u uri.URI, version int32, since int) []protocol.Diagnostic {
	c.t.Helper()
	var out []protocol.Diagnostic
	c.waitFor("diagnostics of "+string(u), func() bool {
		p, ok := c.diags[u]
		if !ok || p.seq < since {
			return false
		}
		if v, ok := p.params.Version.Get(); version != 0 && (!ok || v != version) {
			return false
		}
		out = p.params.Diagnostics
		return true
	})
	return out
}

// now is the sequence number of the last message received, for waiting on
// what arrives after it.
func (c *testClient) now() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seq
}

func (c *testClient) lastStatus() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.statuses) == 0 {
		return Status{}
	}
	return c.statuses[len(c.statuses)-1]
}

func (c *testClient) completion(u uri.URI, pos protocol.Position) *protocol.CompletionList {
	c.t.Helper()
	var res protocol.CompletionList
	if err := c.call(protocol.MethodTextDocumentCompletion, &protocol.CompletionParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos},
	}, &res); err != nil {
		c.t.Fatalf("completion: %v", err)
	}
	return &res
}

func labels(l *protocol.CompletionList) []string {
	var out []string
	for _, it := range l.Items {
		out = append(out, it.Label)
	}
	return out
}

// projectSession is a workspace session whose default sources are src and
// whose environments are those of a project file in dir with text yml.
func projectSession(t testing.TB, dir, yml string, src config.Sources) *workspace.Session {
	t.Helper()
	set, err := workspace.NewEnvironments(workspace.ParseProject(filepath.Join(dir, workspace.FileName), []byte(yml)), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return workspace.NewSession(workspace.SessionOptions{Sources: src, Environments: set})
}
