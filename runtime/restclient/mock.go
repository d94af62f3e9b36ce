package restclient

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
	yaml "go.yaml.in/yaml/v4"
)

// Fixture answers the calls that match it in mock mode.
type Fixture struct {
	// ServiceID must equal the call's serviceId.
	ServiceID string `yaml:"serviceId" json:"serviceId"`
	// Method matches the HTTP method, case-insensitively; empty matches any.
	Method string `yaml:"method" json:"method"`
	// Path is a pattern over the call's pathParams joined with "/"
	// (input.PathGlob): each segment is matched with path.Match ("*"
	// within a segment, a backslash escapes, so `\/` is a "/" inside one
	// segment) and "**" matches any number of segments. Absent matches any
	// path; "" matches only a call without pathParams.
	Path *string `yaml:"path" json:"path"`
	// Query, when present, must equal the call's query parameters: the
	// same names, each with the same values in the same order. Absent
	// matches any query; {} matches only a call without one.
	Query FixtureQuery `yaml:"query" json:"query"`
	// Times, when above 0, is how many calls the fixture answers; then it
	// is used up and the next matching fixture answers. 0 answers every
	// matching call.
	Times int `yaml:"times" json:"times"`
	// Status defaults to 200.
	Status int `yaml:"status" json:"status"`
	// Headers of the response; Content-Type defaults to application/json
	// when there is a body.
	Headers FixtureHeaders `yaml:"headers" json:"headers"`
	// Body is sent as JSON, keys in document order and numbers as written.
	Body *FixtureBody `yaml:"body" json:"body"`
	// BodyText is sent as it is, instead of Body.
	BodyText *string `yaml:"bodyText" json:"bodyText"`
	// BodyBase64 is sent decoded, for a body that is not UTF-8 text.
	BodyBase64 *string `yaml:"bodyBase64" json:"bodyBase64"`
	// Delay before the answer, for example "200ms"; the read timeout
	// applies to it.
	Delay string `yaml:"delay" json:"delay"`
	// Fault, when set, makes the call fail as the live client fails in
	// that case instead of answering it: one of Faults.
	Fault string `yaml:"fault" json:"fault"`

	delay time.Duration
	body  []byte
	path  *input.Glob
	index int
	line  int
}

// FixtureQuery maps a query parameter's name to its values in order; in
// a file a single value may be written without a list.
type FixtureQuery map[string]QueryValues

// QueryValues are the values of one query parameter.
type QueryValues []string

// UnmarshalYAML reads a scalar or a list of scalars, whatever they look
// like (page: 2 is the text "2").
func (q *QueryValues) UnmarshalYAML(n *yaml.Node) error {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.ScalarNode:
		*q = QueryValues{n.Value}
		return nil
	case yaml.SequenceNode:
		out := make(QueryValues, 0, len(n.Content))
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: a query value is a text or a list of texts", c.Line)
			}
			out = append(out, c.Value)
		}
		*q = out
		return nil
	}
	return fmt.Errorf("line %d: a query value is a text or a list of texts", n.Line)
}

// UnmarshalJSON reads a scalar or a list of scalars; a number or a
// boolean is its text, as in YAML.
func (q *QueryValues) UnmarshalJSON(data []byte) error {
	if one, ok := jsonScalarText(data); ok {
		*q = QueryValues{one}
		return nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(data, &list); err != nil {
		return fmt.Errorf("a query value is a string or a list of strings")
	}
	out := make(QueryValues, 0, len(list))
	for _, item := range list {
		v, ok := jsonScalarText(item)
		if !ok {
			return fmt.Errorf("a query value is a string or a list of strings")
		}
		out = append(out, v)
	}
	*q = out
	return nil
}

// jsonScalarText returns a JSON string's value, or a number's or a
// boolean's text.
func jsonScalarText(data []byte) (string, bool) {
	data = bytes.TrimSpace(data)
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		return s, true
	}
	if t := string(data); t == "true" || t == "false" || isJSONNumber(t) {
		return t, true
	}
	return "", false
}

// FixtureHeaders are a fixture's response headers. In a JSON file, as in
// YAML, a number or a boolean value is its text.
type FixtureHeaders map[string]string

// UnmarshalJSON reads an object of scalars.
func (h *FixtureHeaders) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("headers: an object of header names and values")
	}
	if raw == nil {
		*h = nil
		return nil
	}
	out := make(FixtureHeaders, len(raw))
	for k, v := range raw {
		t, ok := jsonScalarText(v)
		if !ok {
			return fmt.Errorf("header %s: a value is a string, a number or a boolean", k)
		}
		out[k] = t
	}
	*h = out
	return nil
}

