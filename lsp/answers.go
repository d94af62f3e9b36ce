package lsp

import (
	"bytes"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// heldAnswers lets a completion answer be encoded into a recycled buffer
// and sent without a copy: the handler holds the buffer under its request's
// id, jsonrpc2 hands the bytes to the stream, and the stream gives the
// buffer back once it has written the response with that id. At 10 KB a
// keystroke, the copy was most of what restls serve allocated, and each
// garbage collection costs a request its p99.
//
// Only numeric ids are held (editors use them). A second request with the
// id of one still held is not held, and the first stays held for good: a
// buffer goes back only when the one response its id can have is written.
type heldAnswers struct {
	mu   sync.Mutex
	held map[int64]*[]byte // nil: the id came twice, release nothing
}

// answersOf returns the heldAnswers of a stream from NewStream, or nil.
func answersOf(st jsonrpc2.Stream) *heldAnswers {
	if s, ok := st.(*stream); ok {
		return &s.answers
	}
	return nil
}

// answerBufs are the buffers of completion answers.
var answerBufs = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

// hold reports whether b is now held for the response to id.
func (h *heldAnswers) hold(id jsonrpc2.ID, b *[]byte) bool {
	n, ok := id.Number()
	if h == nil || !ok {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held == nil {
		h.held = map[int64]*[]byte{}
	}
	if _, dup := h.held[n]; dup {
		h.held[n] = nil
		return false
	}
	h.held[n] = b
	return true
}

// written releases the buffer held for the response whose body was just
// written, if any.
func (h *heldAnswers) written(body []byte) {
	n, ok := responseID(body)
	if !ok {
		return
	}
	h.mu.Lock()
	b, ok := h.held[n]
	if ok {
		delete(h.held, n)
	}
	h.mu.Unlock()
	if b != nil && cap(*b) <= 1<<20 {
		*b = (*b)[:0]
		answerBufs.Put(b)
	}
}

// responsePrefix is how jsonrpc2 starts every response it encodes.
var responsePrefix = []byte(`{"jsonrpc":"2.0","id":`)

// responseID returns the numeric id of an encoded response (one with
// "result" or "error" after its id).
func responseID(body []byte) (int64, bool) {
	rest, ok := bytes.CutPrefix(body, responsePrefix)
	if !ok {
		return 0, false
	}
	end := bytes.IndexByte(rest, ',')
	if end <= 0 || !(bytes.HasPrefix(rest[end:], []byte(`,"result":`)) || bytes.HasPrefix(rest[end:], []byte(`,"error":`))) {
		return 0, false
	}
	n, err := strconv.ParseInt(string(rest[:end]), 10, 64)
	return n, err == nil
}
