package restclient

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v4"

	"github.com/restls/restls/input"
)

// RecordOptions configure a Recorder.
type RecordOptions struct {
	// File is the fixtures file to write: JSON when its name ends in
	// .json, YAML otherwise. An existing file is updated in place.
	File string
	// Headers lists the response headers to record, by name in any case;
	// nil records every header a script can read except the hop-by-hop
	// ones (DefaultUnrecordedHeaders). Authorization, Cookie and
	// Set-Cookie are never recorded.
	Headers []string
}

// DefaultUnrecordedHeaders are the response headers a recording leaves
// out unless RecordOptions.Headers names them: they describe one
// connection, not the answer (RFC 9110 7.6.1).
var DefaultUnrecordedHeaders = []string{"connection", "keep-alive", "proxy-authenticate", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"}

// VolatileHeaders are the response headers that change at every answer
// or describe the server rather than the answer: a recording leaves them
// out unless --record-headers names them (issue 33), and a comparison of
// two runs does not list them (runtime/dryrun/diff). Content-Length is
// among them for a recording only: a replay sends the length of the body
// it sends.
var VolatileHeaders = []string{"age", "date", "expires", "server", "traceparent", "x-correlation-id", "x-request-id"}

// neverRecorded are headers that carry credentials or session state.
var neverRecorded = []string{"authorization", "proxy-authorization", "cookie", "set-cookie", "x-restls-mock"}

// Recorder keeps the answers of a run's calls and writes them as
// fixtures. Token requests are never recorded; a call retried after a 401
// is recorded with the answer the script saw. It is safe for concurrent
// use.
type Recorder struct {
	opts RecordOptions

	mu    sync.Mutex
	red   *Redactor
	calls []recordedCall
	// fillIn: the run answered calls from fixtures and recorded only
	// those they did not answer, so no fixture in the file is replaced.
	fillIn bool
}

type recordedCall struct {
	serviceID, method string
	params            []string
	query             []QueryParam
	status            int
	headers           Headers
	body              []byte
	fault             string // one of Faults, for a call that got none (ReplayFixtures)
}

// NewRecorder returns a Recorder that writes to opts.File on Save. It
// fails, before any call is made, when the file cannot be written (its
// directory does not exist) or exists but cannot be updated (not a
// fixtures file, unreadable).
func NewRecorder(opts RecordOptions) (*Recorder, error) {
	r := &Recorder{opts: opts}
	if err := input.CheckWriteTarget(opts.File); err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", opts.File, err)
	}
	old, err := input.ReadFile(opts.File, input.Fixtures) // regular files, size-limited, as --mock reads them
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err == nil {
		_, err = r.merged(old, nil, false)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot update %s: %w; fix the file or record to another one", opts.File, err)
	}
	return r, nil
}

func (r *Recorder) merged(old []byte, fixtures []*recordedFixture, fillIn bool) ([]byte, error) {
	if strings.EqualFold(filepath.Ext(r.opts.File), ".json") {
		return mergeJSON(old, fixtures, fillIn)
	}
	return mergeYAML(old, fixtures, fillIn, recordedHeadComment)
}

// Record makes the session keep the answer of every call it sends to the
// network in rec; what rec writes passes through the session's Redactor.
// With a Mock, only the calls no fixture answers are recorded (see
// Options.MockPassThrough) and Save keeps every fixture already in the
// file, adding the new ones after those of the same call.
func (s *Session) Record(rec *Recorder) {
	rec.mu.Lock()
	rec.red = s.red
	rec.fillIn = s.c.opts.Mock != nil
	rec.mu.Unlock()
	s.rec = rec
}

func (r *Recorder) add(serviceID string, req *Request, resp *Response) {
	c := recordedCall{
		serviceID: serviceID,
		method:    strings.ToUpper(req.Method),
		params:    slices.Clone(req.PathParams),
		query:     slices.Clone(req.Query),
		status:    resp.StatusCode,
		headers:   r.keptHeaders(resp.HeaderList),
		body:      slices.Clone(resp.Body),
	}
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
}