// MarshalJSON writes one value as a string, more as a list.
func (q QueryValues) MarshalJSON() ([]byte, error) {
	if len(q) == 1 {
		return json.Marshal(q[0])
	}
	return json.Marshal([]string(q))
}

// FixtureBody is a fixture's JSON body, kept as the bytes it is sent as.
type FixtureBody struct {
	JSON json.RawMessage
}

// UnmarshalYAML converts the YAML value to JSON in document order.
func (b *FixtureBody) UnmarshalYAML(n *yaml.Node) error {
	j, err := yamlToJSON(n)
	if err != nil {
		return err
	}
	b.JSON = j
	return nil
}

// UnmarshalJSON keeps the JSON compact, as a YAML body is sent: body is
// a value (the file's indentation is not part of it); bodyText is the
// exact text.
func (b *FixtureBody) UnmarshalJSON(data []byte) error {
	var c bytes.Buffer
	if err := json.Compact(&c, data); err != nil {
		return err
	}
	b.JSON = c.Bytes()
	return nil
}

// MarshalJSON writes the body as it is kept.
func (b FixtureBody) MarshalJSON() ([]byte, error) {
	if len(b.JSON) == 0 {
		return []byte("null"), nil
	}
	return b.JSON, nil
}

// Mock answers calls from fixtures: the first matching fixture, in file
// order, that is not used up (see Fixture.Times) answers. It is an
// http.RoundTripper used in place of the network. It counts the calls
// each fixture answered, so one Mock serves one run.
type Mock struct {
	// File names the fixtures file in messages.
	File     string
	Fixtures []*Fixture
	// Advice ends a no-fixture message, after "add a fixture with
	// serviceId X, method M and a matching path and query": where to add
	// it and what else the user can do. Empty: restls run's advice (",
	// record one with --record, or run without --mock"), or for
	// PastedMocks the designer page's.
	Advice string

	// Script names the script in the advice of no-fixture (restls
	// fixtures generate SCRIPT); empty: "SCRIPT".
	Script string

	mu   sync.Mutex
	used map[*Fixture]int
}

func (m *Mock) scriptName() string {
	if m.Script == "" || m.Script == "-" {
		return "SCRIPT"
	}
	return m.Script
}

// PastedMocks is the name of a fixture document that arrived as text (the
// designer page's Mocks tab, POST /v1/run's "mock") in answers and
// messages: "pasted mocks fixture 2", "pasted mocks:12". Its lines are
// those of the text as sent, so a user finds them in the editor they
// pasted into; the server's temporary copy is never named.
const PastedMocks = "pasted mocks"

// LoadMock reads a fixtures file (YAML or JSON) through input.ReadFile: a
// regular file of at most 16 MiB (input.Fixtures).
func LoadMock(file string) (*Mock, error) { return LoadMockAs(file, "") }

// LoadMockAs is LoadMock for a file that answers and messages call name
// (Mock.File, X-Restls-Mock, no-fixture, parse and read errors) instead
// of its path: a temporary copy of fixtures that came from elsewhere.
// An empty name is the path.
func LoadMockAs(file, name string) (*Mock, error) {
	name = MockName(file, name)
	data, err := input.ReadFile(file, input.Fixtures)
	if err != nil && name != file {
		err = renamed{err: err, file: file, name: name}
	}
	var fe *input.FileError
	if errors.As(err, &fe) {
		return nil, fmt.Errorf("read mock fixtures %s: %w", name, err)
	}
	if err != nil {
		return nil, fmt.Errorf("read mock fixtures: %w", err)
	}
	return ParseMock(name, data)
}

// MockName is how a fixtures file is shown: name, or its path when name
// is empty.
func MockName(file, name string) string {
	if name == "" {
		return file
	}
	return name
}

// renamed is err with every mention of file replaced by name.
type renamed struct {
	err        error
	file, name string
}

func (e renamed) Error() string { return strings.ReplaceAll(e.err.Error(), e.file, e.name) }
func (e renamed) Unwrap() error { return e.err }

// errNotFixtureList is the message for a document of another shape.
const errNotFixtureList = `expected a list of fixtures, or an object with a "fixtures" list`

