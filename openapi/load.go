package openapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/restls/restls/input"
)

// FetchTimeout bounds the fetch of a description from a URL.
const FetchTimeout = 10 * time.Second

// IsURL reports whether location is an http(s) URL rather than a file.
func IsURL(location string) bool {
	l := strings.ToLower(location)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// Loader reads descriptions from files and URLs and keeps the last good
// index of each URL (with its ETag): a failed fetch returns that copy
// with the error, and a 304 answer reuses it. Safe for concurrent use.
type Loader struct {
	// Client fetches URLs; nil means a client with FetchTimeout.
	Client *http.Client
	// Answers keeps the answers' schemas for CheckAnswer (BuildAnswers):
	// restls run checks answers; the editor does not need them.
	Answers bool

	mu    sync.Mutex
	cache map[string]*cached
}

type cached struct {
	idx  *Index
	etag string
	mod  time.Time // a file's modification time
	size int64
}

// Load returns the index of the description at location (a file path or
// an http(s) URL). With an error, the index is the last good copy of the
// same location, or nil.
func (l *Loader) Load(ctx context.Context, location string) (*Index, error) {
	if IsURL(location) {
		return l.fetch(ctx, location)
	}
	return l.file(location, location, func(p string) ([]byte, error) { return input.ReadFile(p, input.Description) }, l.build)
}

func (l *Loader) build(source string, data []byte) (*Index, error) {
	if l.Answers {
		return BuildAnswers(source, data)
	}
	return Build(source, data)
}

// LoadRecorded returns the index of the recorded answers in a fixture
// file (BuildRecorded), read again only when it changed. The file is one
// a repository holds (beside a script): it must stay inside root, its
// symbolic links followed (input.ReadFileIn).
func (l *Loader) LoadRecorded(root, path string) (*Index, error) {
	return l.file("recorded:"+path, path, func(p string) ([]byte, error) { return input.ReadFileIn(root, p, input.Fixtures) }, BuildRecorded)
}

func (l *Loader) last(location string) *cached {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cache[location]
}

func (l *Loader) keep(location string, c *cached) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cache == nil {
		l.cache = map[string]*cached{}
	}
	l.cache[location] = c
}

// file loads a description, or the recorded answers of a fixture file,
// read by read (input's bounded reader: a regular file of at most its
// kind's limit, MaxSize for descriptions), so that /dev/zero or a FIFO
// named by --openapi, a setting or a fixture file beside a script is an
// error at once, never a read without end.
func (l *Loader) file(key, path string, read func(string) ([]byte, error), build func(string, []byte) (*Index, error)) (*Index, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("OpenAPI description %s: %w", path, err)
	}
	if c := l.last(key); c != nil && st.Mode().IsRegular() && c.mod.Equal(st.ModTime()) && c.size == st.Size() {
		return c.idx, nil
	}
	data, err := read(path)
	if errors.Is(err, input.ErrTooLarge) {
		err = fmt.Errorf("%w: %w", ErrTooLarge, err)
	}
	if err != nil {
		return nil, fmt.Errorf("OpenAPI description %s: %w", path, err)
	}
	idx, err := build(path, data)
	if err != nil {
		return nil, fmt.Errorf("OpenAPI description %s: %w", path, err)
	}
	release(len(data))
	l.keep(key, &cached{idx: idx, mod: st.ModTime(), size: st.Size()})
	return idx, nil
}

func (l *Loader) fetch(ctx context.Context, url string) (*Index, error) {
	prev := l.last(url)
	idx, etag, err := l.get(ctx, url, prev)
	if err != nil {
		err = fmt.Errorf("OpenAPI description %s: %w", Redact(url), err)
		if prev != nil {
			return prev.idx, fmt.Errorf("%w (using the copy loaded before)", err)
		}
		return nil, err
	}
	if idx != prev.index() {
		l.keep(url, &cached{idx: idx, etag: etag})
	}
	return idx, nil
}

func (c *cached) index() *Index {
	if c == nil {
		return nil
	}
	return c.idx
}