func (r *Recorder) keptHeaders(list Headers) Headers {
	var out Headers
	for _, f := range list {
		name := strings.ToLower(f.Name)
		if slices.Contains(neverRecorded, name) {
			continue
		}
		if r.opts.Headers != nil {
			if !slices.ContainsFunc(r.opts.Headers, func(h string) bool { return strings.EqualFold(h, name) }) {
				continue
			}
		} else if slices.Contains(DefaultUnrecordedHeaders, name) || slices.Contains(VolatileHeaders, name) || name == "content-length" {
			continue
		}
		out = append(out, HeaderField{Name: name, Value: f.Value})
	}
	// A header that Connection names is hop-by-hop too.
	if r.opts.Headers == nil {
		for _, f := range list {
			if strings.EqualFold(f.Name, "connection") {
				for _, n := range strings.Split(f.Value, ",") {
					n = strings.ToLower(strings.TrimSpace(n))
					out = slices.DeleteFunc(out, func(h HeaderField) bool { return h.Name == n })
				}
			}
		}
	}
	return out
}

// recordedFixture is one fixture as the recorder writes it.
type recordedFixture struct {
	ServiceID  string          `json:"serviceId"`
	Method     string          `json:"method"`
	Path       string          `json:"path"`
	Query      FixtureQuery    `json:"-"`
	QueryJSON  *FixtureQuery   `json:"query,omitempty"`
	Times      int             `json:"times,omitempty"`
	Status     int             `json:"status"`
	Headers    Headers         `json:"headers,omitempty"`
	Body       json.RawMessage `json:"body,omitempty"`
	BodyText   *string         `json:"bodyText,omitempty"`
	BodyBase64 *string         `json:"bodyBase64,omitempty"`
	Fault      string          `json:"fault,omitempty"`

	key string
	// comment goes above the fixture in a YAML file.
	comment string
	// replaces is the index+1 of the old item this one takes the place of.
	replaces int
}

// callKey identifies the calls a fixture answers exactly.
func callKey(serviceID, method, path string, q FixtureQuery) string {
	names := make([]string, 0, len(q))
	for n := range q {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		for _, v := range q[n] {
			b.WriteString(escapeQuery(n) + "=" + escapeQuery(v) + "&")
		}
	}
	return serviceID + "\x00" + strings.ToUpper(method) + "\x00" + path + "\x00" + b.String()
}

func queryOf(list []QueryParam) FixtureQuery {
	q := FixtureQuery{}
	for _, p := range list {
		q[p.Name] = append(q[p.Name], p.Value)
	}
	return q
}

// fixtures turns the recorded calls into fixtures, in call order: the
// calls of one key (same serviceId, method, path and query) that repeat
// get times, consecutive equal answers sharing one fixture.
func (r *Recorder) fixtures(asJSON bool) []*recordedFixture {
	r.mu.Lock()
	calls := slices.Clone(r.calls)
	red := r.red
	r.mu.Unlock()

	// Write query: {} only where a call without a query would otherwise
	// be answered by a fixture recorded for one with a query, or back.
	withQuery := map[string]bool{}
	for _, c := range calls {
		if len(c.query) > 0 {
			withQuery[c.serviceID+"\x00"+c.method+"\x00"+PathPattern(c.params)] = true
		}
	}
	var out []*recordedFixture
	count := map[string]int{}
	last := map[string]*recordedFixture{}
	for _, c := range calls {
		f := &recordedFixture{ServiceID: c.serviceID, Method: c.method, Path: PathPattern(c.params), Status: c.status, Fault: c.fault}
		if len(c.query) > 0 || withQuery[c.serviceID+"\x00"+c.method+"\x00"+f.Path] {
			f.Query = queryOf(c.query)
		}
		for _, h := range c.headers {
			f.Headers = append(f.Headers, HeaderField{Name: h.Name, Value: red.String(maskHeader(h.Name, h.Value))})
		}
		setRecordedBody(f, c.body, red, asJSON, c.status/100 == 2)
		f.key = callKey(f.ServiceID, f.Method, f.Path, f.Query)
		count[f.key]++
		if p := last[f.key]; p != nil && sameAnswer(p, f) {
			p.Times++
			continue
		}
		f.Times = 1
		last[f.key] = f
		out = append(out, f)
	}
	for _, f := range out {
		if count[f.key] == 1 {
			f.Times = 0
		}
	}
	return out
}

