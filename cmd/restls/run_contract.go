package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/restls/restls/config"
	"github.com/restls/restls/openapi"
	"github.com/restls/restls/runtime/restclient"
)

// checkAnswers holds each call's answer to its operation in the services'
// API descriptions (--openapi and the project file's openapi): a status
// the operation does not document, a JSON body that breaks the answer's
// schema, as notes on the call (restclient.Call.Contract). It never fails
// the run; a description that does not load is a line on stderr.
func checkAnswers(ctx context.Context, stderr io.Writer, reg *config.Registry, sources openAPIFlags, calls []*restclient.Call) {
	if len(sources) == 0 || len(calls) == 0 {
		return
	}
	loader := &openapi.Loader{Answers: true}
	var docs []openapi.Doc
	for _, s := range sources {
		idx, err := loader.Load(ctx, s.Location)
		if err != nil {
			fmt.Fprintf(stderr, "restls run: %v; answers are not checked against it\n", err)
		}
		docs = append(docs, openapi.Doc{ServiceID: s.ServiceID, Location: s.Location, Index: idx, Err: err})
	}
	set := openapi.Attach(reg, docs)
	for _, c := range calls {
		if c.Status == nil {
			continue
		}
		api, ok := set.API(c.ServiceID)
		svc, known := reg.Service(c.ServiceID)
		if !ok || !known || api.Index == nil || api.Index.Recorded {
			continue
		}
		segs, ok := callSegments(svc.URL, c.URL)
		if !ok {
			continue
		}
		op, _ := api.Match(c.Method, segs)
		if op == nil {
			continue
		}
		body, isJSON := answerBody(c)
		for _, f := range api.Index.CheckAnswer(op, c.Status.Code, body, isJSON) {
			c.Contract = append(c.Contract, restclient.ContractNote{Operation: op.Method + " " + op.Path, Path: f.Path, Rule: f.Rule, Message: f.Message})
		}
	}
}

// callSegments are the path segments of a call's final URL after its
// service's url, unescaped.
func callSegments(serviceURL, callURL string) ([]openapi.Seg, bool) {
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

// answerBody is a call's response body as a JSON value, when the answer
// is JSON and whole (not cut for the trace).
func answerBody(c *restclient.Call) (any, bool) {
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
	dec := json.NewDecoder(strings.NewReader(string(c.ResponseBody)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}
