package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/restls/restls/hints"
)

// completionResolve adds the documentation left out of a completion answer
// (see completionList). The item's data names the answer: [seq, index], or
// seq alone when it came from the list's item defaults, and the item is
// then found by its label. An item from an older answer comes back
// unchanged.
func (s *session) completionResolve(_ context.Context, req *jsonrpc2.Request) (any, error) {
	var item protocol.CompletionItem
	if err := decode(req, &item); err != nil {
		return nil, err
	}
	if len(item.Data) == 0 {
		return &item, nil
	}
	var ref [2]int64
	index := true
	if json.Unmarshal(item.Data, &ref) != nil {
		if json.Unmarshal(item.Data, &ref[0]) != nil {
			return &item, nil
		}
		index = false
	}
	s.mu.Lock()
	var it hints.CompletionItem
	found := false
	switch {
	case ref[0] != s.lastItemsSeq:
	case index:
		if ref[1] >= 0 && ref[1] < int64(len(s.lastItems)) {
			it, found = s.lastItems[ref[1]], true
		}
	default:
		for _, c := range s.lastItems {
			if c.Label == item.Label {
				it, found = c, true
				break
			}
		}
	}
	reg := s.lastItemsReg
	s.mu.Unlock()
	if !found || it.Label != item.Label {
		return &item, nil
	}
	doc := it.Documentation
	if it.LazyDoc {
		doc = hints.ServiceDocWith(reg, it.Label, s.display())
	}
	if doc != "" {
		item.Documentation = markdown(doc)
	}
	return &item, nil
}