func sameAnswer(a, b *recordedFixture) bool {
	eq := func(x, y *string) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.Status == b.Status && a.Fault == b.Fault && slices.Equal(a.Headers, b.Headers) && bytes.Equal(a.Body, b.Body) &&
		eq(a.BodyText, b.BodyText) && eq(a.BodyBase64, b.BodyBase64)
}

func setRecordedBody(f *recordedFixture, body []byte, red *Redactor, asJSON, parsed bool) {
	switch {
	case len(body) == 0:
	case json.Valid(body) && string(bytes.TrimSpace(body)) != "null":
		// As a JSON value (readable, editable) where the file gives the
		// same bytes back on replay; else as the text received, so a
		// script that logs or compares the text sees what the service
		// sent (white space, escapes). A masked credential changes the
		// bytes either way. A 2XX answer's body reaches the script parsed
		// (r.body), so its white space does not matter: it is recorded
		// compact, as a value, wherever the value replays the same
		// (issue 33: run --record wrote indented JSON as folded strings).
		// An exception's body is text (e.body): its bytes are kept.
		j := redactJSON(body, red)
		if parsed {
			var c bytes.Buffer
			if json.Compact(&c, j) == nil && replaysAsBody(c.Bytes(), asJSON) {
				f.Body = c.Bytes()
				return
			}
		}
		if replaysAsBody(j, asJSON) {
			f.Body = j
		} else {
			s := string(j)
			f.BodyText = &s
		}
	case utf8.Valid(body):
		s := red.String(string(body))
		f.BodyText = &s
	default:
		s := base64.StdEncoding.EncodeToString([]byte(red.String(string(body))))
		f.BodyBase64 = &s
	}
}

// replaysAsBody reports whether the JSON body j, written as a fixture's
// body (a YAML value, or JSON when asJSON) and read back, is j again.
func replaysAsBody(j []byte, asJSON bool) bool {
	if asJSON {
		// Written by json.Marshal, read back compact (FixtureBody).
		b, err := json.Marshal(json.RawMessage(j))
		return err == nil && bytes.Equal(b, j)
	}
	n, err := jsonToYAML(j)
	if err != nil || blockYAMLSize(n, 0) > 4*int64(len(j))+1<<20 {
		// Block YAML indents each level by two: an object nested 10,000
		// deep (60 KB of JSON) would be 100 MB of YAML. Kept as text.
		return false
	}
	var text bytes.Buffer
	d, err := yaml.NewDumper(&text, yaml.WithIndent(2))
	if err != nil || d.Dump(n) != nil || d.Close() != nil {
		return false
	}
	back, err := input.YAMLNode(text.Bytes())
	if err != nil {
		return false
	}
	b, err := yamlToJSON(back)
	return err == nil && bytes.Equal(b, j)
}

// blockYAMLSize is about the size of n written as block YAML at
// indentation 2*depth: each value's indentation and text.
func blockYAMLSize(n *yaml.Node, depth int64) int64 {
	size := 2*depth + int64(len(n.Value)) + 4
	for _, c := range n.Content {
		size += blockYAMLSize(c, depth+1)
	}
	return size
}

// Save writes the recorded fixtures to the file: fixtures for the calls
// of this run replace those for the same calls in place, the others stay,
// new ones are appended (when the run used a Mock nothing is replaced:
// see Session.Record). It writes even
// when nothing was recorded, so the file exists after a run.
func (r *Recorder) Save() error {
	file := r.opts.File
	old, err := input.ReadFile(file, input.Fixtures)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("record: %w", err)
	}
	asJSON := strings.EqualFold(filepath.Ext(file), ".json")
	fixtures := r.fixtures(asJSON)
	r.mu.Lock()
	fillIn := r.fillIn
	r.mu.Unlock()
	data, err := r.merged(old, fixtures, fillIn)
	if err != nil {
		return fmt.Errorf("record: cannot update %s: %w; fix the file or record to another one", file, err)
	}
	return writeFileAtomic(file, data)
}

// writeFileAtomic writes a fixtures file in one step (input.ReplaceFile).
func writeFileAtomic(file string, data []byte) error {
	if err := input.ReplaceFile(file, data); err != nil {
		return fmt.Errorf("record: write %s: %w", file, err)
	}
	return nil
}