// ParseMock parses fixtures: either a list of fixtures or an object with a
// "fixtures" list. A YAML document goes through input's budgeted decode:
// aliases cost at most a small multiple of the document. Its errors are
// *MockError, at the file, line and column of the problem.
func ParseMock(file string, data []byte) (*Mock, error) {
	if json.Valid(data) {
		// JSON proper: YAML would reject characters JSON allows.
		return parseMockJSON(file, data)
	}
	doc, err := input.YAMLNode(data)
	if err != nil {
		return nil, yamlMockError(file, 0, err, 1, 1)
	}
	root, err := fixtureList(doc)
	if err != nil {
		return nil, &MockError{File: file, Msg: err.Error()}
	}
	m := &Mock{File: file}
	for i, n := range root.Content {
		var f Fixture
		if err := input.DecodeYAMLNode(n, &f); err != nil {
			return nil, yamlMockError(file, i+1, err, n.Line, n.Column)
		}
		if err := f.prepare(); err != nil {
			return nil, &MockError{File: file, Line: n.Line, Column: n.Column, Fixture: i + 1, Msg: err.Error()}
		}
		f.index, f.line = i+1, n.Line
		m.Fixtures = append(m.Fixtures, &f)
	}
	return m, nil
}

// MockError is a problem in a fixtures document: File, and where known
// the Line and Column of the problem (1-based) and the Fixture it is in
// (1-based). Its text is "file:line:col: fixture n: message".
type MockError struct {
	File         string
	Line, Column int
	Fixture      int
	Msg          string
	// Err is the error Msg says, where there is one (a YAML error).
	Err error
}

func (e *MockError) Unwrap() error { return e.Err }

