package workspace

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/restls/restls/config"
	"github.com/restls/restls/openapi"
	"github.com/restls/restls/runtime/restclient"
)

// Answers checked against the API descriptions (issue 27): restls run
// notes them beside each call, restls test fails a case on them
// (validateResponses), restls check and the editor report them on
// fixture files. This file is the one place a call or a fixture is
// matched to its operation and its answer checked.

// CheckAnswer finds the operation of an answer in set: that of service
// serviceID, method, and the path segments after the service's url. It
// returns the operation ("GET /orders/{id}") and how the status and the
// body break it; "" when no description documents the call (no
// description, recorded answers only, or no operation matches).
func CheckAnswer(set *openapi.Set, serviceID, method string, segs []openapi.Seg, status int, body any, isJSON bool) (string, []openapi.AnswerFinding) {
	api, ok := set.API(serviceID)
	if !ok || api.Index == nil || api.Index.Recorded {
		return "", nil
	}
	op, _ := api.Match(strings.ToUpper(method), segs)
	if op == nil {
		return "", nil
	}
	return op.Method + " " + op.Path, api.Index.CheckAnswer(op, status, body, isJSON)
}

// CheckCall checks a call's answer (CheckAnswer) and returns the notes
// for restclient.Call.Contract; none for a call with no answer.
func CheckCall(set *openapi.Set, reg *config.Registry, c *restclient.Call) []restclient.ContractNote {
	if c.Status == nil || set == nil {
		return nil
	}
	svc, ok := reg.Service(c.ServiceID)
	if !ok {
		return nil
	}
	segs, ok := CallSegments(svc.URL, c.URL)
	if !ok {
		return nil
	}
	body, isJSON := AnswerBody(c)
	op, found := CheckAnswer(set, c.ServiceID, c.Method, segs, c.Status.Code, body, isJSON)
	var out []restclient.ContractNote
	for _, f := range found {
		out = append(out, restclient.ContractNote{Operation: op, Path: f.Path, Rule: f.Rule, Message: f.Message})
	}
	return out
}

// CallSegments are the path segments of a call's final URL after its
// service's url, unescaped.
func CallSegments(serviceURL, callURL string) ([]openapi.Seg, bool) {
	base, err1 := url.Parse(serviceURL)
	u, err2 := url.Parse(callURL)
	if err1 != nil || err2 != nil {
		return nil, false
	}
	rest, ok := strings.CutPrefix(u.EscapedPath(), strings.TrimSuffix(base.EscapedPath(), "/"))
	if !ok {
		return nil, false
	}
	var segs []openapi.Seg
	for _, s := range strings.Split(rest, "/") {
		if s == "" {
			continue
		}
		if t, err := url.PathUnescape(s); err == nil {
			s = t
		}
		segs = append(segs, openapi.Seg{Text: s})
	}
	return segs, true
}

// AnswerBody is a call's response body as a JSON value (numbers as
// json.Number), when the answer is JSON and whole (not cut for the
// trace).
func AnswerBody(c *restclient.Call) (any, bool) {
	if c.BodyTruncated || len(c.ResponseBody) == 0 {
		return nil, false
	}
	isJSON := false
	for _, h := range c.ResponseHeaders {
		if strings.EqualFold(h.Name, "content-type") {
			isJSON = strings.Contains(strings.ToLower(h.Value), "json")
		}
	}
	if !isJSON {
		return nil, false
	}
	return decodeJSONNumber(c.ResponseBody)
}

func decodeJSONNumber(data []byte) (any, bool) {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}
