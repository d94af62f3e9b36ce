package hints

import (
	"strings"

	"github.com/restls/restls/config"
	"github.com/restls/restls/openapi"
)

// Hints from the services' API descriptions (package openapi): path
// segments, query parameters, payload keys and response fields of the
// operation a call addresses, through its serviceId. All of it reads the
// literal arguments only; a computed value matches anything and is never
// reported.
//
// This file holds what the features share: the description of a
// serviceId and the operation a call addresses. Completion is in
// openapi_complete.go, hover in openapi_hover.go, the diagnostics in
// diagnose_openapi.go.

// apiOf returns the description of serviceId id, if the session has one;
// recorded answers (mock fixtures) count only when recorded is set: they
// tell the shape of answers, not which paths exist.
func (d Display) apiOf(id string, recorded bool) (openapi.API, bool) {
	if d.APIs == nil || id == "" {
		return openapi.API{}, false
	}
	a, ok := d.APIs.API(id)
	if !ok || a.Index.Recorded && !recorded {
		return openapi.API{}, false
	}
	return a, true
}

func methodList(ops []*openapi.Operation) string {
	var seen []string
	for _, o := range ops {
		if !containsString(seen, o.Method) {
			seen = append(seen, o.Method)
		}
	}
	return strings.Join(seen, ", ")
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// operationOf returns the operation the call at open addresses, if its
// service has a description and its path is literal enough to tell.
func operationOf(text string, call, open int, disp Display, recorded bool) (*openapi.Operation, *openapi.Index) {
	ct := readCall(text, call, open)
	api, ok := disp.apiOf(ct.serviceID, recorded)
	if !ok {
		return nil, nil
	}
	op, _ := api.Match(calls[call].Method, ct.segs)
	return op, api.Index
}

// jsKey writes a key as an identifier when it is one, else quoted.
func jsKey(k string) string {
	if isIdentifier(k) {
		return k
	}
	return `"` + escapeQuote(k, '"') + `"`
}

// callOperation returns the operation of the call whose name ends at
// nameEnd, and the description it is in.
func callOperation(text string, call, nameEnd int, disp Display) (*openapi.Operation, *openapi.Index) {
	if disp.APIs == nil {
		return nil, nil
	}
	k := nameEnd
	for k < len(text) && isBlank(text[k]) {
		k++
	}
	if k >= len(text) || text[k] != '(' {
		return nil, nil
	}
	return operationOf(text, call, k, disp, false)
}

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

// callAt reads the `api.rest.v1.<call>(` that starts at i: the call and
// the offset of its '('.
func callAt(text string, i int) (call, open int, ok bool) {
	k := i + len("api.rest.v1.")
	ns := k
	for k < len(text) && isIdentPart(text[k]) {
		k++
	}
	c := callIndex(text[ns:k])
	for k < len(text) && isBlank(text[k]) {
		k++
	}
	if c < 0 || k >= len(text) || text[k] != '(' {
		return 0, 0, false
	}
	return c, k, true
}