// existingKey is the key of a fixture already in the file, or "" when it
// is not one a recording would write (a pattern, no method).
func existingKey(f *Fixture) string {
	if f.ServiceID == "" || f.Method == "" || f.Path == nil {
		return ""
	}
	q := f.Query
	if q == nil {
		q = FixtureQuery{}
	}
	return callKey(f.ServiceID, f.Method, strings.Join(input.SplitPathGlob(*f.Path), "/"), q)
}

// merge places the new items among the old ones (each with its key, ""
// for none) and returns the resulting order; an old item is an int index,
// a new one a *recordedFixture.
func merge(oldKeys []string, fixtures []*recordedFixture, fillIn bool) []any {
	byKey := map[string][]*recordedFixture{}
	var order []string
	for _, f := range fixtures {
		if _, ok := byKey[f.key]; !ok {
			order = append(order, f.key)
		}
		byKey[f.key] = append(byKey[f.key], f)
	}
	lastOld := map[string]int{}
	for i, k := range oldKeys {
		if k != "" {
			lastOld[k] = i
		}
	}
	placed := map[string]bool{}
	var out []any
	for i, k := range oldKeys {
		news, recorded := byKey[k]
		switch {
		case k == "" || !recorded:
			out = append(out, i)
		case fillIn:
			out = append(out, i)
			if lastOld[k] == i {
				for _, f := range news {
					out = append(out, f)
				}
				placed[k] = true
			}
		case !placed[k]:
			news[0].replaces = i + 1
			for _, f := range news {
				out = append(out, f)
			}
			placed[k] = true
		}
	}
	for _, k := range order {
		if !placed[k] {
			for _, f := range byKey[k] {
				out = append(out, f)
			}
		}
	}
	return out
}

const recordedHeadComment = "Fixtures recorded by restls run --record: replay with restls run --mock.\nThe format is described in docs/runtime.md (schema: mock.schema.json)."

// mergeYAML: head is the comment of a new file.
func mergeYAML(old []byte, fixtures []*recordedFixture, fillIn bool, head string) ([]byte, error) {
	doc := &yaml.Node{}
	var list *yaml.Node
	if len(bytes.TrimSpace(old)) > 0 {
		if json.Valid(old) {
			return nil, errors.New("it holds JSON: record to a .json file to update it")
		}
		d, err := input.YAMLNode(old)
		if err != nil {
			return nil, err
		}
		doc = d
		l, err := fixtureList(doc)
		if err != nil {
			return nil, err
		}
		list = l
	} else {
		list = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		doc = &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{
			Kind: yaml.MappingNode, Tag: "!!map", HeadComment: head,
			Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: "fixtures"}, list},
		}}}
	}
	keys := make([]string, len(list.Content))
	for i, n := range list.Content {
		var f Fixture
		if err := input.DecodeYAMLValue(n, &f); err == nil {
			f.Method = strings.ToUpper(f.Method)
			keys[i] = existingKey(&f)
		}
	}
	var content []*yaml.Node
	for _, item := range merge(keys, fixtures, fillIn) {
		switch v := item.(type) {
		case int:
			content = append(content, list.Content[v])
		case *recordedFixture:
			n, err := v.yamlNode()
			if err != nil {
				return nil, err
			}
			n.HeadComment = v.comment
			if v.replaces > 0 {
				// The user's comment on the fixture stays with its call.
				n.HeadComment = list.Content[v.replaces-1].HeadComment
			}
			content = append(content, n)
		}
	}
	list.Content = content
	list.Style = 0 // a flow list would put every fixture on one line
	var b bytes.Buffer
	d, err := yaml.NewDumper(&b, yaml.WithIndent(2))
	if err != nil {
		return nil, err
	}
	if err := d.Dump(doc); err != nil {
		return nil, err
	}
	if err := d.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (f *recordedFixture) yamlNode() (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	add := func(k string, v *yaml.Node) { n.Content = append(n.Content, strNode(k), v) }
	intNode := func(i int) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: fmt.Sprint(i)} }
	add("serviceId", strNode(f.ServiceID))
	add("method", strNode(f.Method))
	add("path", strNode(f.Path))
	if f.Query != nil {
		q := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		if len(f.Query) == 0 {
			q.Style = yaml.FlowStyle
		}
		names := make([]string, 0, len(f.Query))
		for k := range f.Query {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			vs := f.Query[k]
			var v *yaml.Node
			if len(vs) == 1 {
				v = strNode(vs[0])
			} else {
				v = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
				for _, s := range vs {
					v.Content = append(v.Content, strNode(s))
				}
			}
			q.Content = append(q.Content, strNode(k), v)
		}
		add("query", q)
	}
	if f.Times > 0 {
		add("times", intNode(f.Times))
	}
	if f.Fault != "" {
		add("fault", strNode(f.Fault)) // no answer: the call fails as it did
		return n, nil
	}
	add("status", intNode(f.Status))
	if len(f.Headers) > 0 {
		h := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, x := range f.Headers {
			h.Content = append(h.Content, strNode(x.Name), strNode(x.Value))
		}
		add("headers", h)
	}
	switch {
	case f.Body != nil:
		b, err := jsonToYAML(f.Body)
		if err != nil {
			return nil, err
		}
		add("body", b)
	case f.BodyText != nil:
		add("bodyText", strNode(*f.BodyText))
	case f.BodyBase64 != nil:
		add("bodyBase64", strNode(*f.BodyBase64))
	}
	return n, nil
}

