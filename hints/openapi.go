package hints

import "github.com/restls/restls/openapi"

// Hints from the services' API descriptions (package openapi): path
// segments, query parameters, payload keys and response fields of the
// operation a call addresses, through its serviceId. All of it reads the
// literal arguments only; a computed value matches anything and is never
// reported.
//
// This file holds what the features share: the description of a
// serviceId and the operation a call addresses. Completion is in
// openapi_complete.go, hover in openapi_hover.go, the diagnostics in
// diagnose_openapi.go, go to definition in definition.go.

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
