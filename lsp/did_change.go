package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// didChange applies the changes in order. Incremental changes carry UTF-16
// ranges; the mapper turns them into byte offsets of the text as it is after
// the previous change of the same notification.
func (s *session) didChange(ctx context.Context, req *jsonrpc2.Request, p *protocol.DidChangeTextDocumentParams) (any, error) {
	u := p.TextDocument.URI
	s.mu.Lock()
	old := s.docs[u]
	s.mu.Unlock()
	if old == nil {
		s.log.Warn("didChange for a document that is not open; ignored", zap.String("uri", string(u)))
		return nil, nil
	}
	text := old.doc.Text()
	m := old.m
	for i, ch := range p.ContentChanges {
		switch c := ch.(type) {
		case *protocol.TextDocumentContentChangeWholeDocument:
			text = c.Text
		case *protocol.TextDocumentContentChangePartial:
			start, end := m.fromRange(c.Range)
			text = text[:start] + c.Text + text[end:]
		default:
			continue
		}
		if i < len(p.ContentChanges)-1 {
			m = newMapper(text)
		}
	}
	d := newDocument(old.uri, p.TextDocument.Version, text)
	// Completion uses the answer types of the old version until the new
	// one's are computed (with its diagnostics).
	d.doc = old.doc.Next(d.doc.Text())
	s.mu.Lock()
	// Only this goroutine changes texts, but the diagnostics worker may have
	// swapped in a copy of old without its syntax tree: replace it anyway.
	_, open := s.docs[u]
	why := ""
	if open {
		if why = s.admitLocked(u, int64(len(text))); why == "" {
			s.setDocumentLocked(d)
		}
	}
	s.mu.Unlock()
	if why != "" {
		// Grown past the session's limit: the document is no longer
		// checked (forgotten, as if closed) and the client is told why.
		s.diagnostics.forget(ctx, u, func() { s.dropDocument(u) })
		s.refuseDocument(ctx, u, why)
		return nil, nil
	}
	s.markDirty(u)
	return nil, nil
}
