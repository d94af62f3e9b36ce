package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
)

func TestResponseID(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]int64{
		`{"jsonrpc":"2.0","id":7,"result":{"items":[]}}`:                  7,
		`{"jsonrpc":"2.0","id":-3,"error":{"code":-32800,"message":"x"}}`: -3,
		`{"jsonrpc":"2.0","id":123456789012,"result":null}`:               123456789012,
		// Other layouts than jsonrpc2's today are read too.
		`{"id":7,"jsonrpc":"2.0","result":{"items":[]}}`:                              7,
		`{"result":[],"jsonrpc":"2.0","id":8}`:                                        8,
		` { "jsonrpc" : "2.0" , "id" : 9 , "error" : {"code":-32800,"message":"x"} }`: 9,
	} {
		if got, ok := responseID([]byte(body)); !ok || got != want {
			t.Errorf("responseID(%s) = %d, %v; want %d", body, got, ok, want)
		}
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":"7","result":null}`,
		`{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{}}`,
		`{"jsonrpc":"2.0","id":7,"method":"workspace/configuration","params":{}}`,
		`{"id":7,"jsonrpc":"2.0","method":"workspace/configuration","params":{}}`,
		`{"jsonrpc":"2.0","id":1.5,"result":null}`,
		`{"jsonrpc":"2.0","id":`,
		``,
	} {
		if n, ok := responseID([]byte(body)); ok {
			t.Errorf("responseID(%s) = %d, want none", body, n)
		}
	}
}

func TestAnswerRecyclerHold(t *testing.T) {
	t.Parallel()
	h := answerRecycler{holds: true}
	b1, b2 := new([]byte), new([]byte)
	id := jsonrpc2.NewNumberID
	held := func(n int64) *[]byte {
		return h.ids[n].buf
	}
	h.arrived(jsonrpc2.NewStringID("a"))
	if h.hold(jsonrpc2.NewStringID("a"), b1) {
		t.Error("a string id was held")
	}
	if h.hold(id(1), b1) {
		t.Fatal("id 1 was held before a call with it was read")
	}
	h.arrived(id(1))
	if !h.hold(id(1), b1) {
		t.Fatal("id 1 was not held")
	}
	// A request (not a response) with the same id releases nothing.
	h.written([]byte(`{"jsonrpc":"2.0","id":1,"method":"workspace/configuration"}`))
	if held(1) != b1 {
		t.Fatal("a request released the buffer of a response")
	}
	h.written([]byte(`{"jsonrpc":"2.0","id":1,"result":[]}`))
	if _, ok := h.ids[1]; ok {
		t.Error("the id stays tracked after its response")
	}
	// The same id twice in flight: neither is held, and the first's
	// buffer is not released by either response.
	h.arrived(id(2))
	if !h.hold(id(2), b1) {
		t.Fatal("id 2 was not held")
	}
	h.arrived(id(2))
	if h.hold(id(2), b2) || held(2) != nil {
		t.Fatal("duplicate id: want nothing held")
	}
	h.written([]byte(`{"jsonrpc":"2.0","id":2,"error":{"code":-32800,"message":"cancelled"}}`))
	if h.ids[2].inflight != 1 {
		t.Fatal("the id is forgotten while a call with it awaits its response")
	}
	h.written([]byte(`{"jsonrpc":"2.0","id":2,"result":[]}`))
	if _, ok := h.ids[2]; ok {
		t.Error("the id is not forgotten after both responses")
	}
	// Closing forgets what is held and holds nothing more.
	h.arrived(id(3))
	if !h.hold(id(3), b1) {
		t.Fatal("id 3 was not held")
	}
	h.close()
	if n := h.heldCount(); n != 0 {
		t.Errorf("%d held after close", n)
	}
	h.arrived(id(4))
	if h.hold(id(4), b2) {
		t.Error("held after close")
	}
	var other answerRecycler // not a NewStream's: nothing tells it of writes
	other.arrived(id(5))
	if other.hold(id(5), b1) {
		t.Error("a recycler that is not told of writes held a buffer")
	}
}

