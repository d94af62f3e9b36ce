package restclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/restls/restls/config"
)

// TraceFixtures turns the calls of a live run's trace into a fixtures
// document (YAML, as restls run --record writes a new file): the
// designer's Record button. The trace is already masked (every credential
// the session knew replaced, the Authorization header reduced to its
// scheme), so the fixtures hold nothing the preview did not show;
// credential headers are left out as a recording leaves them out.
//
// base gives the resolved address of a serviceId: a call's pathParams and
// query are read back from its URL under that address (the inverse of
// BuildURL). A call that got no answer, or whose URL is not under its
// service's address, becomes no fixture; notes say which and why, as
// they do for an answer the trace cut at TraceBodyLimit.
func TraceFixtures(calls []*Call, base func(serviceID string) (string, bool)) (doc []byte, notes []string, err error) {
	return traceFixtures(calls, base, false)
}

// ReplayFixtures is TraceFixtures for a replay of the run (restls dap):
// a call that failed as a fixture's fault can fail (a timeout, a refused
// connection: Faults) gets a fixture with that fault, so that the replay
// fails where the run did.
func ReplayFixtures(calls []*Call, base func(serviceID string) (string, bool)) (doc []byte, notes []string, err error) {
	return traceFixtures(calls, base, true)
}

func traceFixtures(calls []*Call, base func(serviceID string) (string, bool), faults bool) (doc []byte, notes []string, err error) {
	r := &Recorder{red: NewRedactor()}
	for i, c := range calls {
		if c == nil {
			continue
		}
		name := fmt.Sprintf("call %d (%s %s)", i+1, c.Method, c.ServiceID)
		fault := ""
		if c.Status == nil && faults && slices.Contains(Faults, c.ErrorCode) {
			fault = c.ErrorCode
		}
		if c.Status == nil && fault == "" {
			notes = append(notes, name+": no answer, no fixture")
			continue
		}
		b, ok := base(c.ServiceID)
		if !ok {
			notes = append(notes, name+": the serviceId is not configured, no fixture")
			continue
		}
		params, query, ok := SplitCallURL(b, c.URL)
		if !ok {
			notes = append(notes, name+": its URL is not under the service's address, no fixture")
			continue
		}
		if fault != "" {
			r.calls = append(r.calls, recordedCall{serviceID: c.ServiceID, method: strings.ToUpper(c.Method), params: params, query: query, fault: fault})
			continue
		}
		if c.BodyTruncated {
			notes = append(notes, fmt.Sprintf("%s: the answer was cut at %d KiB in the trace; its fixture holds the cut text", name, TraceBodyLimit>>10))
		}
		r.calls = append(r.calls, recordedCall{
			serviceID: c.ServiceID,
			method:    strings.ToUpper(c.Method),
			params:    params,
			query:     query,
			status:    c.Status.Code,
			headers:   r.keptHeaders(c.ResponseHeaders),
			body:      traceBodyBytes(c),
		})
	}
	doc, err = mergeYAML(nil, r.fixtures(false), false, tracedHeadComment)
	if err != nil {
		return nil, notes, err
	}
	return doc, notes, nil
}

// traceBodyBytes is the body a trace's call received, as far as the trace
// kept it: a JSON body as it is, a text body (which the trace holds as a
// JSON string) as its text. A JSON answer that is itself a string is told
// from a text one by its Content-Type.
// tracedHeadComment names where the fixtures of TraceFixtures came from.
const tracedHeadComment = "Fixtures recorded from a live run (the designer's Record): replay with restls run --mock.\nThe format is described in docs/runtime.md (schema: mock.schema.json)."

func traceBodyBytes(c *Call) []byte {
	raw := c.ResponseBody
	if len(raw) == 0 || raw[0] != '"' || isJSONContentType(c.ResponseHeaders) {
		return raw
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return raw
	}
	return []byte(text)
}

func isJSONContentType(h Headers) bool {
	for _, f := range h {
		if strings.EqualFold(f.Name, "content-type") {
			v := strings.ToLower(f.Value)
			return strings.Contains(v, "/json") || strings.Contains(v, "+json")
		}
	}
	return false
}

