package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/restls/restls/hints"
)

func (s *session) signatureHelp(ctx context.Context, p *protocol.SignatureHelpParams, t viewed) (any, error) {
	v, ok := t.view, t.ok
	if !ok {
		return nil, nil
	}
	sig, ok := hints.Signature(v.d.doc, v.d.m.offset(p.Position), v.reg)
	if !ok {
		return nil, nil
	}
	info := protocol.SignatureInformation{Label: sig.Label}
	if sig.Documentation != "" {
		info.Documentation = markdown(sig.Documentation)
	}
	for _, prm := range sig.Params {
		pi := protocol.ParameterInformation{Label: protocol.String(prm.Label)}
		if prm.Documentation != "" {
			pi.Documentation = markdown(prm.Documentation)
		}
		info.Parameters = append(info.Parameters, pi)
	}
	zero := uint32(0)
	res := &protocol.SignatureHelp{Signatures: []protocol.SignatureInformation{info}, ActiveSignature: &zero}
	if sig.ActiveParam >= 0 {
		res.ActiveParameter = protocol.NewNullable(uint32(sig.ActiveParam))
	}
	return res, nil
}
