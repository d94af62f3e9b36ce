package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/openapi"
)

// APISource attaches an OpenAPI description (a file or an http(s) URL) to
// a serviceId, or, with ServiceID empty, to every service whose url starts
// with one of the description's servers' urls.
type APISource struct {
	ServiceID string `json:"serviceId,omitempty"`
	Location  string `json:"location"`
	// Recorded marks a mock fixture file beside a script: recorded
	// answers, which give r.body's shape to services without a
	// description.
	Recorded bool `json:"recorded,omitempty"`
	// Root is the directory a recorded file must stay in, its links
	// followed: the script's repository (FixtureRoot).
	Root string `json:"-"`
}

// key identifies the source in the Descriptions store.
func (s APISource) key() string {
	if s.Recorded {
		return "recorded:" + s.Location
	}
	return s.Location
}

// ParseAPISource reads one description as --openapi and the project
// file give it: "ID=PATH_OR_URL", or a path or URL alone for a
// description matched by its servers' urls.
func ParseAPISource(v string) (APISource, error) {
	v = strings.TrimSpace(v)
	if id, loc, ok := strings.Cut(v, "="); ok && id != "" && !strings.ContainsAny(id, "/\\:?") {
		if loc == "" {
			return APISource{}, fmt.Errorf("--openapi %s: no file or URL after %q", v, id+"=")
		}
		return APISource{ServiceID: id, Location: loc}, nil
	}
	if v == "" {
		return APISource{}, fmt.Errorf("--openapi needs ID=PATH_OR_URL, or PATH_OR_URL for a description matched by its servers")
	}
	return APISource{Location: v}, nil
}

// Descriptions loads the API descriptions every surface names, each once,
// in the background: Docs never waits for a description (until it is
// loaded, the hints are those without it), Wait does (restls check). A
// load that completes calls the OnLoaded function.
type Descriptions struct {
	log      *zap.Logger
	loader   openapi.Loader
	onLoaded func()
	// delay is how long a first load waits after the request that asked
	// for it: parsing a large description takes a core for a while, and
	// on a small machine that would slow an editor session's first
	// answers (initialize, the first didOpen and completion). Reloads do
	// not wait.
	delay time.Duration

	mu      sync.Mutex
	gen     int64         // counts completed loads
	changed chan struct{} // closed and replaced when a load completes
	state   map[string]*apiState
	// closed: Close was called; no load starts any more. ctx ends then,
	// and loads counts those started (or waiting their delay) until they
	// end, so Close returns only after the last one logged.
	closed bool
	ctx    context.Context
	cancel context.CancelFunc
	loads  sync.WaitGroup
}

type apiState struct {
	src     APISource
	idx     *openapi.Index
	err     error
	loading bool
	loaded  bool        // at least one load finished
	timer   *time.Timer // a first load waiting its delay
}

// FirstLoadDelay is the delay an editor's store gives first loads.
const FirstLoadDelay = 300 * time.Millisecond

