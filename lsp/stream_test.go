package lsp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/restls/restls/internal/lsptest"
)

func frame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// TestServerSurvivesMalformedFrames writes broken input at a real server
// and checks each gets an error response with a null id, and that a valid
// request afterwards is answered.
func TestServerSurvivesMalformedFrames(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, Options{})
	a, b := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.ServeStream(ctx, NewStream(a, nil)) }()

	inputs := []struct {
		name, raw string
		code      jsonrpc2.Code
	}{
		{"body is not JSON", frame("hello"), jsonrpc2.ParseError},
		{"header without length", "Garbage-Without-Length: 1\r\n\r\n", jsonrpc2.ParseError},
		{"JSON that is not a message", frame("[1,2]"), jsonrpc2.InvalidRequest},
		{"non-numeric length", "Content-Length: abc\r\n\r\n", jsonrpc2.ParseError},
		{"truncated JSON", frame(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{`), jsonrpc2.ParseError},
	}
	go func() {
		for _, in := range inputs {
			if _, err := io.WriteString(b, in.raw); err != nil {
				return
			}
		}
		_, _ = io.WriteString(b, "junk before a header "+frame(`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"capabilities":{}}}`))
	}()
	rd := jsonrpc2.NewHeaderStream(b)
	for _, in := range inputs {
		msg, _, err := rd.Read(ctx)
		if err != nil {
			t.Fatalf("%s: reading the answer: %v", in.name, err)
		}
		resp, ok := msg.(*jsonrpc2.Response)
		if !ok || resp.ID().IsValid() || codeOf(resp.Err()) != in.code {
			t.Fatalf("%s: got %#v (err %v), want an error response with code %d and a null id", in.name, msg, errOf(msg), in.code)
		}
	}
	msg, _, err := rd.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	resp, ok := msg.(*jsonrpc2.Response)
	if !ok || resp.Err() != nil {
		t.Fatalf("initialize after garbage: %#v %v", msg, errOf(msg))
	}
	if n, _ := resp.ID().Number(); n != 7 {
		t.Fatalf("answer id %v, want 7", resp.ID())
	}
	_ = b.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStream did not return when the stream closed")
	}
}

func errOf(m jsonrpc2.Message) error {
	if r, ok := m.(*jsonrpc2.Response); ok {
		return r.Err()
	}
	return nil
}

// pipeRWC is a ReadWriteCloser over a fixed input that records output.
type pipeRWC struct {
	in  *bytes.Reader
	out bytes.Buffer
}

func (p *pipeRWC) Read(b []byte) (int, error)  { return p.in.Read(b) }
func (p *pipeRWC) Write(b []byte) (int, error) { return p.out.Write(b) }
func (p *pipeRWC) Close() error                { return nil }

// TestStreamResyncAfterInvalidUTF8 covers garbage that is not UTF-8 running
// into a header: the reader must find Content-Length in the raw bytes and
// read the message that follows (found by FuzzStream: a case-folded copy of
// such a line is longer than the line, and indexing it panicked).
func TestStreamResyncAfterInvalidUTF8(t *testing.T) {
	t.Parallel()
	body := `{"jsonrpc":"2.0","id":1,"method":"x"}`
	for _, garbage := range []string{"\xc80\xa7\xb9\xe4\xc9", "\xff\xfe\xfd", "\xe4\xe4 CONTENT-length"} {
		rwc := &pipeRWC{in: bytes.NewReader([]byte(garbage + frame(body)))}
		msg, _, err := NewStream(rwc, nil).Read(context.Background())
		if err != nil {
			t.Fatalf("%q: %v", garbage, err)
		}
		if call, ok := msg.(*jsonrpc2.Call); !ok || call.Method() != "x" {
			t.Fatalf("%q: read %#v, want the call to x", garbage, msg)
		}
	}
}

// FuzzStream feeds arbitrary bytes to the framing: it must end (no hang),
// never panic, and everything it writes back must be well-formed frames.
func FuzzStream(f *testing.F) {
	f.Add([]byte(frame(`{"jsonrpc":"2.0","id":1,"method":"x"}`)))
	f.Add([]byte("Content-Length: 3\r\n\r\n{}}Content-Length: 2\r\n\r\n{}"))
	f.Add([]byte("\r\n\r\nContent-Length: -1\r\n\r\n"))
	f.Add([]byte("Content-Length: 99999999999999999999\r\n\r\n"))
	f.Add([]byte(frame("[]") + frame(`{"id":null}`) + "x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rwc := &pipeRWC{in: bytes.NewReader(data)}
		s := NewStream(rwc, nil)
		ctx := context.Background()
		for i := 0; ; i++ {
			if i > len(data)+1 {
				t.Fatalf("more messages than input bytes: the reader does not advance")
			}
			if _, _, err := s.Read(ctx); err != nil {
				break
			}
		}
		lsptest.CheckFrames(t, rwc.out.Bytes())
	})
}
