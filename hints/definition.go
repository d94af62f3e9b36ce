package hints

import (
	"strings"

	"github.com/restls/restls/config"
	"github.com/restls/restls/openapi"
)

// Go to definition: a call's operation in its service's API description
// (openapi.go finds it), the schema of a typed answer (flow_definition.go),
// and a serviceId's configuration. Like hover.go and complete.go, the
// feature's entry point, whatever the area of the element.

// Definition is where the element at an offset is defined: a file and a
// 1-based line.
type Definition struct {
	File  string
	Line  int
	Range Range // the element in the script
}

// DefinitionAt returns where the element at offset is defined: for a
// call whose service has a description, the operation in the description
// file; for a serviceId string, its configuration.
func DefinitionAt(doc *Document, offset int, reg *config.Registry, disp Display) (out Definition, ok bool) {
	defer recovered()
	if doc == nil {
		return Definition{}, false
	}
	text := doc.text
	offset = clampOffset(text, offset)
	ws, we := identAround(text, offset)
	if ws < we {
		if c := callIndex(text[ws:we]); c >= 0 && strings.HasSuffix(text[:ws], "api.rest.v1.") {
			op, idx := callOperation(text, c, we, disp)
			if op == nil || openapi.IsURL(idx.Source) {
				return Definition{}, false
			}
			return Definition{File: idx.Source, Line: op.Line, Range: Range{ws, we}}, true
		}
		if d, ok := flowDefinition(doc, offset, disp); ok {
			return d, true
		}
	}
	if reg == nil {
		return Definition{}, false
	}
	d, _ := withScan(text, offset, func(s *scanResult) (*Definition, bool) {
		if s.where != inString {
			return nil, true
		}
		f := s.top()
		if f == nil || f.open != '(' || f.call < 0 || f.arg != argServiceID {
			return nil, s.settled()
		}
		rng := Range{s.strStart + 1, stringEnd(s.text, s.strStart, s.offset)}
		svc, ok := reg.Service(s.text[rng.Start:rng.End])
		if !ok || svc.Defined.File == "" {
			return nil, true
		}
		return &Definition{File: svc.Defined.File, Line: svc.Defined.Line, Range: rng}, true
	})
	if d == nil {
		return Definition{}, false
	}
	return *d, true
}
