package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/openapi"
)

// OpenAPISource attaches an OpenAPI description (a file or an http(s)
// URL) to a serviceId, or, with ServiceID empty, to every service whose
// url starts with one of the description's servers' urls.
type OpenAPISource struct {
	ServiceID string `json:"serviceId,omitempty"`
	Location  string `json:"location"`
	// Recorded marks a mock fixture file beside a script: recorded
	// answers, which give r.body's shape to services without a
	// description.
	Recorded bool `json:"recorded,omitempty"`
	// Root is the directory a recorded file must stay in, its links
	// followed: the script's repository (fixtureRoot).
	Root string `json:"-"`
}

// key identifies the source's index in the apiStore.
func (s OpenAPISource) key() string {
	if s.Recorded {
		return "recorded:" + s.Location
	}
	return s.Location
}

// ParseOpenAPIFlag reads the value of --openapi: "ID=PATH_OR_URL", or a
// path or URL alone for a description matched by its servers' urls.
func ParseOpenAPIFlag(v string) (OpenAPISource, error) {
	v = strings.TrimSpace(v)
	if id, loc, ok := strings.Cut(v, "="); ok && id != "" && !strings.ContainsAny(id, "/\\:?") {
		if loc == "" {
			return OpenAPISource{}, fmt.Errorf("--openapi %s: no file or URL after %q", v, id+"=")
		}
		return OpenAPISource{ServiceID: id, Location: loc}, nil
	}
	if v == "" {
		return OpenAPISource{}, fmt.Errorf("--openapi needs ID=PATH_OR_URL, or PATH_OR_URL for a description matched by its servers")
	}
	return OpenAPISource{Location: v}, nil
}

// parseOpenAPISetting reads the "openapi" setting: an object mapping
// serviceIds to descriptions, or a list of descriptions matched by their
// servers' urls.
func parseOpenAPISetting(raw json.RawMessage) ([]OpenAPISource, error) {
	raw = bytes.TrimSpace(raw)
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		out := make([]OpenAPISource, 0, len(list))
		for _, l := range list {
			if l != "" {
				out = append(out, OpenAPISource{Location: l})
			}
		}
		return out, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf(`must map serviceIds to description files or URLs ({"crm": "openapi/crm.yaml"}) or list descriptions (["https://crm.example.com/openapi.json"])`)
	}
	var out []OpenAPISource
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return out, err
		}
		var loc string
		if err := dec.Decode(&loc); err != nil {
			return out, fmt.Errorf("%v: the value must be a file path or URL", kt)
		}
		id, _ := kt.(string)
		if id != "" && loc != "" {
			out = append(out, OpenAPISource{ServiceID: id, Location: loc})
		}
	}
	return out, nil
}

// resolveOpenAPI makes relative file paths absolute against root.
func resolveOpenAPI(src []OpenAPISource, root string) []OpenAPISource {
	out := make([]OpenAPISource, len(src))
	for i, s := range src {
		if !openapi.IsURL(s.Location) {
			s.Location = hostPaths.resolve(root, s.Location) // as every path setting
		}
		out[i] = s
	}
	return out
}

// apiStore loads the descriptions every session names, each once, in the
// background: a request never waits for a description; until it is
// loaded, the hints are those without it. A load that completes calls
// onLoaded (the sessions diagnose again and publish their status).
type apiStore struct {
	log      *zap.Logger
	loader   openapi.Loader
	onLoaded func()
	// delay is how long a first load waits after the request that asked
	// for it: parsing a large description takes a core for a while, and
	// on a small machine that would slow the session's first answers
	// (initialize, the first didOpen and completion). Reloads do not wait.
	delay time.Duration

	mu    sync.Mutex
	gen   int64 // counts completed loads
	state map[string]*apiState
}

type apiState struct {
	src     OpenAPISource
	idx     *openapi.Index
	err     error
	loading bool
	loaded  bool // at least one load finished
}

// firstLoadDelay is apiStore.delay outside tests.
const firstLoadDelay = 300 * time.Millisecond

func newAPIStore(log *zap.Logger) *apiStore {
	return &apiStore{log: log, state: map[string]*apiState{}, delay: firstLoadDelay}
}

