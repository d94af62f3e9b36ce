package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap/zaptest"

	"github.com/restls/restls/config"
	"github.com/restls/restls/lsp"
)

const exampleRoot = "../testdata/config"

// newTestServer serves a web.Server on a loopback httptest server.
func newTestServer(t *testing.T, src config.Sources, mod func(*Options)) (*Server, *httptest.Server) {
	t.Helper()
	return newTestServerLoad(t, src, nil, mod)
}

// newTestServerLoad is newTestServer with the language server's loader
// (nil: config.Load).
func newTestServerLoad(t *testing.T, src config.Sources, load func(config.Sources) *config.Snapshot, mod func(*Options)) (*Server, *httptest.Server) {
	t.Helper()
	log := zaptest.NewLogger(t)
	ls := lsp.NewServer(lsp.Options{Sources: src, Logger: log.Named("lsp"), PollInterval: -1, Load: load})
	opts := Options{LSP: ls, Logger: log.Named("web"), Version: "test"}
	if mod != nil {
		mod(&opts)
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() {
		s.Close()
		hs.Close()
	})
	return s, hs
}

func get(t *testing.T, url string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return res, b.String()
}

func wsURL(hs *httptest.Server) string { return "ws" + strings.TrimPrefix(hs.URL, "http") + "/lsp" }

// lspClient is an LSP client over a WebSocket, built from the same stream
// adapter the server uses (the adapter is symmetric).
type lspClient struct {
	conn jsonrpc2.Conn
	ws   *websocket.Conn

	mu    sync.Mutex
	notes []note
	cond  chan struct{} // closed and replaced on every notification
}

type note struct {
	method string
	params json.RawMessage
}

func dialLSP(t testing.TB, ctx context.Context, url string, opts *websocket.DialOptions) (*lspClient, error) {
	ws, _, err := websocket.Dial(ctx, url, opts)
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(64 << 20)
	st := newWSStream(ws, zaptest.NewLogger(t), 10*time.Second, 1024)
	c := &lspClient{conn: jsonrpc2.NewConn(st), ws: ws, cond: make(chan struct{})}
	c.conn.Go(context.Background(), c.handle)
	return c, nil
}

func (c *lspClient) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if req.IsCall() {
		switch req.Method() {
		case "workspace/configuration":
			return []any{nil}, nil
		default:
			return nil, nil
		}
	}
	n := note{method: req.Method(), params: append(json.RawMessage(nil), req.Params()...)}
	c.mu.Lock()
	c.notes = append(c.notes, n)
	close(c.cond)
	c.cond = make(chan struct{})
	c.mu.Unlock()
	return nil, nil
}

// waitNote waits for a notification that satisfies ok.
func (c *lspClient) waitNote(ctx context.Context, ok func(note) bool) (note, error) {
	seen := 0
	for {
		c.mu.Lock()
		for ; seen < len(c.notes); seen++ {
			if ok(c.notes[seen]) {
				n := c.notes[seen]
				c.mu.Unlock()
				return n, nil
			}
		}
		wake := c.cond
		c.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return note{}, ctx.Err()
		}
	}
}

func (c *lspClient) call(ctx context.Context, method string, params, result any) error {
	_, err := c.conn.Call(ctx, method, params, result)
	return err
}

func (c *lspClient) close() {
	_ = c.conn.Close()
	_ = c.ws.CloseNow()
}

// initialize runs initialize + initialized and opens one document.
func (c *lspClient) open(ctx context.Context, uri, text string) error {
	var res json.RawMessage
	if err := c.call(ctx, "initialize", map[string]any{
		"processId":    nil,
		"rootUri":      nil,
		"capabilities": map[string]any{"textDocument": map[string]any{"completion": map[string]any{"completionItem": map[string]any{"snippetSupport": true}}}},
	}, &res); err != nil {
		return err
	}
	if err := c.conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		return err
	}
	return c.conn.Notify(ctx, "textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": uri, "languageId": "javascript", "version": 1, "text": text},
	})
}

// complete asks for completions at the end of line 0, column col.
func (c *lspClient) complete(ctx context.Context, uri string, line, col int) ([]string, error) {
	var res struct {
		Items []struct {
			Label string `json:"label"`
		} `json:"items"`
	}
	var raw json.RawMessage
	if err := c.call(ctx, "textDocument/completion", map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"position":     map[string]any{"line": line, "character": col},
	}, &raw); err != nil {
		return nil, err
	}
	if len(raw) > 0 && raw[0] == '[' {
		if err := json.Unmarshal(raw, &res.Items); err != nil {
			return nil, err
		}
	} else if err := json.Unmarshal(raw, &res); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(res.Items))
	for _, it := range res.Items {
		out = append(out, it.Label)
	}
	return out, nil
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}
