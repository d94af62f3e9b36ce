package remote

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/restls/restls/config"
)

// PoolOptions configure a Pool.
type PoolOptions struct {
	// URL is the operator's registry backend (--registry-url), or empty.
	URL string
	// Token is sent to URL, and only to URL: a backend an editor's
	// registryUrl setting names never receives it.
	Token string
	// Files loads sources that name no registry backend; nil means
	// config.Load.
	Files func(config.Sources) *config.Snapshot
	// Logger receives fetch failures and refreshes; nil discards them.
	Logger *zap.Logger
}

// Pool routes configuration loads: sources with a RegistryURL go to that
// backend's Loader (one per URL, kept for refreshes), the others to the
// files. It is safe for concurrent use.
type Pool struct {
	opts PoolOptions
	log  *zap.Logger

	mu    sync.Mutex
	byURL map[string]*Loader
}

// NewPool returns a Pool; an invalid opts.URL is an error that names it.
func NewPool(opts PoolOptions) (*Pool, error) {
	if opts.Files == nil {
		opts.Files = config.Load
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	p := &Pool{opts: opts, log: opts.Logger, byURL: map[string]*Loader{}}
	if opts.URL != "" {
		l, err := New(opts.URL, Options{Token: opts.Token, Logger: p.log})
		if err != nil {
			return nil, err
		}
		p.byURL[opts.URL] = l
	}
	return p, nil
}

// Load reads src: from its registry backend when it names one, from the
// files otherwise. It never fails as a whole; its signature fits
// lsp.Options.Load. An invalid registryUrl yields a snapshot with no
// serviceId hints and a CodeUnreachable diagnostic that says why.
func (p *Pool) Load(src config.Sources) *config.Snapshot {
	if src.RegistryURL == "" {
		return p.opts.Files(src)
	}
	l, err := p.loader(src.RegistryURL)
	if err != nil {
		return config.FailedSnapshot(src, config.Diagnostic{Severity: config.SeverityError, Code: CodeUnreachable, Message: err.Error()})
	}
	return l.Load(src)
}

// loader returns url's Loader, making one (without the token) the first
// time a URL other than the operator's is named.
func (p *Pool) loader(url string) (*Loader, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if l := p.byURL[url]; l != nil {
		return l, nil
	}
	l, err := New(url, Options{Logger: p.log})
	if err != nil {
		return nil, err
	}
	p.byURL[url] = l
	return l, nil
}

func (p *Pool) loaders() []*Loader {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*Loader, 0, len(p.byURL))
	for _, l := range p.byURL {
		out = append(out, l)
	}
	return out
}

// Run fetches every backend in use again every interval until ctx ends,
// and calls onChange once per round in which any answer changed (new
// services, or a backend went away or came back). every must be positive, as
// for time.NewTicker.
func (p *Pool) Run(ctx context.Context, every time.Duration, onChange func()) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if p.refresh(ctx) {
			onChange()
		}
	}
}

// refresh fetches every backend once and reports whether any changed.
func (p *Pool) refresh(ctx context.Context) bool {
	changed := false
	for _, l := range p.loaders() {
		if l.Refresh(ctx) {
			p.log.Info("registry backend answer changed; reloading", zap.String("registryUrl", l.String()))
			changed = true
		}
	}
	return changed
}