// SplitCallURL reads back the pathParams and query a call's URL was built
// from (BuildURL) under base, the service's resolved address; ok is false
// when the URL is not under base.
func SplitCallURL(base, callURL string) (params []string, query []QueryParam, ok bool) {
	b, err := parseBase(base)
	if err != nil {
		return nil, nil, false
	}
	u, err := url.Parse(callURL)
	if err != nil || !strings.EqualFold(u.Scheme, b.Scheme) || !strings.EqualFold(u.Host, b.Host) {
		return nil, nil, false
	}
	basePath := strings.TrimRight(b.EscapedPath(), "/")
	path := u.EscapedPath()
	rest, found := strings.CutPrefix(path, basePath)
	if !found || rest != "" && rest != "/" && rest[0] != '/' {
		return nil, nil, false
	}
	if rest = strings.TrimPrefix(rest, "/"); rest != "" {
		for _, seg := range strings.Split(rest, "/") {
			s, err := url.PathUnescape(seg)
			if err != nil {
				return nil, nil, false
			}
			params = append(params, s)
		}
	}
	raw := u.RawQuery
	if b.RawQuery != "" {
		// The address's own query comes first; it is no query parameter
		// of the call.
		if raw, found = strings.CutPrefix(raw, b.RawQuery); !found {
			return nil, nil, false
		}
		raw = strings.TrimPrefix(raw, "&")
	}
	if raw != "" {
		for _, kv := range strings.Split(raw, "&") {
			k, v, _ := strings.Cut(kv, "=")
			name, err1 := url.PathUnescape(k)
			value, err2 := url.PathUnescape(v)
			if err1 != nil || err2 != nil {
				return nil, nil, false
			}
			query = append(query, QueryParam{Name: name, Value: value})
		}
	}
	return params, query, true
}

// ErrNotRecordable is what AddTrace's errors wrap when a traced call
// cannot become a fixture.
var ErrNotRecordable = errors.New("the call cannot be recorded from its trace")

// AddTrace records the answer of a call from its trace (a run kept in the
// history, runtime/dryrun/history), as the live call would have been
// recorded: Save then writes it as --record does. The pathParams and
// query are read back from the call's URL against its service's address
// in reg. A call the service never answered, or answered from a fixture,
// is skipped (false); one whose body was cut, or whose URL is not under
// its service's address, is an error wrapping ErrNotRecordable.
//
// The trace was masked when the run made it: a credential in an answer
// stays "***" in the fixture, as it does in a recording.
func (r *Recorder) AddTrace(reg *config.Registry, c *Call) (bool, error) {
	if c.Status == nil || c.ErrorCode != "" && c.Status.Code == 0 {
		return false, nil
	}
	for _, e := range c.Events {
		if e.Kind == EventMock {
			return false, nil
		}
	}
	if c.BodyTruncated {
		return false, fmt.Errorf("%w: %s %s: its body was cut at %d KiB; record it with a live run (record: \"auto\") instead", ErrNotRecordable, c.Method, c.URL, TraceBodyLimit>>10)
	}
	svc, ok := reg.Service(c.ServiceID)
	if !ok {
		return false, fmt.Errorf("%w: serviceId %q is not configured any more", ErrNotRecordable, c.ServiceID)
	}
	params, query, ok := SplitCallURL(svc.URL, c.URL)
	if !ok {
		return false, fmt.Errorf("%w: %s %s (serviceId %q): the URL is not under the service's address %s", ErrNotRecordable, c.Method, c.URL, c.ServiceID, svc.URL)
	}
	body := traceBodyBytes(c)
	r.mu.Lock()
	r.calls = append(r.calls, recordedCall{
		serviceID: c.ServiceID,
		method:    strings.ToUpper(c.Method),
		params:    params,
		query:     query,
		status:    c.Status.Code,
		headers:   r.keptHeaders(c.ResponseHeaders),
		body:      body,
	})
	r.mu.Unlock()
	return true, nil
}