// docs returns the descriptions of src as they are now (those still
// loading have neither an index nor an error) and the store's generation;
// it starts the loads of locations not seen before.
func (a *apiStore) docs(src []OpenAPISource) ([]openapi.Doc, int64) {
	if len(src) == 0 {
		return nil, 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]openapi.Doc, 0, len(src))
	for _, s := range src {
		st := a.state[s.key()]
		if st == nil {
			st = &apiState{src: s}
			a.state[s.key()] = st
			a.startLocked(st, a.delay)
		}
		out = append(out, openapi.Doc{ServiceID: s.ServiceID, Location: s.Location, Index: st.idx, Err: st.err})
	}
	return out, a.gen
}

func (a *apiStore) startLocked(st *apiState, delay time.Duration) {
	if st.loading {
		return
	}
	st.loading = true
	if delay > 0 {
		time.AfterFunc(delay, func() { a.load(st) })
		return
	}
	go a.load(st)
}

func (a *apiStore) load(st *apiState) {
	var idx *openapi.Index
	var err error
	if st.src.Recorded {
		idx, err = a.loader.LoadRecorded(st.src.Root, st.src.Location)
	} else {
		idx, err = a.loader.Load(context.Background(), st.src.Location)
	}
	a.mu.Lock()
	st.idx, st.err, st.loading, st.loaded = idx, err, false, true
	a.gen++
	a.mu.Unlock()
	if err != nil {
		a.log.Warn("OpenAPI description not loaded", zap.Error(err))
	} else {
		a.log.Info("OpenAPI description loaded", zap.String("source", idx.Source), zap.Int("operations", len(idx.Ops)))
	}
	if a.onLoaded != nil {
		a.onLoaded()
	}
}

// reload loads every known description again (files are read only when
// changed; URLs are asked with their ETag).
func (a *apiStore) reload() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, st := range a.state {
		a.startLocked(st, 0)
	}
}

// apiCache is a session's attachment of its descriptions to the services
// of the registries it reads (Server.apiSets: the HTTP backend's, of
// Options.OpenAPI), rebuilt when a load completes or the registry
// changes.
type apiCache struct {
	mu   sync.Mutex
	gen  int64
	sets map[apiKey]*openapi.Set
}

type apiKey struct {
	sources string
	reg     *config.Registry
}

// set returns the descriptions of reg's services for src.
func (c *apiCache) set(store *apiStore, src []OpenAPISource, reg *config.Registry) *openapi.Set {
	set, _ := c.setGen(store, src, reg)
	return set
}

// setGen is set with the store's generation the answer is of.
func (c *apiCache) setGen(store *apiStore, src []OpenAPISource, reg *config.Registry) (*openapi.Set, int64) {
	if len(src) == 0 {
		return nil, 0
	}
	docs, gen := store.docs(src)
	key := apiKey{sourcesKey(src), reg}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen || c.sets == nil {
		c.gen, c.sets = gen, map[apiKey]*openapi.Set{}
	}
	if s, ok := c.sets[key]; ok {
		return s, gen
	}
	s := openapi.Attach(reg, docs)
	if len(c.sets) > 16 {
		clear(c.sets) // registries replaced by reloads, directories left
	}
	c.sets[key] = s
	return s, gen
}

func sourcesKey(src []OpenAPISource) string {
	var b strings.Builder
	for _, s := range src {
		b.WriteString(s.ServiceID)
		b.WriteByte(0)
		b.WriteString(s.key())
		b.WriteByte(0)
	}
	return b.String()
}

// recordedFiles finds the mock fixture files beside the scripts
// (*.mock.yaml, *.mock.json: MockSuffixes), once per directory until the
// next reload.
type recordedFiles struct {
	allowed bool // SessionOptions.MayAttachAPIs; set before the session starts
	mu      sync.Mutex
	dirs    map[string][]OpenAPISource
}

