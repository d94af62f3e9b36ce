package lsp

import (
	"context"
	"fmt"

	"github.com/dustin/go-humanize"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
)

// CodeSessionLimit is the diagnostic code of a document a session refused
// because it would pass the session's MaxDocuments or MaxBytes.
const CodeSessionLimit = "session-limit"

// admitLocked decides whether document u may hold size bytes of text: the
// empty string when it may, else the sentence that says which limit it
// passes and how to raise it. s.mu is held.
func (s *session) admitLocked(u uri.URI, size int64) string {
	old := s.docs[u]
	var oldSize int64
	if old != nil {
		oldSize = int64(len(old.doc.Text()))
	}
	raise := s.opts.RaiseLimits
	if raise != "" {
		raise = "; " + raise
	}
	if n := s.opts.MaxDocuments; n > 0 && old == nil && len(s.docs) >= n {
		return fmt.Sprintf("this session already has %d documents open, its limit, so restls does not check this one: close some documents and open it again%s", n, raise)
	}
	if m := s.opts.MaxBytes; m > 0 && s.textBytes-oldSize+size > m {
		return fmt.Sprintf("the documents open in this session would hold %s of text, past its limit of %s, so restls does not check this one: close some documents and open it again%s",
			humanize.IBytes(uint64(s.textBytes-oldSize+size)), humanize.IBytes(uint64(m)), raise)
	}
	return ""
}

// setDocumentLocked stores d as its URI's document, keeping the session's
// text count. s.mu is held.
func (s *session) setDocumentLocked(d *document) {
	if old := s.docs[d.uri]; old != nil {
		s.textBytes -= int64(len(old.doc.Text()))
	}
	s.docs[d.uri] = d
	s.textBytes += int64(len(d.doc.Text()))
	if s.overlaysFiles() && d.uri.IsFile() && d.path != "" {
		s.srv.ws.SetOverlay(s.id, d.path, d.version, d.doc.Text())
	}
}

// overlaysFiles reports whether the session's open files are the
// workspace's overlay, which every session's features read in place of
// the disk: only those of a client that may use the server's files (an
// editor that started it), never a designer's, whose documents could
// otherwise change what others read.
func (s *session) overlaysFiles() bool { return s.opts.MayUseFiles && s.opts.ShowPath == nil }

// deleteDocumentLocked forgets document u. s.mu is held.
func (s *session) deleteDocumentLocked(u uri.URI) {
	if old := s.docs[u]; old != nil {
		s.textBytes -= int64(len(old.doc.Text()))
		delete(s.docs, u)
		if s.overlaysFiles() && old.uri.IsFile() && old.path != "" {
			s.srv.ws.DropOverlay(s.id, old.path)
		}
	}
}

// refuseDocument tells the client why document u is not checked: one
// error diagnostic at its start, which stays until it is opened again.
func (s *session) refuseDocument(ctx context.Context, u uri.URI, why string) {
	s.log.Info("document refused by the session's limits", zap.String("uri", string(u)))
	s.notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: []protocol.Diagnostic{{
		Severity: protocol.DiagnosticSeverityError, Code: protocol.String(CodeSessionLimit), Source: protocol.NewOptional("restls"), Message: protocol.String(why),
	}}})
}
