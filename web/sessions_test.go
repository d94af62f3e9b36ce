package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap/zaptest"

	"github.com/restls/restls/config"
)

// TestManySessions: sessions share the registry but each has its own
// documents: every session opens the same URI with its own text and sees
// only its own diagnostics.
func TestManySessions(t *testing.T) {
	t.Parallel()
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, nil)
	ctx := testCtx(t)
	const n = 40
	const uri = "file:///designer/script.js"
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			c, err := dialLSP(t, ctx, wsURL(hs), nil)
			if err != nil {
				errs <- err
				return
			}
			defer c.close()
			id := fmt.Sprintf("nosuch-%d", i)
			// Valid script (diagnostics need a parse); the completion is
			// asked between "api.rest.v1." and "get".
			text := fmt.Sprintf("var r = api.rest.v1.get(%q, {}, {});\nvar x = api.rest.v1.get;", id)
			if err := c.open(ctx, uri, text); err != nil {
				errs <- err
				return
			}
			items, err := c.complete(ctx, uri, 1, len("var x = api.rest.v1."))
			if err != nil || !slices.Contains(items, "patch") {
				errs <- fmt.Errorf("session %d: completion %v, %v", i, items, err)
				return
			}
			d, err := c.waitNote(ctx, func(n note) bool {
				return n.method == "textDocument/publishDiagnostics" && strings.Contains(string(n.params), "nosuch-")
			})
			if err != nil {
				errs <- fmt.Errorf("session %d: no diagnostics: %v", i, err)
				return
			}
			for _, got := range idRE.FindAllString(string(d.params), -1) {
				if got != id {
					errs <- fmt.Errorf("session %d (%s) sees %s: %s", i, id, got, d.params)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

var idRE = regexp.MustCompile(`nosuch-[0-9]+`)

// smallBufferDialer makes a client whose socket buffers are tiny, so a
// client that stops reading backs up the server quickly.
func smallBufferClient() *http.Client {
	d := &net.Dialer{Control: func(network, address string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = setRecvBuffer(fd, 4096)
		})
		if err != nil {
			return err
		}
		return serr
	}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// TestClientThatStopsReading: one client floods requests and never reads an
// answer. Its session is dropped; meanwhile and afterwards other sessions
// get their answers.
func TestClientThatStopsReading(t *testing.T) {
	t.Parallel()
	ended := make(chan error, 4)
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.SendQueue = 16
		o.WriteTimeout = 500 * time.Millisecond
	})
	s.endHook = func(err error) { ended <- err }
	ctx := testCtx(t)

	good, err := dialLSP(t, ctx, wsURL(hs), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer good.close()
	if err := good.open(ctx, "file:///good.js", "api.rest.v1."); err != nil {
		t.Fatal(err)
	}

	slow, _, err := websocket.Dial(ctx, wsURL(hs), &websocket.DialOptions{HTTPClient: smallBufferClient()})
	if err != nil {
		t.Fatal(err)
	}
	defer slow.CloseNow()
	send := func(v any) error {
		b, _ := json.Marshal(v)
		return slow.Write(ctx, websocket.MessageText, b)
	}
	_ = send(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{"capabilities": map[string]any{}}})
	_ = send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
	_ = send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
		"textDocument": map[string]any{"uri": "file:///slow.js", "languageId": "javascript", "version": 1, "text": "api.rest.v1."}}})
	// Flood until the server drops us (a write fails) or we sent plenty.
	flooded := make(chan int, 1)
	go func() {
		i := 1
		for ; i < 20000; i++ {
			if err := send(map[string]any{"jsonrpc": "2.0", "id": i, "method": "textDocument/completion", "params": map[string]any{
				"textDocument": map[string]any{"uri": "file:///slow.js"}, "position": map[string]any{"line": 0, "character": 12}}}); err != nil {
				break
			}
		}
		flooded <- i
	}()

	// The good client is answered while the slow one floods.
	for range 20 {
		items, err := good.complete(ctx, "file:///good.js", 0, 12)
		if err != nil || !slices.Contains(items, "get") {
			t.Fatalf("good client during the flood: %v, %v", items, err)
		}
	}
	select {
	case err := <-ended:
		if !errors.Is(err, ErrSlowClient) && err == nil {
			t.Logf("slow session ended: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the session of the client that stopped reading was never dropped")
	}
	<-flooded
	// And after it was dropped.
	items, err := good.complete(ctx, "file:///good.js", 0, 12)
	if err != nil || !slices.Contains(items, "get") {
		t.Fatalf("good client after the drop: %v, %v", items, err)
	}
}

