package hints

import "github.com/restls/restls/config"

type parseResult struct{}

var calls []Call

func complete(doc *Document, offset int, reg *config.Registry) Completion { return Completion{} }
func signature(doc *Document, offset int, reg *config.Registry) (SignatureInfo, bool) {
	return SignatureInfo{}, false
}
func hoverAt(doc *Document, offset int, reg *config.Registry) (Hover, bool) { return Hover{}, false }
func diagnose(doc *Document, reg *config.Registry) []Diagnostic             { return nil }