func (r *recordedFiles) beside(script string) []OpenAPISource {
	if script == "" || !r.allowed {
		return nil
	}
	dir := filepath.Dir(script)
	r.mu.Lock()
	src, ok := r.dirs[dir]
	r.mu.Unlock()
	if ok {
		return src
	}
	src = []OpenAPISource{}
	// Listed, not globbed: the directory's own name may hold "*" or "["
	// (filepath.Glob would expand them, through every directory they
	// match, or fail on them).
	root := fixtureRoot(script)
	ents, _ := os.ReadDir(dir)
	for _, suffix := range MockSuffixes { // the fixture files dry runs find
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), suffix) {
				src = append(src, OpenAPISource{Location: filepath.Join(dir, e.Name()), Recorded: true, Root: root})
			}
		}
	}
	r.mu.Lock()
	if r.dirs == nil {
		r.dirs = map[string][]OpenAPISource{}
	}
	r.dirs[dir] = src
	r.mu.Unlock()
	return src
}

// forget makes the next lookup look again (after a reload).
func (r *recordedFiles) forget() {
	r.mu.Lock()
	r.dirs = nil
	r.mu.Unlock()
}

// openAPISources are the descriptions the session uses: its settings'
// when they name any, else the server's.
func (s *session) openAPISources() []OpenAPISource {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.openAPISourcesLocked()
}

func (s *session) openAPISourcesLocked() []OpenAPISource {
	if s.settings.OpenAPI != nil && s.opts.MayAttachAPIs {
		return resolveOpenAPI(s.settings.OpenAPI, s.root)
	}
	return s.srv.opts.OpenAPI
}

// APIStatus is one description in restls/status.
type APIStatus struct {
	ServiceID string `json:"serviceId,omitempty"`
	Source    string `json:"source"`
	// State is "loading", "loaded" or "failed"; a failed URL that keeps
	// the copy loaded before is "loaded" with an Error.
	State string `json:"state"`
	// Recorded marks a mock fixture file beside a script: recorded
	// answers, used for r.body where a service has no description.
	Recorded   bool     `json:"recorded,omitempty"`
	Operations int      `json:"operations,omitempty"`
	Services   []string `json:"services,omitempty"`
	Error      string   `json:"error,omitempty"`
}

// openAPIStatus describes the session's descriptions for restls/status.
func (s *session) openAPIStatus(reg *config.Registry, show PathDisplay) []APIStatus {
	src := s.openAPISources()
	seen := map[string]bool{}
	for _, u := range s.openURIs() {
		if d := s.document(u); d != nil {
			for _, r := range s.recorded.beside(d.path) {
				if !seen[r.Location] {
					seen[r.Location] = true
					src = append(slices.Clip(src), r)
				}
			}
		}
	}
	var out []APIStatus
	s.mu.Lock()
	refused := s.settings.OpenAPI != nil && !s.opts.MayAttachAPIs
	s.mu.Unlock()
	if refused {
		out = append(out, APIStatus{State: "refused", Error: "the openapi setting is not honoured for this session: " +
			"any client of it could make the server read other files or fetch any address; start the server with --openapi instead"})
	}
	if len(src) == 0 {
		return out
	}
	docs, _ := s.srv.apis.docs(src)
	set := s.apiCache.set(s.srv.apis, src, reg)
	for i, d := range docs {
		st := APIStatus{ServiceID: d.ServiceID, Source: d.Location, State: "loading", Recorded: src[i].Recorded}
		if !openapi.IsURL(d.Location) {
			st.Source = show.Text(d.Location)
		} else {
			st.Source = openapi.Redact(d.Location)
		}
		if d.Err != nil {
			st.State, st.Error = "failed", show.Text(d.Err.Error())
		}
		if d.Index != nil {
			st.State, st.Operations = "loaded", len(d.Index.Ops)
			for _, id := range set.IDs() {
				if a, _ := set.API(id); a.Index == d.Index {
					st.Services = append(st.Services, id)
				}
			}
		}
		out = append(out, st)
	}
	return out
}

// OpenAPIFlags is the value of the repeatable --openapi flag (flag.Value).
type OpenAPIFlags []OpenAPISource

