package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// completionAnswer encodes the completion answer at pos the way a request
// without an id would be, so the benchmark measures the whole answer.
func (s *session) completionAnswer(v view, pos protocol.Position) (json.RawMessage, error) {
	return s.encodeAnswer(context.Background(), v, pos, jsonrpc2.ID{})
}
