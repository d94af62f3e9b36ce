package lsp

import (
	"context"
	"encoding/json"
	"strconv"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/restls/restls/hints"
)

// completion answers from the hint engine. A document that is not open or a
// registry that failed to load gives fewer items, never an error.
func (s *session) completion(ctx context.Context, req *jsonrpc2.Request, p *protocol.CompletionParams) (any, error) {
	v, ok := s.scriptViewOf(p.TextDocument.URI)
	ctx, done := s.detach(ctx, req)
	defer done()
	if !ok {
		return &protocol.CompletionList{Items: []protocol.CompletionItem{}}, nil
	}
	raw, err := s.encodeAnswer(ctx, v, p.Position, req.ID())
	return cancelled(ctx, raw, err)
}

// encodeAnswer encodes the completion answer at pos; see answerRecycler.
func (s *session) encodeAnswer(ctx context.Context, v view, pos protocol.Position, id jsonrpc2.ID) (json.RawMessage, error) {
	return s.answers.encode(ctx, s.completionList(v, pos), id)
}

// completionList is the work of a completion request once the view is
// taken: what the server-side benchmark measures. Several things keep the
// answer small (up to 100 serviceIds): a client that resolves documentation
// gets it from completionItem/resolve (and the hint engine does not build
// it); a client that supports item defaults gets the shared edit range and
// the resolve reference once; the plain-text insert format, the
// specification's default, is left out.
func (s *session) completionList(v view, pos protocol.Position) *protocol.CompletionList {
	box := s.answers.engineItems()
	c := hints.AppendCompletion(*box, v.d.doc, v.d.m.offset(pos), v.reg, hints.CompleteOptions{LazyDocs: v.caps.lazyDocs, Display: s.displayFor(v)})
	list := &protocol.CompletionList{IsIncomplete: c.Incomplete, Items: s.answers.completionItems()}
	var seq int64
	if v.caps.lazyDocs {
		seq = s.resolve.next()
	}
	defer func() {
		// The engine's items are not needed once converted, except by
		// resolve: the latest answer's are kept and the ones they replace
		// recycled. Only a converted answer is kept, so an answer computed
		// concurrently never recycles items still being converted.
		free := c.Items
		if v.caps.lazyDocs {
			free = s.resolve.keep(seq, c.Items, v.reg)
		}
		s.answers.recycleEngineItems(box, c.Items, free)
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
