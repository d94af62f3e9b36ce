package restclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/restls/restls/config"
	yaml "go.yaml.in/yaml/v4"
)

// Fixture answers the calls that match it in mock mode.
type Fixture struct {
	// ServiceID must equal the call's serviceId.
	ServiceID string `yaml:"serviceId" json:"serviceId"`
	// Method matches the HTTP method, case-insensitively; empty matches any.
	Method string `yaml:"method" json:"method"`
	// Path is a pattern over the call's pathParams joined with "/": each
	// segment is matched with path.Match ("*" within a segment) and "**"
	// matches any number of segments. Absent matches any path; "" matches
	// only a call without pathParams.
	Path *string `yaml:"path" json:"path"`
	// Status defaults to 200.
	Status int `yaml:"status" json:"status"`
	// Headers of the response; Content-Type defaults to application/json
	// when there is a body.
	Headers map[string]string `yaml:"headers" json:"headers"`
	// Body is sent as JSON.
	Body any `yaml:"body" json:"body"`
	// BodyText is sent as it is, instead of Body.
	BodyText *string `yaml:"bodyText" json:"bodyText"`
	// Delay before the answer, for example "200ms"; the read timeout
	// applies to it.
	Delay string `yaml:"delay" json:"delay"`

	delay time.Duration
	body  []byte
	segs  []string
	index int
}

// Mock answers calls from fixtures; the first matching fixture, in file
// order, answers. It is an http.RoundTripper used in place of the network.
type Mock struct {
	// File names the fixtures file in messages.
	File     string
	Fixtures []*Fixture
}

// LoadMock reads a fixtures file (YAML or JSON): a regular file of at
// most config.MaxFileSize bytes, as every configuration file.
func LoadMock(file string) (*Mock, error) {
	data, err := config.ReadFile(file)
	var fe *config.FileError
	if errors.As(err, &fe) {
		return nil, fmt.Errorf("read mock fixtures %s: %w", file, err)
	}
	if err != nil {
		return nil, fmt.Errorf("read mock fixtures: %w", err)
	}
	return ParseMock(file, data)
}

// ParseMock parses fixtures: either a list of fixtures or an object with a
// "fixtures" list.
func ParseMock(file string, data []byte) (*Mock, error) {
	if json.Valid(data) {
		// JSON proper: YAML would reject characters JSON allows.
		return parseMockJSON(file, data)
	}
	var list []*Fixture
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.MappingNode {
		var wrapper struct {
			Fixtures yaml.Node `yaml:"fixtures"`
		}
		if err := root.Decode(&wrapper); err != nil || wrapper.Fixtures.Kind != yaml.SequenceNode {
			return nil, fmt.Errorf("%s: expected a list of fixtures, or an object with a \"fixtures\" list", file)
		}
		root = &wrapper.Fixtures
	}
	if root.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s: expected a list of fixtures, or an object with a \"fixtures\" list", file)
	}
	for i, n := range root.Content {
		var f Fixture
		if err := decodeStrict(n, &f); err != nil {
			return nil, fmt.Errorf("%s:%d: fixture %d: %w", file, n.Line, i+1, err)
		}
		if err := f.prepare(); err != nil {
			return nil, fmt.Errorf("%s:%d: fixture %d: %w", file, n.Line, i+1, err)
		}
		f.index = i + 1
		list = append(list, &f)
	}
	return &Mock{File: file, Fixtures: list}, nil
}

func decodeStrict(n *yaml.Node, v any) error {
	return n.Load(v, yaml.WithKnownFields())
}

