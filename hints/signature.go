package hints

import "github.com/restls/restls/config"

func signature(doc *Document, offset int, _ *config.Registry) (out SignatureInfo, ok bool) {
	defer recovered()
	if doc == nil {
		return SignatureInfo{}, false
	}
	sig, _ := withScan(doc.text, offset, func(s *scanResult) (*SignatureInfo, bool) {
		if s.where != inCode && s.where != inString && s.where != inTemplate {
			return nil, true
		}
		// The innermost api call around the cursor, even from inside an
		// object argument or a nested call of another function.
		for i := len(s.stack) - 1; i >= 0; i-- {
			f := &s.stack[i]
			if f.open != '(' || f.call < 0 {
				continue
			}
			c := &calls[f.call]
			return &SignatureInfo{
				Label:         c.Signature,
				Documentation: c.Documentation,
				Params:        append([]ParamInfo(nil), c.Params...),
				ActiveParam:   f.arg,
			}, true
		}
		return nil, false
	})
	if sig == nil {
		return SignatureInfo{}, false
	}
	return *sig, true
}