func (e *MockError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	if e.Fixture > 0 {
		fmt.Fprintf(&b, ": fixture %d", e.Fixture)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// yamlMockError places a YAML error of fixture (0: the document) at its
// own mark, else at line:col: an unknown key says which it may have
// meant.
func yamlMockError(file string, fixture int, err error, line, col int) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var le *yaml.LoadError
	if errors.As(err, &le) {
		msg = le.Message
		if le.Mark.Line > 0 {
			line, col = le.Mark.Line, le.Mark.Column
		}
	}
	return &MockError{File: file, Line: line, Column: col, Fixture: fixture, Msg: unknownKeyMessage(msg), Err: err}
}

// fixtureKeys are the keys of a fixture, from Fixture's yaml tags.
var fixtureKeys = func() []string {
	t := reflect.TypeFor[Fixture]()
	var keys []string
	for i := range t.NumField() {
		if k, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}()

// unknownKeyMessage is msg, said as configuration and test files say it
// when it is about an unknown key: the key, and the nearest known one.
func unknownKeyMessage(msg string) string {
	if key, ok := input.UnknownYAMLKey(msg); ok {
		return fixtureKeyMessage(key)
	}
	return msg
}

// fixtureKeyMessage says that key is no key of a fixture.
func fixtureKeyMessage(key string) string {
	return config.UnknownKeyMessage(key, fixtureKeys) + " (docs/runtime.md lists the keys)"
}

// fixtureList finds the list of fixtures in a YAML document.
func fixtureList(doc *yaml.Node) (*yaml.Node, error) {
	root := doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.MappingNode {
		var list *yaml.Node
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value == "fixtures" {
				list = root.Content[i+1]
			}
		}
		if list == nil || list.Kind != yaml.SequenceNode {
			return nil, errors.New(errNotFixtureList)
		}
		root = list
	}
	if root.Kind != yaml.SequenceNode {
		return nil, errors.New(errNotFixtureList)
	}
	return root, nil
}

// Faults are the values of a fixture's fault, each named by the
// RestClientError code the script sees: the failures a call can meet
// that no status and body express.
var Faults = []string{CodeConnectTimeout, CodeReadTimeout, CodeConnectionRefused, CodeNotJSON, CodeTokenFailed}

// notJSONBody is the body of a not-json fault that gives none: what a
// proxy or a login page answers in place of the service.
const notJSONBody = "<html><body><h1>Service Unavailable</h1></body></html>"

// prepareFault checks a fault against the keys that would answer
// instead; not-json is a 2XX with a body that is not JSON.
func (f *Fixture) prepareFault() error {
	if !slices.Contains(Faults, f.Fault) {
		return fmt.Errorf("fault %q: use one of %s", f.Fault, strings.Join(Faults, ", "))
	}
	if f.Fault == CodeNotJSON {
		if f.Status != 0 && (f.Status < 200 || f.Status > 299) {
			return fmt.Errorf("fault not-json is a 2XX answer: status %d is not 2XX (another status is thrown with its body, JSON or not)", f.Status)
		}
		if f.Body != nil {
			return fmt.Errorf("fault not-json: give the body as bodyText or bodyBase64, or none for an HTML page")
		}
		return nil
	}
	if f.Status != 0 || f.Headers != nil || f.Body != nil || f.BodyText != nil || f.BodyBase64 != nil {
		return fmt.Errorf("fault %s: the call gets no answer, so give no status, headers or body", f.Fault)
	}
	return nil
}

func (f *Fixture) prepare() error {
	if f.ServiceID == "" {
		return fmt.Errorf("serviceId is required")
	}
	f.Method = strings.ToUpper(f.Method)
	if f.Fault != "" {
		if err := f.prepareFault(); err != nil {
			return err
		}
	}
	if f.Status == 0 {
		f.Status = 200
	}
	if f.Status < 100 || f.Status > 999 {
		return fmt.Errorf("status %d is not an HTTP status", f.Status)
	}
	if f.Times < 0 {
		return fmt.Errorf("times %d: use a positive count, or leave it out to answer every matching call", f.Times)
	}
	if f.Delay != "" {
		d, err := time.ParseDuration(f.Delay)
		if err != nil || d < 0 {
			return fmt.Errorf("delay %q: use a duration such as 250ms or 2s", f.Delay)
		}
		f.delay = d
	}
	n := 0
	for _, set := range []bool{f.Body != nil, f.BodyText != nil, f.BodyBase64 != nil} {
		if set {
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("give one of body, bodyText and bodyBase64")
	}
	switch {
	case f.BodyText != nil:
		f.body = []byte(*f.BodyText)
	case f.BodyBase64 != nil:
		b, err := base64.StdEncoding.DecodeString(*f.BodyBase64)
		if err != nil {
			return fmt.Errorf("bodyBase64: %w", err)
		}
		f.body = b
	case f.Body != nil:
		if !json.Valid(f.Body.JSON) {
			return fmt.Errorf("body is not JSON")
		}
		f.body = f.Body.JSON
	}
	if f.Fault == CodeNotJSON {
		if f.body == nil {
			f.body = []byte(notJSONBody)
		}
		if len(bytes.TrimSpace(f.body)) == 0 || json.Valid(f.body) {
			return fmt.Errorf("fault not-json: the body must be text that is not JSON (an empty 2XX body is null, a JSON one an answer)")
		}
	}
	if f.Path != nil {
		g, err := input.PathGlob(*f.Path)
		if err != nil {
			return fmt.Errorf("path %q: %w", *f.Path, err)
		}
		f.path = g
	}
	return nil
}

// PathPattern returns the pattern that matches exactly these pathParams:
// each segment with the pattern characters and "/" escaped.
func PathPattern(params []string) string {
	var b strings.Builder
	for i, p := range params {
		if i > 0 {
			b.WriteByte('/')
		}
		for j := 0; j < len(p); j++ {
			switch p[j] {
			case '\\', '*', '?', '[', ']', '/':
				b.WriteByte('\\')
			}
			b.WriteByte(p[j])
		}
	}
	return b.String()
}

// mockCall is what a Mock knows of a call.
type mockCall struct {
	serviceID, method string
	params            []string
	query             []QueryParam
}

// Why a fixture does not answer a call, from the furthest from a match to
// the closest.
const (
	missService = iota + 1
	missMethod
	missPath
	missQuery
	missUsedUp
)

// mismatch returns 0 when f matches c (used or not), or why it does not.
func (f *Fixture) mismatch(c mockCall) int {
	switch {
	case f.ServiceID != c.serviceID:
		return missService
	case f.Method != "" && f.Method != c.method:
		return missMethod
	case f.path != nil && !f.path.MatchSegments(c.params):
		return missPath
	case f.Query != nil && !f.Query.equal(c.query):
		return missQuery
	}
	return 0
}

func (q FixtureQuery) equal(query []QueryParam) bool {
	n := 0
	for _, vs := range q {
		n += len(vs)
	}
	if n != len(query) {
		return false
	}
	seen := make(map[string]int, len(q))
	for _, p := range query {
		vs, ok := q[p.Name]
		i := seen[p.Name]
		if !ok || i >= len(vs) || vs[i] != p.Value {
			return false
		}
		seen[p.Name] = i + 1
	}
	return true
}

// find returns the fixture that answers c and counts it when take is
// set; or nil and the closest fixture with why it does not answer.
func (m *Mock) find(c mockCall, take bool) (f *Fixture, closest *Fixture, why int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, fx := range m.Fixtures {
		w := fx.mismatch(c)
		if w == 0 && fx.Times > 0 && m.used[fx] >= fx.Times {
			w = missUsedUp
		}
		if w == 0 {
			if take {
				if m.used == nil {
					m.used = map[*Fixture]int{}
				}
				m.used[fx]++
			}
			return fx, nil, 0
		}
		if w > why {
			closest, why = fx, w
		}
	}
	return nil, closest, why
}

// takeTokenFault reports whether the fixture that answers the call is a
// token-request-failed fault, and then counts it: an OAuth service's
// token request fails before the call is sent.
func (m *Mock) takeTokenFault(c mockCall) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, fx := range m.Fixtures {
		if fx.mismatch(c) != 0 || fx.Times > 0 && m.used[fx] >= fx.Times {
			continue
		}
		if fx.Fault != CodeTokenFailed {
			return false
		}
		if m.used == nil {
			m.used = map[*Fixture]int{}
		}
		m.used[fx]++
		return true
	}
	return false
}

// answers reports whether a fixture would answer the call, without
// counting it.
func (m *Mock) answers(serviceID, method string, params []string, query []QueryParam) bool {
	f, _, _ := m.find(mockCall{serviceID, method, params, query}, false)
	return f != nil
}

// Used returns how many calls the fixture answered in this Mock.
func (m *Mock) Used(f *Fixture) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used[f]
}