func (l *Loader) get(ctx context.Context, url string, prev *cached) (*Index, string, error) {
	client := &http.Client{Timeout: FetchTimeout}
	if l.Client != nil {
		c := *l.Client
		client = &c
	}
	if client.CheckRedirect == nil {
		client.CheckRedirect = checkRedirect
	}
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Accept", "application/json, application/yaml;q=0.9, */*;q=0.5")
	if prev != nil && prev.etag != "" {
		req.Header.Set("If-None-Match", prev.etag)
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) && ue.Unwrap() != nil {
			err = ue.Unwrap() // the url is named by the caller, without credentials
		}
		return nil, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotModified && prev != nil {
		return prev.idx, prev.etag, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("HTTP status %s", resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxSize+1))
	if err != nil {
		return nil, "", err
	}
	if len(data) > MaxSize {
		return nil, "", fmt.Errorf("%w: more than %d bytes", ErrTooLarge, MaxSize)
	}
	idx, err := l.build(Redact(url), data)
	if err != nil {
		return nil, "", err
	}
	release(len(data))
	return idx, resp.Header.Get("ETag"), nil
}

// maxRedirects bounds the redirects followed for one description.
const maxRedirects = 5

// ErrRedirect is returned for a redirect the loader does not follow.
var ErrRedirect = errors.New("redirect not followed")

// checkRedirect follows a redirect within the origin (scheme, host and
// port) of the first request, and one to another origin only when the
// URL carries no credentials (user information, sent as Authorization):
// with them, the redirect is refused with an error naming its target, so
// that the user writes that URL, with its own credentials if it needs
// any (issue 23, finding 15). Go's client already leaves out the
// Authorization it makes from user information, but it forwards one set
// as a header to another port of the same host or to a subdomain: the
// rule here does not depend on how the credential is sent. A downgrade
// from https to http is refused.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("%w: more than %d redirects", ErrRedirect, maxRedirects)
	}
	first := via[0]
	target := Redact(req.URL.String())
	if strings.EqualFold(first.URL.Scheme, "https") && !strings.EqualFold(req.URL.Scheme, "https") {
		return fmt.Errorf("%w: redirected from https to %s", ErrRedirect, target)
	}
	if sameOrigin(first.URL, req.URL) {
		return nil
	}
	if first.URL.User != nil || first.Header.Get("Authorization") != "" || first.Header.Get("Cookie") != "" {
		return fmt.Errorf("%w: redirected to %s, another origin, where the URL's credentials are not sent; use that URL instead", ErrRedirect, target)
	}
	return nil
}

// sameOrigin reports whether a and b have the same scheme, host and port.
func sameOrigin(a, b *url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		if strings.EqualFold(u.Scheme, "https") {
			return "443"
		}
		return "80"
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// releaseAbove is the size of a description from which loading it
// returns the memory its reading took at once (release).
const releaseAbove = 4 << 20

// release collects and returns to the system the memory a description of
// size bytes took to read, when it is large: reading GitHub's 13 MB
// description leaves 50-80 MB of garbage behind a 4 MB index. Left to
// the collector, that garbage is collected, and its pages returned, at
// some moment while the user types (BenchmarkServeStdioOpenAPI: r.body
// p99 0.9-1.3 ms instead of 0.55-0.7 ms); here it happens in the
// loader's background goroutine. See docs/decisions.md ("Loading a
// description of 4 MB or more").
func release(size int) {
	if size >= releaseAbove {
		debug.FreeOSMemory()
	}
}

// Redact removes user information and the query from a URL: either may
// hold a credential.
func Redact(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		rest := u[i+3:]
		end := strings.IndexAny(rest, "/?#")
		if end < 0 {
			end = len(rest)
		}
		if at := strings.LastIndexByte(rest[:end], '@'); at >= 0 {
			u = u[:i+3] + rest[at+1:]
		}
	}
	if q := strings.IndexAny(u, "?#"); q >= 0 {
		u = u[:q]
	}
	return u
}