// Closing the package's stream forgets the answers it holds for responses
// not yet written, and does not give their buffers back to the pool:
// jsonrpc2 closes the stream before its handlers drain, and a handler may
// still hand Write a response that aliases one while the next completion
// encodes into it (a data race TestCompletionAnswersGoBack showed under
// -race).
func TestStreamCloseForgetsAnswers(t *testing.T) {
	t.Parallel()
	a, b := net.Pipe()
	defer b.Close()
	st := NewStream(a, nil).(*stream)
	st.answers.arrived(jsonrpc2.NewNumberID(1))
	st.answers.arrived(jsonrpc2.NewNumberID(2))
	answer := []byte(`{"isIncomplete":false,"items":[]}`)
	if !st.answers.hold(jsonrpc2.NewNumberID(1), &answer) || !st.answers.hold(jsonrpc2.NewNumberID(2), new([]byte)) {
		t.Fatal("the stream's recycler does not hold")
	}
	_ = st.Close()
	if n := st.answers.heldCount(); n != 0 {
		t.Errorf("%d answers held after Close", n)
	}
	if len(answer) == 0 {
		t.Error("Close gave back an answer whose response may still be written")
	}
	st.answers.arrived(jsonrpc2.NewNumberID(3))
	if st.answers.hold(jsonrpc2.NewNumberID(3), new([]byte)) {
		t.Error("an answer was held after Close")
	}
}

// rawClient speaks to a server over the package's stream with ids of its
// own choosing, so a test can cancel requests and repeat ids.
type rawClient struct {
	t  *testing.T
	st jsonrpc2.Stream
	// answered receives the id of every response.
	answered chan int64
	// readErr is why the stream ended, once answered is closed.
	readErr error
}

func (c *rawClient) send(msg jsonrpc2.Message) {
	c.t.Helper()
	if _, err := c.st.Write(context.Background(), msg); err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

func (c *rawClient) call(id int64, method string, params any) {
	c.t.Helper()
	raw, err := protocol.Marshal(params)
	if err != nil {
		c.t.Fatal(err)
	}
	c.send(jsonrpc2.NewCall(jsonrpc2.NewNumberID(id), method, raw))
}

func (c *rawClient) notify(method string, params any) {
	c.t.Helper()
	raw, err := protocol.Marshal(params)
	if err != nil {
		c.t.Fatal(err)
	}
	c.send(jsonrpc2.NewNotification(method, raw))
}

// read answers the server's calls with null and reports responses, until
// the stream ends.
func (c *rawClient) read() {
	for {
		msg, _, err := c.st.Read(context.Background())
		if err != nil {
			c.readErr = err
			close(c.answered)
			return
		}
		switch m := msg.(type) {
		case *jsonrpc2.Call:
			_, _ = c.st.Write(context.Background(), jsonrpc2.NewResponse(m.ID(), jsonrpc2.RawMessage("null"), nil))
		case *jsonrpc2.Response:
			if n, ok := m.ID().Number(); ok {
				c.answered <- n
			}
		}
	}
}

// wait waits for the responses to n requests.
func (c *rawClient) wait(n int) {
	c.t.Helper()
	deadline := time.After(20 * time.Second)
	for range n {
		select {
		case _, ok := <-c.answered:
			if !ok {
				c.t.Fatalf("the stream ended: %v", c.readErr)
			}
		case <-deadline:
			c.t.Fatal("timed out waiting for responses")
		}
	}
}

// settled returns the number of answers held once no write is in
// progress: a response reaches the client before its Write returns.
func settled(st *stream) int {
	st.writeMu.Lock()
	defer st.writeMu.Unlock()
	return st.answers.heldCount()
}

// No completion answer stays held through the real stream: not after many
// completions, some cancelled, some with a repeated id, and not after the
// connection closes with answers unwritten.
func TestCompletionAnswersGoBack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeBigConfig(t, dir, 300)
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: dir}})
	a, b := net.Pipe()
	st := NewStream(a, nil).(*stream)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- srv.ServeStream(ctx, st) }()
	c := &rawClient{t: t, st: jsonrpc2.NewHeaderStream(b), answered: make(chan int64, 1000)}
	go c.read()

	c.call(1, protocol.MethodInitialize, &protocol.InitializeParams{Capabilities: vscodeCaps()})
	c.wait(1)
	c.notify(protocol.MethodInitialized, &protocol.InitializedParams{})
	u := uri.File("/ws/a.js")
	c.notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: u, LanguageID: "javascript", Version: 1, Text: "api.rest.v1.get(\"service-00\", {}, {});\n"}})
	pos := protocol.Position{Line: 0, Character: 25}

	const n = 300
	for i := range int64(n) {
		id := 100 + i
		if i%10 == 9 {
			id = 100 + i - 1 // the previous request's id, perhaps still in flight
		}
		c.call(id, protocol.MethodTextDocumentCompletion, completionParams(u, pos))
		if i%3 == 0 {
			c.notify(protocol.MethodCancelRequest, &protocol.CancelParams{ID: protocol.Integer(id)})
		}
	}
	c.wait(n)
	if held := settled(st); held != 0 {
		t.Errorf("%d answers held after %d completions", held, n)
	}
	if st.answers.taken == 0 {
		t.Error("no answer was held: the test does not exercise holding")
	}

	// Requests whose answers are never read: the connection closes under them.
	for i := range int64(50) {
		c.call(1000+i, protocol.MethodTextDocumentCompletion, completionParams(u, pos))
	}
	_ = b.Close()
	select {
	case <-served:
	case <-time.After(20 * time.Second):
		t.Fatal("ServeStream did not return after the connection closed")
	}
	if held := settled(st); held != 0 {
		t.Errorf("%d answers held after the connection closed", held)
	}
}

