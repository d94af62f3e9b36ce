// Package remote loads the service hints map from another restls backend
// (GET /v1/services of `restls serve --http`) instead of local files: the
// registryUrl setting. A designer farm can then point every language server
// at one backend that owns the configuration.
//
// Fetches have a short timeout and are refreshed periodically; when the
// backend cannot be reached or answers nonsense, the kind's registry is
// empty and not loaded, with a diagnostic that says why, so editors offer no
// serviceId hints and everything else keeps working (docs/api.md#editor-hints).
//
// A Pool owns the registryUrl policy of a serving process: it routes each
// configuration source set that names a backend to that backend's Loader
// (the sources without one go to the files), gives the operator's token
// (--registry-url with --registry-token) to the operator's backend only,
// never to an address an editor's setting names, and refreshes every
// backend in use (Pool.Run). cmd/restls hands Pool.Load to the language
// server as its Load.
//
// remote imports only config. The remote map carries no credentials, no
// defining file and no timeouts: registries built from it use the default
// timeouts of docs/api.md#timeouts.
package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"go.uber.org/zap"

	"github.com/restls/restls/config"
)

// Diagnostic codes of a remote registry.
const (
	// CodeUnreachable: the backend did not answer (connection, timeout, HTTP
	// status other than 200/304).
	CodeUnreachable = "registry-url-unreachable"
	// CodeBadAnswer: the backend answered something that is not a hints map.
	CodeBadAnswer = "registry-url-bad-answer"
)

// maxBody caps a hints map; 10,000 services are about 1.5 MB.
const maxBody = 32 << 20

// Options configure a Loader.
type Options struct {
	// Token is sent as a bearer token when the backend requires one.
	Token string
	// Timeout bounds one fetch of one kind; zero means 3s.
	Timeout time.Duration
	// Client performs the requests; nil means a client of its own.
	Client *http.Client
	// Logger receives fetch failures; nil discards them.
	Logger *zap.Logger
}

// Loader fetches hints maps from one backend. It is safe for concurrent
// use; it remembers each kind's last answer and ETag, so an unchanged map
// costs a 304.
type Loader struct {
	base *url.URL
	opts Options
	log  *zap.Logger

	mu    sync.Mutex
	cache map[config.Kind]cached
	last  *config.Snapshot // the latest result, for Refresh
}

type cached struct {
	etag string
	ids  map[string]config.HintsEntry
}

// New returns a Loader for the backend at rawURL: the backend's base
// address (http://host:7373) or its /v1/services address.
func New(rawURL string, opts Options) (*Loader, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("registryUrl %q: give the address of a restls backend, e.g. http://127.0.0.1:7373", rawURL)
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/v1/services")
	u.RawQuery, u.Fragment = "", ""
	if opts.Timeout <= 0 {
		opts.Timeout = 3 * time.Second
	}
	// The token goes to the address the operator gave and nowhere else: a
	// redirect is reported, never followed (net/http keeps Authorization
	// on a redirect to the same host, whatever the port). Issue 23,
	// finding 15.
	client := &http.Client{}
	if opts.Client != nil {
		c := *opts.Client
		client = &c
	}
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	opts.Client = client
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	return &Loader{base: u, opts: opts, log: opts.Logger, cache: map[config.Kind]cached{}}, nil
}

// String is the backend address with any user information removed, for
// messages.
func (l *Loader) String() string {
	u := *l.base
	u.User = nil
	return u.String()
}

// Load fetches the hints map of every kind and returns a snapshot; it
// never fails as a whole. Its signature fits lsp.Options.Load; the sources
// are only recorded in the snapshot.
func (l *Loader) Load(src config.Sources) *config.Snapshot {
	return l.LoadContext(context.Background(), src)
}

// LoadContext is Load with a context.
func (l *Loader) LoadContext(ctx context.Context, src config.Sources) *config.Snapshot {
	regs := make([]*config.Registry, len(config.Kinds))
	var wg sync.WaitGroup
	for i, k := range config.Kinds {
		wg.Go(func() { regs[i] = l.registry(ctx, k) })
	}
	wg.Wait()
	snap := config.NewSnapshot(src, regs...)
	l.mu.Lock()
	l.last = snap
	l.mu.Unlock()
	return snap
}

func (l *Loader) registry(ctx context.Context, kind config.Kind) *config.Registry {
	ids, err := l.fetch(ctx, kind)
	if err != nil {
		code := CodeUnreachable
		if errors.Is(err, errBadAnswer) {
			code = CodeBadAnswer
		}
		l.log.Warn("no serviceId hints from the registry backend", zap.String("registryUrl", l.String()),
			zap.String("kind", string(kind)), zap.Error(err))
		return config.FailedRegistry(kind, config.Diagnostic{
			Severity: config.SeverityError,
			Code:     code,
			Message: fmt.Sprintf("registryUrl %s: %v; no serviceId hints until it answers (check that restls serve --http runs there and the token)",
				l.String(), err),
		})
	}
	services := make([]config.Service, 0, len(ids))
	for id, e := range ids {
		services = append(services, config.Service{ID: id, URL: e.URL, RawURL: e.URL, Description: e.Description})
	}
	slices.SortFunc(services, func(a, b config.Service) int { return strings.Compare(a.ID, b.ID) })
	return config.NewRegistry(kind, services, config.DefaultTimeouts, nil)
}