// TestStreamAdapter drives the WebSocket stream with a trivial jsonrpc2 echo
// server: one message per text frame, malformed frames answered and
// skipped, large messages intact.
func TestStreamAdapter(t *testing.T) {
	t.Parallel()
	log := zaptest.NewLogger(t)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		c.SetReadLimit(8 << 20)
		conn := jsonrpc2.NewConn(newWSStream(c, log, 5*time.Second, 64))
		conn.Go(r.Context(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
			return json.RawMessage(append([]byte(nil), req.Params()...)), nil
		})
		<-conn.Done()
	}))
	defer hs.Close()
	ctx := testCtx(t)
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(8 << 20)
	roundTrip := func(typ websocket.MessageType, frame string) map[string]any {
		t.Helper()
		if err := c.Write(ctx, typ, []byte(frame)); err != nil {
			t.Fatal(err)
		}
		rt, data, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rt != websocket.MessageText {
			t.Errorf("answer in a %v frame", rt)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("answer %q is not one JSON message: %v", data, err)
		}
		return m
	}
	m := roundTrip(websocket.MessageText, `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"x":"é€😀"}}`)
	if m["id"] != float64(1) || fmt.Sprint(m["result"]) != "map[x:é€😀]" {
		t.Errorf("echo = %v", m)
	}
	for _, bad := range []struct {
		typ   websocket.MessageType
		frame string
	}{{websocket.MessageText, `{"jsonrpc":"2.0","id":`}, {websocket.MessageText, `not json`}, {websocket.MessageBinary, `{"jsonrpc":"2.0","id":2,"method":"echo"}`},
		{websocket.MessageText, "Content-Length: 40\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"echo\"}"}} {
		m = roundTrip(bad.typ, bad.frame)
		e, _ := m["error"].(map[string]any)
		if m["id"] != nil || e == nil || e["code"] != float64(jsonrpc2.ParseError) {
			t.Errorf("frame %q answered %v, want a ParseError with id null", bad.frame, m)
		}
	}
	big := strings.Repeat("a", 2<<20)
	m = roundTrip(websocket.MessageText, `{"jsonrpc":"2.0","id":"big","method":"echo","params":{"text":"`+big+`"}}`)
	if r, _ := m["result"].(map[string]any); m["id"] != "big" || r["text"] != big {
		t.Errorf("2 MiB echo lost data")
	}
}

// TestGracefulShutdown: cancelling Serve's context ends open sessions with
// "going away" and Serve returns.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	ls, _ := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, nil)
	s, err := New(Options{LSP: ls.opts.LSP, Logger: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(sctx, ln, 5*time.Second) }()
	ctx := testCtx(t)
	c, _, err := websocket.Dial(ctx, "ws://"+ln.Addr().String()+"/lsp", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Read(ctx); err != nil {
		t.Fatal(err)
	}
	stop()
	for {
		_, _, err := c.Read(ctx)
		if err != nil {
			if st := websocket.CloseStatus(err); st != websocket.StatusServiceRestart {
				t.Errorf("session ended with %v (%v), want 1012 service restart", st, err)
			}
			break
		}
	}
	if err := <-served; err != nil {
		t.Errorf("Serve = %v", err)
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Errorf("still accepting connections after shutdown")
	}
}

// TestDeadClient: a client that neither reads nor answers pings (a laptop
// lid closed mid-session) is dropped after one ping timeout.
func TestDeadClient(t *testing.T) {
	t.Parallel()
	ended := make(chan error, 1)
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.PingInterval = 20 * time.Millisecond
		o.WriteTimeout = 100 * time.Millisecond
	})
	s.endHook = func(err error) { ended <- err }
	ctx := testCtx(t)
	// A client that never calls Read never sees, and so never answers, a
	// ping.
	dead, _, err := websocket.Dial(ctx, wsURL(hs), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dead.CloseNow()
	select {
	case <-ended:
	case <-ctx.Done():
		t.Fatal("a client that answers no ping was never dropped")
	}
}

// TestMaxSessions: beyond the cap a handshake is refused with 503, and a
// slot frees when a session ends.
func TestMaxSessions(t *testing.T) {
	t.Parallel()
	ended := make(chan error, 4)
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) { o.MaxSessions = 2 })
	s.endHook = func(err error) { ended <- err }
	ctx := testCtx(t)
	var open []*lspClient
	for range 2 {
		c, err := dialLSP(t, ctx, wsURL(hs), nil)
		if err != nil {
			t.Fatal(err)
		}
		// Make sure the server side is running before counting.
		if err := c.open(ctx, "file:///a.js", "api."); err != nil {
			t.Fatal(err)
		}
		open = append(open, c)
	}
	_, resp, err := websocket.Dial(ctx, wsURL(hs), nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("third session: err %v, response %v; want 503", err, resp)
	}
	open[0].close()
	<-ended
	c, err := dialLSP(t, ctx, wsURL(hs), nil)
	if err != nil {
		t.Fatalf("after one ended: %v", err)
	}
	c.close()
	open[1].close()
}
