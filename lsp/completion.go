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
// be recycled at once.
func (s *session) completionAnswer(v view, pos protocol.Position) (json.RawMessage, error) {
	list := s.completionList(v, pos)
	raw, err := protocol.Marshal(list)
	items := list.Items[:cap(list.Items)]
	clear(items)
	items = items[:0]
	itemSlices.Put(&items)
	if err != nil {
		return nil, err
	}
	return raw, nil
}

// completionList is the work of a completion request once the view is
// taken: what the server-side benchmark measures. Two things keep the
// answer small (up to 100 serviceIds, each with a Markdown description):
// a client that resolves documentation gets it from completionItem/resolve,
// and a client that supports item defaults gets the shared edit range once.
func (s *session) completionList(v view, pos protocol.Position) *protocol.CompletionList {
	c := hints.Complete(v.d.doc, v.d.m.offset(pos), v.reg)
	items := *itemSlices.Get().(*[]protocol.CompletionItem)
	list := &protocol.CompletionList{IsIncomplete: c.Incomplete, Items: items[:0]}
	var seq int64
	if v.caps.lazyDocs {
		s.mu.Lock()
		s.lastItemsSeq++
		seq = s.lastItemsSeq
		s.lastItems = c.Items
		s.mu.Unlock()
	}
	shared := v.caps.editRange && len(c.Items) > 1
	for _, it := range c.Items[min(1, len(c.Items)):] {
		shared = shared && it.Replace == c.Items[0].Replace
	}
	if shared {
		r := v.d.m.toRange(c.Items[0].Replace)
		list.ItemDefaults = &protocol.CompletionItemDefaults{EditRange: &r}
	}
	for i, it := range c.Items {
		item := toCompletionItem(v.d.m, it, v.caps.snippets)
		if shared {
			te := item.TextEdit.(*protocol.TextEdit)
			item.TextEdit = nil
			if te.NewText != item.Label {
				item.TextEditText = protocol.NewOptional(te.NewText)
			}
		}
		if v.caps.lazyDocs && it.Documentation != "" {
			item.Documentation = nil
			item.Data = resolveData(seq, i)
		}
		list.Items = append(list.Items, item)
	}
	return list
}

// resolveData identifies an item of a completion answer for resolve.
func resolveData(seq int64, i int) []byte {
	b := strconv.AppendInt([]byte{'['}, seq, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(i), 10)
	return append(b, ']')
}
