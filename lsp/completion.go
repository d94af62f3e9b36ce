package lsp

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/restls/restls/hints"
)

// completion answers from the hint engine. A document that is not open or a
// registry that failed to load gives fewer items, never an error.
func (s *session) completion(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p protocol.CompletionParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	v, ok := s.viewOf(p.TextDocument.URI)
	ctx, done := s.detach(ctx, req)
	defer done()
	if !ok {
		return &protocol.CompletionList{Items: []protocol.CompletionItem{}}, nil
	}
	raw, err := s.encodeAnswer(ctx, v, p.Position, req.ID())
	return cancelled(ctx, raw, err)
}

// itemSlices recycles the item slices of completion answers: 100 items are
// about 40 KB, one per keystroke, and fewer garbage collections is a
// shorter tail.
var itemSlices = sync.Pool{New: func() any { s := make([]protocol.CompletionItem, 0, 128); return &s }}

// hintSlices recycles the hint engine's item slices the same way; a slice
// goes back once no answer holds it.
var hintSlices = sync.Pool{New: func() any { s := make([]hints.CompletionItem, 0, hintSliceCap); return &s }}

const hintSliceCap = 128

// sameArray reports whether a and b share their first element.
func sameArray(a, b []hints.CompletionItem) bool {
	return cap(a) > 0 && cap(b) > 0 && &a[:1][0] == &b[:1][0]
}

// encodeAnswer encodes the completion answer at pos into a recycled buffer.
// The buffer is sent as is when the stream can give it back once it has
// written the response to id (see heldAnswers), else copied out at its
// exact size: the encoder reserves 160 bytes an item, and growing a 10 KB
// buffer from nothing copies it several times. A cancelled request's
// answer is not sent, so not held.
func (s *session) encodeAnswer(ctx context.Context, v view, pos protocol.Position, id jsonrpc2.ID) (json.RawMessage, error) {
	list := s.completionList(v, pos)
	buf := answerBufs.Get().(*[]byte)
	enc, err := protocol.AppendMarshal((*buf)[:0], list)
	// Pooled slices are zero past their length, so clearing the items used
	// keeps them so (a full 128-item slice is 40 KB to zero).
	items := list.Items
	clear(items)
	items = items[:0]
	itemSlices.Put(&items)
	if err != nil {
		answerBufs.Put(buf)
		return nil, err
	}
	*buf = enc
	if ctx.Err() == nil && s.answers.hold(id, buf) {
		return enc, nil
	}
	raw := append(make(json.RawMessage, 0, len(enc)), enc...)
	if cap(enc) <= 1<<20 {
		*buf = enc[:0]
		answerBufs.Put(buf)
	}
	return raw, nil
}

// completionList is the work of a completion request once the view is
// taken: what the server-side benchmark measures. Several things keep the
// answer small (up to 100 serviceIds): a client that resolves documentation
// gets it from completionItem/resolve (and the hint engine does not build
// it); a client that supports item defaults gets the shared edit range and
// the resolve reference once; the plain-text insert format, the
// specification's default, is left out.
func (s *session) completionList(v view, pos protocol.Position) *protocol.CompletionList {
	buf := hintSlices.Get().(*[]hints.CompletionItem)
	c := hints.CompleteWith(v.d.doc, v.d.m.offset(pos), v.reg, hints.CompleteOptions{LazyDocs: v.caps.lazyDocs, Buf: *buf, Display: s.display()})
	items := *itemSlices.Get().(*[]protocol.CompletionItem)
	list := &protocol.CompletionList{IsIncomplete: c.Incomplete, Items: items[:0]}
	var seq int64
	if v.caps.lazyDocs {
		seq = s.resolve.next()
	}
	defer func() {
		// The engine's items are not needed once converted, except by
		// resolve: the latest answer's are kept and the ones they replace
		// recycled. Only a converted answer is kept, so an answer computed
		// concurrently never recycles items still being converted.
		recycle := c.Items
		if v.caps.lazyDocs {
			recycle = s.resolve.keep(seq, c.Items, v.reg)
		}
		switch {
		case cap(recycle) >= hintSliceCap:
			clear(recycle) // zero past its length already
			*buf = recycle[:0]
			hintSlices.Put(buf)
		case !sameArray(c.Items, *buf):
			hintSlices.Put(buf) // unused
		}
	}()
	shared := v.caps.editRange && len(c.Items) > 1
	for _, it := range c.Items[min(1, len(c.Items)):] {
		shared = shared && it.Replace == c.Items[0].Replace
	}
	defaultData := v.caps.lazyDocs && v.caps.dataDefault && len(c.Items) > 0
	if shared || defaultData {
		list.ItemDefaults = &protocol.CompletionItemDefaults{}
	}
	var edits []protocol.TextEdit
	if shared {
		r := v.d.m.toRange(c.Items[0].Replace)
		list.ItemDefaults.EditRange = &r
	} else {
		edits = make([]protocol.TextEdit, len(c.Items))
	}
	if defaultData {
		// completionItem/resolve finds the item by its label in answer seq.
		list.ItemDefaults.Data = strconv.AppendInt(nil, seq, 10)
	}
	// The items' ranges are mostly one range: convert each distinct one once.
	var last hints.Range
	var lastRange protocol.Range
	var data []byte
	for i, it := range c.Items {
		if v.caps.lazyDocs {
			it.Documentation = "" // kept in s.resolve
		}
		item, text := toCompletionItem(it, v.caps.snippets)
		if shared {
			if text != item.Label {
				item.TextEditText = protocol.NewOptional(text)
			}
		} else {
			if i == 0 || it.Replace != last {
				last, lastRange = it.Replace, v.d.m.toRange(it.Replace)
			}
			edits[i] = protocol.TextEdit{Range: lastRange, NewText: text}
			item.TextEdit = &edits[i]
		}
		if v.caps.lazyDocs && (c.Items[i].Documentation != "" || it.LazyDoc) {
			if !defaultData {
				start := len(data)
				data = appendResolveData(data, seq, i)
				item.Data = data[start:len(data):len(data)]
			}
		}
		list.Items = append(list.Items, item)
	}
	return list
}

// appendResolveData appends the reference of item i of answer seq, for a
// client that takes no default data.
func appendResolveData(b []byte, seq int64, i int) []byte {
	if b == nil {
		b = make([]byte, 0, 1024)
	}
	b = append(b, '[')
	b = strconv.AppendInt(b, seq, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(i), 10)
	return append(b, ']')
}