// NewDescriptions returns a store whose first loads wait delay (the
// language server's FirstLoadDelay; 0 for a command that waits for them
// anyway). log may be nil.
func NewDescriptions(log *zap.Logger, delay time.Duration) *Descriptions {
	if log == nil {
		log = zap.NewNop()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Descriptions{log: log, state: map[string]*apiState{}, delay: delay, changed: make(chan struct{}), ctx: ctx, cancel: cancel}
}

// ErrClosed is Wait's error once the store was closed.
var ErrClosed = errors.New("the API descriptions were closed")

// Close stops the store: loads waiting their delay never start, those
// running are cancelled (a URL's request; a file's read ends by its
// bound), and Close returns once every load has ended, so none logs or
// calls OnLoaded's function after it, or when ctx ends first (its
// error then). Docs starts no load after Close.
func (a *Descriptions) Close(ctx context.Context) error {
	a.mu.Lock()
	if !a.closed {
		a.closed = true
		a.cancel()
		for _, st := range a.state {
			if st.timer != nil && st.timer.Stop() {
				st.timer, st.loading = nil, false
				a.loads.Done()
			}
		}
		close(a.changed) // Wait returns ErrClosed
		a.changed = make(chan struct{})
	}
	a.mu.Unlock()
	done := make(chan struct{})
	go func() {
		a.loads.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("API descriptions still loading: %w", ctx.Err())
	}
}

// NewAnswerDescriptions is NewDescriptions for a store whose indexes keep
// their answers' schemas (openapi.Loader.Answers), which fixture checks
// need and the hints do not: a second store, so an editor pays for them
// only when it checks fixtures.
func NewAnswerDescriptions(log *zap.Logger, delay time.Duration) *Descriptions {
	d := NewDescriptions(log, delay)
	d.loader.Answers = true
	return d
}

// OnLoaded sets the function called after each completed load (the
// language server diagnoses its scripts again). Set it before the first
// Docs.
func (a *Descriptions) OnLoaded(f func()) { a.onLoaded = f }

// SetDelay changes the delay of first loads not started yet (tests).
func (a *Descriptions) SetDelay(d time.Duration) {
	a.mu.Lock()
	a.delay = d
	a.mu.Unlock()
}

// Docs returns the descriptions of src as they are now (those still
// loading have neither an index nor an error) and the store's generation;
// it starts the loads of locations not seen before.
func (a *Descriptions) Docs(src []APISource) ([]openapi.Doc, int64) {
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

// Wait starts the loads of src and returns once each has finished at
// least once (loaded or failed), or ctx ends.
func (a *Descriptions) Wait(ctx context.Context, src []APISource) error {
	a.Docs(src)
	for {
		a.mu.Lock()
		pending := false
		for _, s := range src {
			if st := a.state[s.key()]; st != nil && !st.loaded {
				pending = true
				break
			}
		}
		changed, closed := a.changed, a.closed
		a.mu.Unlock()
		if !pending {
			return nil
		}
		if closed {
			return ErrClosed
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}

func (a *Descriptions) startLocked(st *apiState, delay time.Duration) {
	if st.loading || a.closed {
		return
	}
	st.loading = true
	a.loads.Add(1)
	if delay > 0 {
		st.timer = time.AfterFunc(delay, func() {
			a.mu.Lock()
			st.timer = nil
			a.mu.Unlock()
			defer a.loads.Done()
			a.load(st)
		})
		return
	}
	go func() {
		defer a.loads.Done()
		a.load(st)
	}()
}

func (a *Descriptions) load(st *apiState) {
	var idx *openapi.Index
	var err error
	if st.src.Recorded {
		idx, err = a.loader.LoadRecorded(st.src.Root, st.src.Location)
	} else {
		idx, err = a.loader.Load(a.ctx, st.src.Location)
	}
	a.mu.Lock()
	st.idx, st.err, st.loading, st.loaded = idx, err, false, true
	a.gen++
	close(a.changed)
	a.changed = make(chan struct{})
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

// Reload loads every known description again (files are read only when
// changed; URLs are asked with their ETag).
func (a *Descriptions) Reload() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, st := range a.state {
		a.startLocked(st, 0)
	}
}

// Attachments attach descriptions to the services of the registries a
// surface reads, cached until a load completes or the registry changes.
// The zero value is ready to use.
type Attachments struct {
	mu   sync.Mutex
	gen  int64
	sets map[apiKey]*openapi.Set
}

type apiKey struct {
	sources string
	reg     *config.Registry
}

// Set returns the descriptions of reg's services for src.
func (c *Attachments) Set(store *Descriptions, src []APISource, reg *config.Registry) *openapi.Set {
	set, _ := c.SetGen(store, src, reg)
	return set
}

// SetGen is Set with the store's generation the answer is of.
func (c *Attachments) SetGen(store *Descriptions, src []APISource, reg *config.Registry) (*openapi.Set, int64) {
	if len(src) == 0 {
		return nil, 0
	}
	docs, gen := store.Docs(src)
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

func sourcesKey(src []APISource) string {
	var b strings.Builder
	for _, s := range src {
		b.WriteString(s.ServiceID)
		b.WriteByte(0)
		b.WriteString(s.key())
		b.WriteByte(0)
	}
	return b.String()
}

// Codes of the diagnostics on a description file, documented in
// docs/diagnostics.md.
const (
	CodeOpenAPIBroken  = "openapi-broken"
	CodeOpenAPIProblem = "openapi-problem"
)

// DescriptionProblem is a problem of a local description file: one that
// does not load (an error where it stops), or a part of one the hints
// cannot use (a $ref that does not resolve).
type DescriptionProblem struct {
	File     string
	Line     int // 1-based; 0 or out of the file: its first line
	Severity config.Severity
	Code     string
	Message  string
}

// DescriptionProblems are the problems of the local files among docs, in
// their order. A URL's problems are the status's, not a file's.
func DescriptionProblems(docs []openapi.Doc) []DescriptionProblem {
	var out []DescriptionProblem
	seen := map[string]bool{}
	for _, d := range docs {
		if openapi.IsURL(d.Location) || seen[d.Location] {
			continue
		}
		seen[d.Location] = true
		broken := d.Err != nil && !errors.Is(d.Err, fs.ErrNotExist)
		switch {
		case broken:
			out = append(out, DescriptionProblem{File: d.Location, Line: openapi.ErrorLine(d.Err), Severity: config.SeverityError,
				Code: CodeOpenAPIBroken, Message: d.Err.Error() + "; the hints of its services fall back to those without a description"})
		case d.Index != nil:
			for _, p := range d.Index.Problems {
				out = append(out, DescriptionProblem{File: d.Location, Line: p.Line, Severity: config.SeverityWarning,
					Code: CodeOpenAPIProblem, Message: p.Message + "; hints leave out what depends on it"})
			}
		}
	}
	return out
}