var errBadAnswer = errors.New("not a hints map")

// fetch returns kind's hints map, revalidating the cached one.
func (l *Loader) fetch(ctx context.Context, kind config.Kind) (map[string]config.HintsEntry, error) {
	ctx, cancel := context.WithTimeout(ctx, l.opts.Timeout)
	defer cancel()
	u := *l.base
	u.Path += "/v1/services"
	u.RawQuery = url.Values{"kind": {string(kind)}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if l.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+l.opts.Token)
	}
	l.mu.Lock()
	prev, havePrev := l.cache[kind]
	l.mu.Unlock()
	if havePrev && prev.etag != "" {
		req.Header.Set("If-None-Match", prev.etag)
	}
	res, err := l.opts.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("no answer within %s", l.opts.Timeout)
		}
		// The url.Error repeats the address the message already names.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, errors.New(redact(err.Error(), l.opts.Token))
	}
	defer res.Body.Close()
	switch res.StatusCode {
	case http.StatusNotModified:
		if havePrev {
			return prev.ids, nil
		}
		return nil, fmt.Errorf("%w: 304 Not Modified to a request without If-None-Match", errBadAnswer)
	case http.StatusOK:
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return nil, fmt.Errorf("GET /v1/services answered %s, a redirect to %s, which restls does not follow (its token goes only to the address given): if that is the backend, give its address as the registryUrl (--registry-url)",
			res.Status, location(res))
	case http.StatusUnauthorized, http.StatusForbidden:
		return nil, fmt.Errorf("%s: the backend wants a (different) bearer token: set --registry-token", res.Status)
	default:
		return nil, fmt.Errorf("GET /v1/services answered %s", res.Status)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %v", err)
	}
	if len(body) > maxBody {
		return nil, fmt.Errorf("%w: the answer exceeds %d MB", errBadAnswer, maxBody>>20)
	}
	ids, err := decodeHints(body)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.cache[kind] = cached{etag: res.Header.Get("ETag"), ids: ids}
	l.mu.Unlock()
	return ids, nil
}

// decodeHints reads a hints map (docs/api.md#editor-hints) and checks it is usable.
func decodeHints(body []byte) (map[string]config.HintsEntry, error) {
	var ids map[string]config.HintsEntry
	if err := json.Unmarshal(body, &ids); err != nil || ids == nil {
		if err == nil {
			err = errors.New("null")
		}
		return nil, fmt.Errorf("%w: %v", errBadAnswer, err)
	}
	for id, e := range ids {
		if id == "" {
			return nil, fmt.Errorf("%w: an empty serviceId", errBadAnswer)
		}
		if e.URL == "" {
			return nil, fmt.Errorf("%w: serviceId %q has no url", errBadAnswer, id)
		}
		// As the configuration loader does: such an id would reach curl
		// export and terminals (issue 23, finding 10).
		if strings.IndexFunc(id, unicode.IsControl) >= 0 {
			return nil, fmt.Errorf("%w: serviceId %q holds a control character", errBadAnswer, id)
		}
	}
	return ids, nil
}

// location is the Location of a redirect for a message: resolved against
// the request, without user information, quoted so that no control
// character of the backend's choosing reaches a terminal.
func location(res *http.Response) string {
	loc, err := res.Location()
	if err != nil {
		return "an address that does not parse"
	}
	loc.User = nil
	return strconv.Quote(loc.String())
}

// redact removes the token from an error text (a URL with credentials in a
// transport error, should anyone put it there).
func redact(s, token string) string {
	if token == "" {
		return s
	}
	return strings.ReplaceAll(s, token, "***")
}

// Refresh fetches every kind again and reports whether the answer differs
// from the previous Load or Refresh (new services, or the backend went away
// or came back). A loader never loaded reports false.
func (l *Loader) Refresh(ctx context.Context) bool {
	l.mu.Lock()
	prev := l.last
	l.mu.Unlock()
	next := l.LoadContext(ctx, config.Sources{})
	return prev != nil && differ(prev, next)
}

func differ(a, b *config.Snapshot) bool {
	for _, k := range config.Kinds {
		x, y := a.For(k), b.For(k)
		if x.Loaded != y.Loaded || len(x.Diagnostics) != len(y.Diagnostics) {
			return true
		}
		if x.Loaded && !sameHints(x.HintsMap(), y.HintsMap()) {
			return true
		}
		if len(x.Diagnostics) > 0 && x.Diagnostics[0].Message != y.Diagnostics[0].Message {
			return true
		}
	}
	return false
}

func sameHints(a, b map[string]config.HintsEntry) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
