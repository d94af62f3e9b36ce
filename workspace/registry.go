package workspace

import (
	"os"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/restls/restls/config"
)

// Registry is one set of configuration sources with its current snapshot.
// The snapshot is immutable and swapped atomically on reload, so a request
// reads it once and never sees a half-built registry. The first load happens
// on first use, not at construction, so starting the server costs nothing.
type Registry struct {
	sources config.Sources
	load    func(config.Sources) *config.Snapshot
	log     *zap.Logger // never nil

	snap atomic.Pointer[config.Snapshot]

	mu     sync.Mutex // serialises loads and guards stamps
	stamps map[string]fileStamp
}

// fileStamp is what the polling watcher compares: a file that appears,
// disappears, or changes size or modification time is a change.
type fileStamp struct {
	exists bool
	size   int64
	mtime  time.Time
}

// NewRegistry returns the registry of src, read with load (nil:
// config.Load) and logged to log (nil: nowhere). Nothing is read until
// the first Get.
func NewRegistry(src config.Sources, load func(config.Sources) *config.Snapshot, log *zap.Logger) *Registry {
	if load == nil {
		load = config.Load
	}
	if log == nil {
		log = zap.NewNop()
	}
	return &Registry{sources: src, load: load, log: log}
}

// Sources are the configuration sources the registry reads.
func (r *Registry) Sources() config.Sources { return r.sources }

// Get returns the current snapshot, loading it the first time.
func (r *Registry) Get() *config.Snapshot {
	if s := r.snap.Load(); s != nil {
		return s
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s := r.snap.Load(); s != nil {
		return s
	}
	return r.reloadLocked()
}

// Reload reads every source again and swaps the snapshot in.
func (r *Registry) Reload() *config.Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reloadLocked()
}

func (r *Registry) reloadLocked() *config.Snapshot {
	// Stamp before loading: a write that lands during the load is seen as a
	// change on the next poll instead of being lost.
	r.stamps = stampFiles(r.sources.Files())
	start := time.Now()
	s := r.load(r.sources)
	r.snap.Store(s)
	if ce := r.log.Check(zap.DebugLevel, "configuration loaded"); ce != nil {
		ce.Write(zap.Int("scriptServiceIds", s.For(config.ScriptService).Len()), zap.Int("scriptTaskIds", s.For(config.ScriptTask).Len()),
			zap.Int("diagnostics", len(s.Diagnostics())), zap.Duration("took", time.Since(start)))
	}
	return s
}

// ReloadIfChanged reloads when a configuration file differs from when the
// snapshot was loaded, and reports whether it did. Check and reload happen
// under one lock, so sessions polling the same files reload once.
func (r *Registry) ReloadIfChanged() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.changedLocked() {
		return false
	}
	r.reloadLocked()
	return true
}

func (r *Registry) changedLocked() bool {
	if r.stamps == nil {
		return false // never loaded: nothing to compare
	}
	now := stampFiles(r.sources.Files())
	if len(now) != len(r.stamps) {
		return true
	}
	for f, st := range now {
		if r.stamps[f] != st {
			return true
		}
	}
	return false
}

// Files lists the configuration files this registry reads or looks for.
func (r *Registry) Files() []string { return r.sources.Files() }

func stampFiles(files []string) map[string]fileStamp {
	m := make(map[string]fileStamp, len(files))
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			m[f] = fileStamp{}
			continue
		}
		m[f] = fileStamp{exists: true, size: fi.Size(), mtime: fi.ModTime()}
	}
	return m
}