// Concurrent completions over the package's stream, whose answer buffers
// are recycled once written, each get their own complete answer.
func TestCompletionAnswersConcurrently(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeBigConfig(t, dir, 300)
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: dir}})
	for _, caps := range []protocol.ClientCapabilities{defaultCaps(), vscodeCaps()} {
		c := connect(t, srv, clientOptions{caps: caps})
		u := uri.File("/ws/a.js")
		c.open(u, "api.rest.v1.get(\"service-00\", {}, {});\napi.rest.v1.get(\"service-001\", {}, {});\n")
		positions := []protocol.Position{{Line: 0, Character: 25}, {Line: 1, Character: 26}}
		want := make([][]string, len(positions))
		for i, pos := range positions {
			want[i] = labels(c.completion(u, pos))
			if len(want[i]) < 10 {
				t.Fatalf("completion %d: %q", i, want[i])
			}
		}
		var wg sync.WaitGroup
		errs := make(chan error, 200)
		for g := range 8 {
			wg.Go(func() {
				for k := range 25 {
					i := (g + k) % len(positions)
					var l protocol.CompletionList
					if err := c.call(protocol.MethodTextDocumentCompletion, completionParams(u, positions[i]), &l); err != nil {
						errs <- err
						return
					}
					if got := labels(&l); !slices.Equal(got, want[i]) {
						errs <- fmt.Errorf("completion %d: %d labels %q..., want %d", i, len(got), got[:min(3, len(got))], len(want[i]))
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
}

func completionParams(u uri.URI, pos protocol.Position) *protocol.CompletionParams {
	return &protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos,
	}}
}

// responseID reads the id of every response jsonrpc2 writes, and agrees
// with jsonrpc2's decoder on any response it decodes.
func FuzzResponseID(f *testing.F) {
	deep := strings.Repeat(`{"a":[`, 5000) + strings.Repeat(`]}`, 5000)
	for _, seed := range []struct {
		id   int64
		body string
	}{
		{7, `{"items":[]}`},
		{-3, `null`},
		{1 << 40, deep},
		{9, `{"jsonrpc":"2.0","id":9,"result":` + strings.Repeat(`"x",`, 20000) + `1}`},
		{0, ` { "result" : [] , "id" : 0 , "jsonrpc" : "2.0" } `},
	} {
		f.Add(seed.id, []byte(seed.body))
	}
	f.Fuzz(func(t *testing.T, id int64, body []byte) {
		if json.Valid(body) {
			for _, err := range []error{nil, protocol.ErrRequestCancelled} {
				wire := jsonrpc2.AppendResponse(nil, jsonrpc2.NewNumberID(id), body, err)
				if got, ok := responseID(wire); !ok || got != id {
					t.Fatalf("responseID(%s) = %d, %v; want %d", wire, got, ok, id)
				}
			}
		}
		got, ok := responseID(body)
		msg, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			return
		}
		if r, isResp := msg.(*jsonrpc2.Response); isResp {
			if want, num := r.ID().Number(); num && (!ok || got != want) {
				t.Fatalf("responseID(%s) = %d, %v; jsonrpc2 decodes id %d", body, got, ok, want)
			}
		}
	})
}

// heldCount is the number of ids awaiting a response, held or not.
func (r *answerRecycler) heldCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.ids)
}

