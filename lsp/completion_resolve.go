package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// completionResolve adds the documentation left out of a completion answer
// (see completionList). An item from an older answer comes back unchanged.
func (s *session) completionResolve(_ context.Context, req *jsonrpc2.Request) (any, error) {
	var item protocol.CompletionItem
	if err := decode(req, &item); err != nil {
		return nil, err
	}
	var ref [2]int64
	if len(item.Data) > 0 && json.Unmarshal(item.Data, &ref) == nil {
		s.mu.Lock()
		if ref[0] == s.lastItemsSeq && ref[1] >= 0 && ref[1] < int64(len(s.lastItems)) {
			if it := s.lastItems[ref[1]]; it.Label == item.Label && it.Documentation != "" {
				item.Documentation = markdown(it.Documentation)
			}
		}
		s.mu.Unlock()
	}
	return &item, nil
}
