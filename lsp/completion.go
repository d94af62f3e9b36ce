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
	raw, err := s.completionAnswer(v, p.Position)
	return cancelled(ctx, raw, err)
}

// itemSlices recycles the item slices of completion answers: 100 items are
// about 40 KB, one per keystroke, and fewer garbage collections is a
// shorter tail.
var itemSlices = sync.Pool{New: func() any { s := make([]protocol.CompletionItem, 0, 128); return &s }}

// completionAnswer encodes the completion answer at pos, so its items can
// be recycled at once. The answer is encoded into one buffer, allocated
// once: growing a 10-15 KB buffer from nothing copies it several times. Its
// size is the previous answer's, or what the encoder reserves for the items
// (160 bytes each) after the list's other fields, whichever is larger.
func (s *session) completionAnswer(v view, pos protocol.Position) (json.RawMessage, error) {
	list := s.completionList(v, pos)
	size := max(s.answerSize.Load()+256, int64(512+160*len(list.Items)))
	raw, err := protocol.AppendMarshal(make([]byte, 0, size), list)
	items := list.Items[:cap(list.Items)]
	clear(items)
	items = items[:0]
	itemSlices.Put(&items)
	if err != nil {
		return nil, err
	}
	s.answerSize.Store(int64(len(raw)))
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
	var c hints.Completion
	if v.caps.lazyDocs {
		c = hints.CompleteLazy(v.d.doc, v.d.m.offset(pos), v.reg)
	} else {
		c = hints.Complete(v.d.doc, v.d.m.offset(pos), v.reg)
	}
	items := *itemSlices.Get().(*[]protocol.CompletionItem)
	list := &protocol.CompletionList{IsIncomplete: c.Incomplete, Items: items[:0]}
	var seq int64
	if v.caps.lazyDocs {
		s.mu.Lock()
		s.lastItemsSeq++
		seq = s.lastItemsSeq
		s.lastItems = c.Items
		s.lastItemsReg = v.reg
		s.mu.Unlock()
	}
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
			it.Documentation = "" // kept in lastItems for resolve
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
