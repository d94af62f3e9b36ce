package lsp

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
)

func TestResponseID(t *testing.T) {
	for body, want := range map[string]int64{
		`{"jsonrpc":"2.0","id":7,"result":{"items":[]}}`:                  7,
		`{"jsonrpc":"2.0","id":-3,"error":{"code":-32800,"message":"x"}}`: -3,
		`{"jsonrpc":"2.0","id":123456789012,"result":null}`:               123456789012,
	} {
		if got, ok := responseID([]byte(body)); !ok || got != want {
			t.Errorf("responseID(%s) = %d, %v; want %d", body, got, ok, want)
		}
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":"7","result":null}`,
		`{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{}}`,
		`{"jsonrpc":"2.0","id":7,"method":"workspace/configuration","params":{}}`,
		`{"jsonrpc":"2.0","id":1.5,"result":null}`,
		`{"jsonrpc":"2.0","id":`,
		``,
	} {
		if n, ok := responseID([]byte(body)); ok {
			t.Errorf("responseID(%s) = %d, want none", body, n)
		}
	}
}

func TestHeldAnswers(t *testing.T) {
	var h heldAnswers
	b1, b2 := new([]byte), new([]byte)
	if h.hold(jsonrpc2.NewStringID("a"), b1) {
		t.Error("a string id was held")
	}
	if !h.hold(jsonrpc2.NewNumberID(1), b1) {
		t.Fatal("id 1 was not held")
	}
	// A request (not a response) with the same id releases nothing.
	h.written([]byte(`{"jsonrpc":"2.0","id":1,"method":"workspace/configuration"}`))
	if h.held[1] != b1 {
		t.Fatal("a request released the buffer of a response")
	}
	h.written([]byte(`{"jsonrpc":"2.0","id":1,"result":[]}`))
	if _, ok := h.held[1]; ok {
		t.Error("the buffer stays held after its response")
	}
	// The same id twice in flight: neither is released by a response.
	if !h.hold(jsonrpc2.NewNumberID(2), b1) || h.hold(jsonrpc2.NewNumberID(2), b2) {
		t.Fatal("duplicate id: want the first held, the second refused")
	}
	if b, ok := h.held[2]; !ok || b != nil {
		t.Fatalf("duplicate id: held %v, %v; want poisoned", b, ok)
	}
	h.written([]byte(`{"jsonrpc":"2.0","id":2,"result":[]}`))
	if _, ok := h.held[2]; ok {
		t.Error("the poisoned id is not forgotten after its response")
	}
	var none *heldAnswers
	if none.hold(jsonrpc2.NewNumberID(3), b1) {
		t.Error("a nil heldAnswers held a buffer")
	}
}

// Concurrent completions over the package's stream, whose answer buffers
// are recycled once written, each get their own complete answer.
func TestCompletionAnswersConcurrently(t *testing.T) {
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