// Line returns the fixture's line in its file (0 when unknown).
func (f *Fixture) Line() int { return f.line }

// noFixture explains why no fixture answers c.
func (m *Mock) noFixture(c mockCall, closest *Fixture, why int) *Error {
	q := ""
	if len(c.query) > 0 {
		parts := make([]string, len(c.query))
		for i, p := range c.query {
			parts[i] = escapeQuery(p.Name) + "=" + escapeQuery(p.Value)
		}
		q = " query " + strconv.Quote(strings.Join(parts, "&"))
	}
	msg := fmt.Sprintf("no fixture in %s answers %s %s path %q%s", m.File, c.method, c.serviceID, strings.Join(c.params, "/"), q)
	if closest != nil {
		where := fmt.Sprintf("%s fixture %d", m.File, closest.index)
		if closest.line > 0 {
			where = fmt.Sprintf("%s:%d (fixture %d)", m.File, closest.line, closest.index)
		}
		var reason string
		switch why {
		case missService:
			reason = fmt.Sprintf("is for serviceId %q", closest.ServiceID)
		case missMethod:
			reason = "is for method " + closest.Method
		case missPath:
			reason = fmt.Sprintf("has path %q", *closest.Path)
		case missQuery:
			reason = "has another query"
		case missUsedUp:
			reason = fmt.Sprintf("is used up (times: %d)", closest.Times)
		}
		msg += fmt.Sprintf("; the closest, %s, %s", where, reason)
	}
	msg += fmt.Sprintf(": add a fixture with serviceId %q, method %s and a matching path and query", c.serviceID, c.method)
	switch {
	case m.Advice != "":
		msg += m.Advice
	case m.File == PastedMocks:
		msg += " to the Mocks tab, or empty the Mocks tab to call the services"
	default:
		msg += ", generate one from the service's API description (restls fixtures generate " + m.scriptName() + "), record one with --record, or run without --mock"
	}
	return &Error{Code: CodeNoFixture, ServiceID: c.serviceID, Message: msg}
}

