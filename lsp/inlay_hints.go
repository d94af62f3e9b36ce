package lsp

import (
	"context"
	"net/url"

	"go.lsp.dev/protocol"

	"github.com/restls/restls/hints"
)

// inlayHint writes after each serviceId literal the service's resolved
// host and path and its auth kind ("crm.example.com/v1 · basic"), and
// after the first line the script's static worst-case time ("worst case
// 22 s"), behind the inlayHints setting (on unless set to false).
func (s *session) inlayHint(_ context.Context, p *protocol.InlayHintParams, t viewed) (any, error) {
	v := t.view
	out := []protocol.InlayHint{}
	if !t.ok || v.reg == nil || isConfigDocument(v.d.path) {
		return out, nil
	}
	from, to := v.d.m.fromRange(p.Range)
	yes := true
	// The script's static worst-case time, after its first line.
	if first := hints.FirstLine(v.d.doc.Text()); first.End >= from && first.Start <= to {
		if w, ok := hints.WorstCaseOf(v.d.doc, v.reg, s.displayFor(v)); ok {
			out = append(out, protocol.InlayHint{Position: v.d.m.position(first.End), Label: protocol.String(w.Label()), PaddingLeft: &yes})
		}
	}
	for _, c := range hints.CallSites(v.d.doc) {
		if c.Dynamic || c.IDRange.End == 0 || c.IDRange.End < from || c.IDRange.Start > to {
			continue
		}
		svc, ok := v.reg.Service(c.ServiceID)
		if !ok {
			continue
		}
		where := svc.URL
		if u, err := url.Parse(svc.URL); err == nil && u.Host != "" {
			where = u.Host + u.EscapedPath()
		}
		label := where + " · " + v.reg.AuthSummary(svc)
		at := min(c.IDRange.End+1, len(v.d.doc.Text())) // after the closing quote
		out = append(out, protocol.InlayHint{Position: v.d.m.position(at), Label: protocol.String(label), PaddingLeft: &yes})
	}
	return out, nil
}

// inlayHintView is inlayHint's take: the document's view, none when the
// inlayHints setting is off.
func (s *session) inlayHintView(p *protocol.InlayHintParams) viewed {
	v, ok := s.viewOf(p.TextDocument.URI)
	s.mu.Lock()
	off := s.settings.InlayHints != nil && !*s.settings.InlayHints
	s.mu.Unlock()
	return viewed{v, ok && !off}
}
