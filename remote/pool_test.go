package remote_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/restls/restls/config"
	"github.com/restls/restls/remote"
)

// hintsBackend answers /v1/services with one serviceId, named by the
// backend, and records the Authorization header of every request.
type hintsBackend struct {
	*httptest.Server
	mu   sync.Mutex
	auth []string
	id   atomic.Value  // string
	seen chan struct{} // one per request, dropped when full
}

func newHintsBackend(t *testing.T, id string) *hintsBackend {
	t.Helper()
	b := &hintsBackend{seen: make(chan struct{}, 1024)}
	b.id.Store(id)
	b.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case b.seen <- struct{}{}:
		default:
		}
		b.mu.Lock()
		b.auth = append(b.auth, r.Header.Get("Authorization"))
		b.mu.Unlock()
		_, _ = w.Write([]byte(`{"` + b.id.Load().(string) + `": {"url": "https://svc.example.com"}}`))
	}))
	t.Cleanup(b.Close)
	return b
}

func (b *hintsBackend) authorizations() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.auth...)
}

func ids(snap *config.Snapshot) []string { return snap.For(config.ScriptService).IDs() }

// TestPoolRoutes: sources with a registryUrl are read from that backend,
// each URL its own; sources without one from the files.
func TestPoolRoutes(t *testing.T) {
	a, b := newHintsBackend(t, "from-a"), newHintsBackend(t, "from-b")
	var filesLoaded atomic.Int64
	files := func(src config.Sources) *config.Snapshot {
		filesLoaded.Add(1)
		return config.Load(src)
	}
	p, err := remote.NewPool(remote.PoolOptions{URL: a.URL, Files: files, Logger: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(p.Load(config.Sources{RegistryURL: a.URL})); len(got) != 1 || got[0] != "from-a" {
		t.Errorf("the operator's URL: %v", got)
	}
	if got := ids(p.Load(config.Sources{RegistryURL: b.URL})); len(got) != 1 || got[0] != "from-b" {
		t.Errorf("a setting's URL: %v", got)
	}
	if filesLoaded.Load() != 0 {
		t.Errorf("files read for a registryUrl")
	}
	snap := p.Load(config.Sources{ConfigRoot: "../testdata/config"})
	if filesLoaded.Load() != 1 || !snap.For(config.ScriptService).Loaded || snap.For(config.ScriptService).Len() < 2 {
		t.Errorf("sources without a registryUrl: files loaded %d times, %v", filesLoaded.Load(), ids(snap))
	}
	// Files defaults to config.Load.
	p, _ = remote.NewPool(remote.PoolOptions{})
	if snap := p.Load(config.Sources{ConfigRoot: "../testdata/config"}); !snap.For(config.ScriptService).Loaded {
		t.Errorf("default Files: not loaded")
	}
}

// TestPoolToken: the operator's token reaches the operator's URL only,
// never a backend an editor's setting names.
func TestPoolToken(t *testing.T) {
	const token = "pool-t0ken"
	flag, setting := newHintsBackend(t, "a"), newHintsBackend(t, "b")
	p, err := remote.NewPool(remote.PoolOptions{URL: flag.URL, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	p.Load(config.Sources{RegistryURL: flag.URL})
	p.Load(config.Sources{RegistryURL: setting.URL})
	for _, h := range flag.authorizations() {
		if h != "Bearer "+token {
			t.Errorf("the operator's backend got Authorization %q", h)
		}
	}
	for _, h := range setting.authorizations() {
		if h != "" {
			t.Errorf("a setting's backend got Authorization %q", h)
		}
	}
	if len(flag.authorizations()) == 0 || len(setting.authorizations()) == 0 {
		t.Fatalf("requests: operator's %d, setting's %d", len(flag.authorizations()), len(setting.authorizations()))
	}
}

// TestPoolBadURL: a bad operator URL is an error; a bad URL in a setting
// is a registry with no serviceId hints that says why.
func TestPoolBadURL(t *testing.T) {
	if _, err := remote.NewPool(remote.PoolOptions{URL: "not a url"}); err == nil {
		t.Error("NewPool accepted a bad URL")
	}
	p, _ := remote.NewPool(remote.PoolOptions{})
	reg := p.Load(config.Sources{RegistryURL: "ftp://x"}).For(config.ScriptService)
	if reg.Loaded || len(reg.Diagnostics) != 1 || reg.Diagnostics[0].Code != remote.CodeUnreachable {
		t.Fatalf("loaded %v, diagnostics %v", reg.Loaded, reg.Diagnostics)
	}
}

// TestPoolRun: the refresh loop calls onChange when a backend's answer
// changes, and returns when ctx ends.
func TestPoolRun(t *testing.T) {
	b := newHintsBackend(t, "before")
	p, _ := remote.NewPool(remote.PoolOptions{URL: b.URL, Logger: zaptest.NewLogger(t)})
	p.Load(config.Sources{RegistryURL: b.URL})
	changed := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Run(ctx, 5*time.Millisecond, func() {
			select {
			case changed <- struct{}{}:
			default:
			}
		})
	}()
	// Unchanged answers: no onChange over the requests of the first Load
	// and of two refreshes.
	for n := 0; n < 3*len(config.Kinds); {
		select {
		case <-changed:
			t.Fatal("onChange while the backend answers the same")
		case <-b.seen:
			n++
		}
	}
	b.id.Store("after")
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no onChange after the backend's answer changed")
	}
	if got := ids(p.Load(config.Sources{RegistryURL: b.URL})); len(got) != 1 || got[0] != "after" {
		t.Errorf("after the change: %v", got)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after ctx ended")
	}
}