// RoundTrip answers req from the first matching fixture that is not used
// up.
func (m *Mock) RoundTrip(req *http.Request) (*http.Response, error) {
	ci := limitsFrom(req.Context())
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	c := mockCall{serviceID: ci.serviceID, method: req.Method, params: ci.pathParams, query: ci.query}
	f, closest, why := m.find(c, true)
	if f == nil {
		return nil, m.noFixture(c, closest, why)
	}
	if f.Fault == CodeTokenFailed {
		// The client takes it before the token request; a call that
		// gets here has no token to request.
		return nil, &Error{Code: CodeNoFixture, ServiceID: c.serviceID, Message: fmt.Sprintf("%s:%d (fixture %d) has fault token-request-failed, but serviceId %q has no oAuth authorization, so no token is requested: give the fixture a status or another fault", m.File, f.line, f.index, c.serviceID)}
	}
	// A fault of the connection fails before the request is written:
	// the read timeout does not run during its delay.
	connFault := f.Fault == CodeConnectTimeout || f.Fault == CodeConnectionRefused
	if tr := httptrace.ContextClientTrace(req.Context()); !connFault && tr != nil && tr.WroteRequest != nil {
		tr.WroteRequest(httptrace.WroteRequestInfo{})
	}
	if f.delay > 0 {
		t := time.NewTimer(f.delay)
		select {
		case <-t.C:
		case <-req.Context().Done():
			t.Stop()
			return nil, req.Context().Err()
		}
	}
	if err := f.fault(req.URL.Host, ci); err != nil {
		return nil, err
	}
	h := make(http.Header, len(f.Headers)+1)
	for k, v := range f.Headers {
		h.Set(k, v)
	}
	if f.body != nil && h.Get("Content-Type") == "" {
		if f.Fault == CodeNotJSON && f.BodyText == nil && f.BodyBase64 == nil {
			h.Set("Content-Type", "text/html; charset=utf-8")
		} else if f.BodyText != nil || f.BodyBase64 != nil {
			h.Set("Content-Type", "text/plain; charset=utf-8")
		} else {
			h.Set("Content-Type", "application/json")
		}
	}
	if h.Get("Content-Length") != "" {
		// A recorded length may be that of another text of the body
		// (or of a compressed one): the body sent is this one.
		h.Set("Content-Length", strconv.Itoa(len(f.body)))
	}
	h.Set("X-Restls-Mock", m.File+" fixture "+strconv.Itoa(f.index))
	return &http.Response{
		StatusCode:    f.Status,
		Status:        fmt.Sprintf("%d %s", f.Status, http.StatusText(f.Status)),
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(f.body)),
		ContentLength: int64(len(f.body)),
		Request:       req,
	}, nil
}

// fault returns the transport error the live client meets in the case
// f.Fault names, for the call's limits, or nil: the client classifies
// it as it classifies the network's, so the script sees the same code
// and message. The timeouts fail at once: a run that explores faults
// does not wait them out (a delay waits first, where that matters).
func (f *Fixture) fault(host string, lim limits) error {
	switch f.Fault {
	case CodeConnectTimeout:
		return &connectTimeoutError{addr: host, timeout: lim.connect, err: context.DeadlineExceeded}
	case CodeReadTimeout:
		return &readTimeoutError{timeout: lim.read, err: context.DeadlineExceeded}
	case CodeConnectionRefused:
		return &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", errConnRefused())}
	}
	return nil
}

func parseMockJSON(file string, data []byte) (*Mock, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	bad := fmt.Errorf("%s: %s", file, errNotFixtureList)
	tok, err := dec.Token()
	if err != nil {
		return nil, bad
	}
	if tok == json.Delim('{') {
		found := false
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, bad
			}
			if k == "fixtures" {
				if t, err := dec.Token(); err != nil || t != json.Delim('[') {
					return nil, bad
				}
				found = true
				break
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, bad
			}
		}
		if !found {
			return nil, bad
		}
	} else if tok != json.Delim('[') {
		return nil, bad
	}
	m := &Mock{File: file}
	var lines lineCounter
	for i := 0; dec.More(); i++ {
		line := lines.at(data, dec.InputOffset())
		var item json.RawMessage
		if err := dec.Decode(&item); err != nil {
			return nil, bad
		}
		var f Fixture
		d := json.NewDecoder(bytes.NewReader(item))
		d.DisallowUnknownFields()
		if err := d.Decode(&f); err != nil {
			msg := err.Error()
			if k, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
				if k, err := strconv.Unquote(k); err == nil {
					msg = fixtureKeyMessage(k)
				}
			}
			return nil, &MockError{File: file, Line: line, Fixture: i + 1, Msg: msg}
		}
		if err := f.prepare(); err != nil {
			return nil, &MockError{File: file, Line: line, Fixture: i + 1, Msg: err.Error()}
		}
		f.index, f.line = i+1, line
		m.Fixtures = append(m.Fixtures, &f)
	}
	return m, nil
}

// lineCounter finds the lines of values at increasing offsets, counting
// each newline once (a file of thousands of fixtures is not read again
// from its start for each).
type lineCounter struct {
	off, line int // newlines before off: line-1
}

// at returns the line of the first value at or after off (not before the
// last offset asked for), skipping white space and a comma.
func (c *lineCounter) at(data []byte, off int64) int {
	i := int(off)
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n' || data[i] == ',') {
		i++
	}
	i = min(i, len(data))
	c.line += bytes.Count(data[c.off:i], []byte("\n"))
	c.off = i
	return 1 + c.line
}
