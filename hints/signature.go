package hints

import "github.com/restls/restls/config"

func signature(doc *Document, offset int, _ *config.Registry) (out SignatureInfo, ok bool) {
	defer func() {
		if recover() != nil {
			out, ok = SignatureInfo{}, false
		}
	}()
	if doc == nil {
		return SignatureInfo{}, false
	}
	s := scan(doc.text, offset)
	if s.where != inCode && s.where != inString && s.where != inTemplate {
		return SignatureInfo{}, false
	}
	// The innermost api call around the cursor, even from inside an object
	// argument or a nested call of another function.
	for i := len(s.stack) - 1; i >= 0; i-- {
		f := &s.stack[i]
		if f.open != '(' || f.call < 0 {
			continue
		}
		c := &calls[f.call]
		return SignatureInfo{
			Label:         c.Signature,
			Documentation: c.Documentation,
			Params:        append([]ParamInfo(nil), c.Params...),
			ActiveParam:   f.arg,
		}, true
	}
	return SignatureInfo{}, false
}