// A request that repeats the id of a completion whose answer is held, and
// is answered first without holding anything (cancelled before its answer
// was encoded, or not a completion), does not give that answer's buffer
// back: the completion's response, still to be written, carries it. The
// buffer went back to the pool and the next completion encoded over it
// while it was written: a corrupt frame, and the editor's stream ended.
func TestRepeatedIDKeepsHeldAnswer(t *testing.T) {
	t.Parallel()
	for _, order := range []string{"held, then the repeat arrives", "the repeat arrives, then held"} {
		t.Run(order, func(t *testing.T) {
			a, b := net.Pipe()
			st := NewStream(a, nil).(*stream)
			peer := jsonrpc2.NewHeaderStream(b)
			defer func() { _ = st.Close(); _ = b.Close() }()
			read := func() {
				t.Helper()
				go func() {
					_, _ = peer.Write(context.Background(), jsonrpc2.NewCall(jsonrpc2.NewNumberID(108), protocol.MethodTextDocumentCompletion, jsonrpc2.RawMessage(`{}`)))
				}()
				if _, _, err := st.Read(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			written := make(chan jsonrpc2.Message, 2)
			go func() {
				for {
					msg, _, err := peer.Read(context.Background())
					if err != nil {
						close(written)
						return
					}
					written <- msg
				}
			}()
			answer := []byte(`{"isIncomplete":false,"items":[]}`)
			buf := &answer
			held := false
			read()
			if order == "held, then the repeat arrives" {
				held = st.answers.hold(jsonrpc2.NewNumberID(108), buf)
				if !held {
					t.Fatal("the only request with id 108 was not held")
				}
				read()
			} else {
				read()
				held = st.answers.hold(jsonrpc2.NewNumberID(108), buf)
			}
			// The repeat is answered first, with an error.
			if _, err := st.Write(context.Background(), jsonrpc2.NewResponse(jsonrpc2.NewNumberID(108), nil, protocol.ErrRequestCancelled)); err != nil {
				t.Fatal(err)
			}
			<-written
			if held && len(*buf) == 0 {
				t.Fatal("the held answer went back to the pool before its response was written")
			}
			if _, err := st.Write(context.Background(), jsonrpc2.NewResponse(jsonrpc2.NewNumberID(108), answer, nil)); err != nil {
				t.Fatal(err)
			}
			if r, ok := (<-written).(*jsonrpc2.Response); !ok || string(r.Result()) != string(answer) {
				t.Fatalf("the answer was not written whole: %v", r)
			}
			if n := settled(st); n != 0 {
				t.Errorf("%d ids still tracked after both responses", n)
			}
		})
	}
}