func (f *Fixture) prepare() error {
	if f.ServiceID == "" {
		return fmt.Errorf("serviceId is required")
	}
	f.Method = strings.ToUpper(f.Method)
	if f.Status == 0 {
		f.Status = 200
	}
	if f.Status < 100 || f.Status > 999 {
		return fmt.Errorf("status %d is not an HTTP status", f.Status)
	}
	if f.Delay != "" {
		d, err := time.ParseDuration(f.Delay)
		if err != nil || d < 0 {
			return fmt.Errorf("delay %q: use a duration such as 250ms or 2s", f.Delay)
		}
		f.delay = d
	}
	switch {
	case f.BodyText != nil:
		f.body = []byte(*f.BodyText)
	case f.Body != nil:
		b, err := json.Marshal(jsonable(f.Body))
		if err != nil {
			return fmt.Errorf("body: %w", err)
		}
		f.body = b
	}
	if f.Path != nil {
		p := strings.Trim(*f.Path, "/")
		if p != "" {
			f.segs = strings.Split(p, "/")
		} else {
			f.segs = []string{}
		}
		for _, s := range f.segs {
			if _, err := path.Match(s, ""); err != nil {
				return fmt.Errorf("path %q: bad pattern %q", *f.Path, s)
			}
		}
	}
	return nil
}

// jsonable converts YAML's map[any]any (from non-string keys) for JSON.
func jsonable(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = jsonable(e)
		}
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[fmt.Sprint(k)] = jsonable(e)
		}
		return m
	case []any:
		for i, e := range t {
			t[i] = jsonable(e)
		}
	}
	return v
}

func (f *Fixture) matches(serviceID, method string, params []string) bool {
	if f.ServiceID != serviceID || (f.Method != "" && f.Method != method) {
		return false
	}
	return f.segs == nil || matchSegs(f.segs, params)
}

func matchSegs(pat, segs []string) bool {
	if len(pat) == 0 {
		return len(segs) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(segs); i++ {
			if matchSegs(pat[1:], segs[i:]) {
				return true
			}
		}
		return false
	}
	if len(segs) == 0 {
		return false
	}
	if ok, _ := path.Match(pat[0], segs[0]); !ok {
		return false
	}
	return matchSegs(pat[1:], segs[1:])
}

// RoundTrip answers req from the first matching fixture.
func (m *Mock) RoundTrip(req *http.Request) (*http.Response, error) {
	ci := limitsFrom(req.Context())
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	var f *Fixture
	for _, c := range m.Fixtures {
		if c.matches(ci.serviceID, req.Method, ci.pathParams) {
			f = c
			break
		}
	}
	if f == nil {
		p := strings.Join(ci.pathParams, "/")
		return nil, &Error{Code: CodeNoFixture, ServiceID: ci.serviceID,
			Message: fmt.Sprintf("no fixture in %s answers %s %s path %q: add one with serviceId %q, method %s and a matching path, or run without --mock",
				m.File, req.Method, ci.serviceID, p, ci.serviceID, req.Method)}
	}
	if tr := httptrace.ContextClientTrace(req.Context()); tr != nil && tr.WroteRequest != nil {
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
	h := make(http.Header, len(f.Headers)+1)
	for k, v := range f.Headers {
		h.Set(k, v)
	}
	if f.body != nil && h.Get("Content-Type") == "" {
		if f.BodyText != nil {
			h.Set("Content-Type", "text/plain; charset=utf-8")
		} else {
			h.Set("Content-Type", "application/json")
		}
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

func parseMockJSON(file string, data []byte) (*Mock, error) {
	raw := bytes.TrimSpace(data)
	if len(raw) > 0 && raw[0] == '{' {
		var wrapper struct {
			Fixtures json.RawMessage `json:"fixtures"`
		}
		if err := json.Unmarshal(raw, &wrapper); err != nil || len(wrapper.Fixtures) == 0 {
			return nil, fmt.Errorf("%s: expected a list of fixtures, or an object with a \"fixtures\" list", file)
		}
		raw = wrapper.Fixtures
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("%s: expected a list of fixtures, or an object with a \"fixtures\" list", file)
	}
	m := &Mock{File: file}
	for i, item := range items {
		var f Fixture
		dec := json.NewDecoder(bytes.NewReader(item))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			return nil, fmt.Errorf("%s: fixture %d: %w", file, i+1, err)
		}
		if err := f.prepare(); err != nil {
			return nil, fmt.Errorf("%s: fixture %d: %w", file, i+1, err)
		}
		f.index = i + 1
		m.Fixtures = append(m.Fixtures, &f)
	}
	return m, nil
}
