package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/restls/restls/hints"
)

// answerRecycler recycles what completion answers are made of: the hint
// engine's items, the LSP items and the encoded answer. Every keystroke
// asks for one (up to 100 items, about 10 KB encoded), and allocating them
// anew makes the garbage collector run often enough to lengthen the tail
// of every request; see "completion round trip" in docs/decisions.md.
//
// The encoded answer is sent without a copy when the stream is NewStream's:
// the answer's buffer is held under its request's (numeric) id and goes
// back once the stream has written a response with that id, whatever it
// carries (a request cancelled after its answer was encoded is answered
// with an error). The stream counts the calls it reads by id, so an answer
// is held, and given back by a response, only while its call is the one
// awaiting a response with that id. Closing the stream forgets whatever is
// still held (see close).
// On other streams (WebSocket) the answer is copied out at its exact size.
//
// The zero value recycles but holds nothing; one per stream or session.
// The pools are the process's, not the session's: a pool per session kept
// about 200 KB in each of 200 busy designer sessions (40 MB, twice the
// resident memory of the same load before); sync.Pool is already kept per
// CPU, so sharing it costs nothing in contention.
type answerRecycler struct {
	holds  bool // the stream calls arrived and written for every call read and message written
	mu     sync.Mutex
	ids    map[int64]idState // numeric ids of the calls read and not yet answered
	closed bool
	taken  int // answers held so far
}

// idState is what the recycler knows of one numeric request id: how many
// calls with it are awaiting their response, and the answer held for the
// only one. A response releases the buffer only while exactly one call has
// the id, so that response is the holder's: a client may repeat an id still
// in flight, and the repeat's response (cancelled, or another method) would
// otherwise give back a buffer the holder's response has still to write.
type idState struct {
	inflight int
	buf      *[]byte
}

// The completion pools shared by every session's answerRecycler.
var answerPools struct {
	bufs      sync.Pool // *[]byte: encoded answers
	items     sync.Pool // *[]protocol.CompletionItem
	hintItems sync.Pool // *[]hints.CompletionItem
}

// answersOf returns the recycler of a stream from NewStream, which holds
// answers until they are written, or a new one that does not hold.
func answersOf(st jsonrpc2.Stream) *answerRecycler {
	if s, ok := st.(*stream); ok {
		return &s.answers
	}
	return &answerRecycler{}
}

const (
	// hintItemsCap is the capacity of a recycled engine item slice: room
	// for the 100 serviceIds of a full answer.
	hintItemsCap = 128
	// maxAnswerBuf is the largest encoded answer whose buffer is kept.
	maxAnswerBuf = 1 << 20
)

// engineItems returns an empty item slice for the hint engine to append
// to, in a box for recycleEngineItems.
func (r *answerRecycler) engineItems() *[]hints.CompletionItem {
	if b, ok := answerPools.hintItems.Get().(*[]hints.CompletionItem); ok {
		return b
	}
	s := make([]hints.CompletionItem, 0, hintItemsCap)
	return &s
}

// recycleEngineItems gives back box, from engineItems, after an answer whose
// engine items are used: it goes back holding free, items no answer needs
// any more (used itself, or the items used replaced for resolve), or as it
// came when used did not take its slice.
func (r *answerRecycler) recycleEngineItems(box *[]hints.CompletionItem, used, free []hints.CompletionItem) {
	switch {
	case cap(free) >= hintItemsCap:
		// Recycled slices are zero past their length: clearing the items
		// used keeps them so, where clearing all 128 would cost 40 KB.
		clear(free)
		*box = free[:0]
		answerPools.hintItems.Put(box)
	case !sameArray(used, *box):
		answerPools.hintItems.Put(box)
	}
}

// sameArray reports whether a and b share their first element.
func sameArray(a, b []hints.CompletionItem) bool {
	return cap(a) > 0 && cap(b) > 0 && &a[:1][0] == &b[:1][0]
}

// completionItems returns an empty slice for the LSP items of an answer;
// encode recycles it.
func (r *answerRecycler) completionItems() []protocol.CompletionItem {
	if b, ok := answerPools.items.Get().(*[]protocol.CompletionItem); ok {
		return (*b)[:0]
	}
	return make([]protocol.CompletionItem, 0, hintItemsCap)
}