// OpenAPIFlagHelp is --openapi's help text.
const OpenAPIFlagHelp = "attach an OpenAPI description (a file or http(s) URL) to a serviceId for hints: `ID=PATH_OR_URL`; " +
	"PATH_OR_URL alone serves every service whose url starts with one of the description's servers (repeatable; the \"openapi\" setting overrides it)"

// String lists the descriptions as given.
func (f *OpenAPIFlags) String() string {
	if f == nil {
		return ""
	}
	parts := make([]string, len(*f))
	for i, s := range *f {
		parts[i] = s.Location
		if s.ServiceID != "" {
			parts[i] = s.ServiceID + "=" + s.Location
		}
	}
	return strings.Join(parts, ",")
}

// Set adds one --openapi value.
func (f *OpenAPIFlags) Set(v string) error {
	s, err := ParseOpenAPIFlag(v)
	if err != nil {
		return err
	}
	if !openapi.IsURL(s.Location) {
		if abs, err := filepath.Abs(s.Location); err == nil {
			s.Location = abs
		}
	}
	*f = append(*f, s)
	return nil
}

// descriptionDiagnostics are the problems of the session's local
// description files, by file: one that does not load (an error where it
// stops), and the parts of one that the hints cannot use (a $ref that
// does not resolve). A URL's problems go to restls/status only.
func (s *session) descriptionDiagnostics() map[string][]protocol.Diagnostic {
	src := s.openAPISources()
	if len(src) == 0 {
		return nil
	}
	docs, _ := s.srv.apis.docs(src)
	out := map[string][]protocol.Diagnostic{}
	for _, d := range docs {
		if openapi.IsURL(d.Location) || out[d.Location] != nil {
			continue
		}
		broken := d.Err != nil && !errors.Is(d.Err, fs.ErrNotExist)
		if !broken && (d.Index == nil || len(d.Index.Problems) == 0) {
			continue // nothing to say: do not read a large file for nothing
		}
		m := s.configMapper(hostPaths.fileURI(cleanAbs(d.Location)), d.Location)
		at := func(line int) protocol.Range {
			if line < 1 || line > len(m.lines) {
				line = 1
			}
			l := line - 1
			if l >= len(m.lines) {
				return protocol.Range{}
			}
			return protocol.Range{Start: m.position(m.lines[l]), End: m.position(m.lineEnd(l))}
		}
		switch {
		case broken:
			out[d.Location] = append(out[d.Location], protocol.Diagnostic{
				Range: at(openapi.ErrorLine(d.Err)), Severity: protocol.DiagnosticSeverityError,
				Code: protocol.String(CodeOpenAPIBroken), Source: protocol.NewOptional("restls"),
				Message: protocol.String(d.Err.Error() + "; the hints of its services fall back to those without a description"),
			})
		case d.Index != nil:
			for _, p := range d.Index.Problems {
				out[d.Location] = append(out[d.Location], protocol.Diagnostic{
					Range: at(p.Line), Severity: protocol.DiagnosticSeverityWarning,
					Code: protocol.String(CodeOpenAPIProblem), Source: protocol.NewOptional("restls"),
					Message: protocol.String(p.Message + "; hints leave out what depends on it"),
				})
			}
		}
	}
	return out
}

// Codes of the diagnostics on a description file, documented in
// docs/diagnostics.md.
const (
	CodeOpenAPIBroken  = "openapi-broken"
	CodeOpenAPIProblem = "openapi-problem"
)

// APIServices returns the serviceIds of reg whose API description (from
// Options.OpenAPI) is loaded, for the HTTP backend's /v1/services
// ("api": true), nil when none is, and the number of description loads
// completed so far: the answer changes only when reg or that number does.
// It starts the loads not started yet and never waits for them.
func (s *Server) APIServices(reg *config.Registry) (ids map[string]bool, gen int64) {
	if len(s.opts.OpenAPI) == 0 || reg == nil {
		return nil, 0
	}
	set, gen := s.apiSets.setGen(s.apis, s.opts.OpenAPI, reg)
	list := set.IDs()
	if len(list) == 0 {
		return nil, gen
	}
	ids = make(map[string]bool, len(list))
	for _, id := range list {
		ids[id] = true
	}
	return ids, gen
}