func mergeJSON(old []byte, fixtures []*recordedFixture, fillIn bool) ([]byte, error) {
	var items []json.RawMessage
	var wrapper jsonObject // the file's object around "fixtures", kept as it is
	if len(bytes.TrimSpace(old)) > 0 {
		raw := bytes.TrimSpace(old)
		if raw[0] == '{' {
			var err error
			if wrapper, err = readJSONObject(raw); err != nil {
				return nil, errors.New(errNotFixtureList)
			}
			list := wrapper.get("fixtures")
			if list == nil || json.Unmarshal(list, &items) != nil || items == nil {
				return nil, errors.New(errNotFixtureList)
			}
		} else if err := json.Unmarshal(raw, &items); err != nil {
			return nil, errors.New(errNotFixtureList)
		}
	}
	keys := make([]string, len(items))
	for i, it := range items {
		var f Fixture
		if json.Unmarshal(it, &f) == nil {
			f.Method = strings.ToUpper(f.Method)
			keys[i] = existingKey(&f)
		}
	}
	out := []json.RawMessage{}
	for _, item := range merge(keys, fixtures, fillIn) {
		switch v := item.(type) {
		case int:
			out = append(out, items[v])
		case *recordedFixture:
			if v.Query != nil {
				v.QueryJSON = &v.Query
			}
			b, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		}
	}
	var doc any = out
	if wrapper != nil {
		// Joined, not marshalled: json.Marshal would escape <, > and & in
		// the fixtures as they stand, which the encoder below does not.
		list := []byte{'['}
		for i, it := range out {
			if i > 0 {
				list = append(list, ',')
			}
			list = append(list, it...)
		}
		wrapper.set("fixtures", append(list, ']'))
		doc = wrapper
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// jsonObject is a JSON object's members in document order: a --record
// JSON file's wrapper object keeps its other members ("$schema") and
// their order when its fixtures are rewritten.
type jsonObject []jsonMember

type jsonMember struct {
	name  string
	value json.RawMessage
}

// readJSONObject reads the members of the object raw.
func readJSONObject(raw []byte) (jsonObject, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	obj := jsonObject{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		obj.set(tok.(string), v)
	}
	return obj, nil
}

// get is the value of member name (the last one, as encoding/json reads
// it), or nil.
func (o jsonObject) get(name string) json.RawMessage {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].name == name {
			return o[i].value
		}
	}
	return nil
}

// set replaces the value of member name where it stands, or adds it.
func (o *jsonObject) set(name string, v json.RawMessage) {
	for i := range *o {
		if (*o)[i].name == name {
			(*o)[i].value = v
			return
		}
	}
	*o = append(*o, jsonMember{name, v})
}

func (o jsonObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		name, err := json.Marshal(m.name)
		if err != nil {
			return nil, err
		}
		b.Write(name)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// HeaderNames splits a comma-separated list of header names (the
// --record-headers flag); an empty list is nil (the default set).
func HeaderNames(list string) []string {
	var out []string
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}