// encode encodes list into a recycled buffer and recycles list's items. The
// buffer itself is the answer when the stream holds it for the response to
// id; otherwise the answer is copied out at its exact size (the encoder
// reserves 160 bytes an item, and growing a 10 KB buffer from nothing
// copies it several times). A cancelled request's answer is not sent, so
// not held.
func (r *answerRecycler) encode(ctx context.Context, list *protocol.CompletionList, id jsonrpc2.ID) (json.RawMessage, error) {
	buf, ok := answerPools.bufs.Get().(*[]byte)
	if !ok {
		b := make([]byte, 0, 32<<10)
		buf = &b
	}
	enc, err := protocol.AppendMarshal((*buf)[:0], list)
	items := list.Items
	clear(items)
	items = items[:0]
	answerPools.items.Put(&items)
	list.Items = nil
	if err != nil {
		answerPools.bufs.Put(buf)
		return nil, err
	}
	*buf = enc
	if ctx.Err() == nil && r.hold(id, buf) {
		return enc, nil
	}
	raw := append(make(json.RawMessage, 0, len(enc)), enc...)
	r.putBuf(buf)
	return raw, nil
}

func (r *answerRecycler) putBuf(b *[]byte) {
	if cap(*b) <= maxAnswerBuf {
		*b = (*b)[:0]
		answerPools.bufs.Put(b)
	}
}

// arrived records a call read from the stream. A second call with the id of
// one awaiting its response leaves the first's buffer, if held, to the
// garbage collector: which of their responses carries it cannot be told.
func (r *answerRecycler) arrived(id jsonrpc2.ID) {
	n, ok := id.Number()
	if !r.holds || !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	if r.ids == nil {
		r.ids = map[int64]idState{}
	}
	st := r.ids[n]
	st.inflight++
	if st.inflight > 1 {
		st.buf = nil
	}
	r.ids[n] = st
}

// hold reports whether b is now held for the response to id. Only numeric
// ids are held (editors use them), and only while the call is the one read
// with its id that awaits a response.
func (r *answerRecycler) hold(id jsonrpc2.ID, b *[]byte) bool {
	n, ok := id.Number()
	if !r.holds || !ok {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.ids[n]
	if r.closed || st.inflight != 1 || st.buf != nil {
		return false
	}
	st.buf = b
	r.ids[n] = st
	r.taken++
	return true
}

// written gives back the buffer held for the response in body, which the
// stream has just written or failed to write (it is not written again),
// and counts that call answered.
func (r *answerRecycler) written(body []byte) {
	r.mu.Lock()
	if len(r.ids) == 0 {
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()
	n, ok := responseID(body)
	if !ok {
		return
	}
	r.mu.Lock()
	st := r.ids[n]
	b := st.buf
	switch {
	case st.inflight > 1:
		r.ids[n] = idState{inflight: st.inflight - 1}
	case st.inflight == 1:
		delete(r.ids, n)
	}
	r.mu.Unlock()
	if b != nil {
		r.putBuf(b)
	}
}

// close forgets every id and holds nothing from then on. The buffers still
// held are left to the garbage collector, not given back: jsonrpc2 closes
// the stream before its handlers have drained, and a handler may still
// hand its response, which aliases a held buffer, to Write after the close
// (the write fails, but reading the buffer while another answer is encoded
// into it is still a data race).
func (r *answerRecycler) close() {
	r.mu.Lock()
	r.ids, r.closed = nil, true
	r.mu.Unlock()
}

// responsePrefix is how jsonrpc2 starts every response it encodes.
var responsePrefix = []byte(`{"jsonrpc":"2.0","id":`)

// responseID returns the numeric id of an encoded response. The layout
// jsonrpc2 writes today is read directly; any other layout (members
// reordered, spaces) is scanned with jsonrpc2's own message scanner. A
// batch is never written: NewStream reads none.
func responseID(body []byte) (int64, bool) {
	if rest, ok := bytes.CutPrefix(body, responsePrefix); ok {
		end := bytes.IndexByte(rest, ',')
		if end > 0 && (bytes.HasPrefix(rest[end:], []byte(`,"result":`)) || bytes.HasPrefix(rest[end:], []byte(`,"error":`))) {
			if n, err := strconv.ParseInt(string(rest[:end]), 10, 64); err == nil {
				return n, true
			}
		}
	}
	if bytes.HasPrefix(body, []byte(`{"jsonrpc":"2.0","method":`)) {
		return 0, false // a request or notification: no response has a method
	}
	v, err := jsonrpc2.ScanMessageView(body)
	if err != nil || (v.Kind != jsonrpc2.MessageViewResponseResult && v.Kind != jsonrpc2.MessageViewResponseError) {
		return 0, false
	}
	return v.ID.Number()
}
