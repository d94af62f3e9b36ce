package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/restls/restls/config"
	"github.com/restls/restls/hints"
)

// completionResolve adds the documentation left out of a completion answer
// (see completionList). The item's data names the answer: [seq, index], or
// seq alone when it came from the list's item defaults, and the item is
// then found by its label. An item from an older answer comes back
// unchanged.
func (s *session) completionResolve(_ context.Context, req *jsonrpc2.Request, item *protocol.CompletionItem) (any, error) {
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
	var it hints.CompletionItem
	var reg *config.Registry
	found := false
	if index {
		it, reg, found = s.resolve.at(ref[0], ref[1])
	} else {
		it, reg, found = s.resolve.labelled(ref[0], item.Label)
	}
	if !found || it.Label != item.Label {
		return &item, nil
	}
	doc := it.Documentation
	if it.LazyDoc {
		doc = hints.ServiceDoc(reg, it.Label, s.display())
	}
	if doc != "" {
		item.Documentation = markdown(doc)
	}
	return &item, nil
}
