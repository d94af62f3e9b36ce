package workspace

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace/index"
)

// The project index (package workspace/index) behind references, rename,
// symbols, code lens, service-unused and the MCP server's references
// tool. The Session holds one per project root and registry, shared by
// every surface that asks for that root; the surface that makes one
// builds it (Build, in its own background work), and each brings it
// current before reading: the registry's snapshot and the open texts
// (BringCurrent), the files that changed (FilesChanged, Poll).

// projectIndexes are a session's project indexes.
type projectIndexes struct {
	mu sync.Mutex
	m  map[indexKey]*ProjectIndex
}

type indexKey struct {
	root string
	reg  *Registry
}

// ProjectIndex is one project index and what it was last brought up to.
type ProjectIndex struct {
	s     *Session
	key   indexKey
	ix    *index.Index
	ready chan struct{} // closed once the first build is done

	mu       sync.Mutex
	snap     *config.Snapshot    // whose entries the index holds
	buffers  map[string]struct{} // scripts whose text is an open text
	lastPoll time.Time
	walkSaid bool // the walk's stop (index.WalkStop) was said
	// memo holds what a surface derived from the configuration files
	// of the snapshot in force (Memo).
	memo map[string]any
}

// indexBuildTimeout bounds the build of one index.
const indexBuildTimeout = 2 * time.Minute

// ProjectIndex returns the index of root (absolute) under reg, and
// whether it is new: the caller then builds it (Build), in its background
// work, while others wait for Ready. kinds decide the scripts' kinds of a
// new index.
func (s *Session) ProjectIndex(root string, reg *Registry, kinds config.KindMap) (pi *ProjectIndex, isNew bool, err error) {
	n := &s.indexes
	n.mu.Lock()
	defer n.mu.Unlock()
	key := indexKey{filepath.Clean(root), reg}
	if pi := n.m[key]; pi != nil {
		return pi, false, nil
	}
	ix, err := index.New(index.Options{Root: key.root, Kinds: kinds, Workers: max(1, runtime.GOMAXPROCS(0)-1), MaxBytes: s.opts.IndexMaxBytes,
		MockSuffixes: MockSuffixes, TestSuffix: TestFileSuffix})
	if err != nil {
		return nil, false, err
	}
	pi = &ProjectIndex{s: s, key: key, ix: ix, ready: make(chan struct{}), buffers: map[string]struct{}{}}
	if n.m == nil {
		n.m = map[indexKey]*ProjectIndex{}
	}
	n.m[key] = pi
	return pi, true, nil
}

// Build builds a new index (once, by the caller ProjectIndex said it was
// new to) and applies the registry's snapshot. An index whose build
// failed or ended with ctx is still read, as far as it got, by those
// holding it; the next ProjectIndex makes another.
func (pi *ProjectIndex) Build(ctx context.Context) error {
	defer close(pi.ready)
	snap := pi.key.reg.Get() // after the registry's first load
	pi.mu.Lock()
	pi.lastPoll = time.Now() // the build's walk is as current as a poll's
	pi.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, indexBuildTimeout)
	defer cancel()
	err := pi.ix.Build(ctx)
	if err != nil {
		n := &pi.s.indexes
		n.mu.Lock()
		if n.m[pi.key] == pi {
			delete(n.m, pi.key)
		}
		n.mu.Unlock()
	}
	pi.mu.Lock()
	pi.ix.SetConfig(snap)
	pi.snap = snap
	pi.mu.Unlock()
	return err
}

// Ready is closed once the first build is done.
func (pi *ProjectIndex) Ready() <-chan struct{} { return pi.ready }

// Index is the index itself, for reading.
func (pi *ProjectIndex) Index() *index.Index { return pi.ix }

// ProjectTest is a test file of the project and the script its script:
// names (index.TestFile).
type ProjectTest = index.TestFile

// Tests returns the test files the index holds, sorted by path
// (index.Index.Tests): restls test's, found without a walk.
func (pi *ProjectIndex) Tests() []ProjectTest { return pi.ix.Tests() }

// Wait waits for the first build; false when ctx ended first.
func (pi *ProjectIndex) Wait(ctx context.Context) bool {
	select {
	case <-pi.ready:
		return true
	case <-ctx.Done():
		return false
	}
}

// BringCurrent applies the registry's snapshot and the open texts (path
// to text; the session's overlay under the root, with a surface's own
// documents over it) to a built index: a script open before and not now
// is read from its file again.
func (pi *ProjectIndex) BringCurrent(open map[string]string) {
	snap := pi.key.reg.Get()
	pi.mu.Lock()
	defer pi.mu.Unlock()
	if snap != pi.snap {
		pi.ix.SetConfig(snap)
		pi.snap = snap
		pi.memo = nil
	}
	for p, text := range open {
		if pi.ix.SetDocument(p, text) || pi.ix.Script(p) != nil {
			pi.buffers[p] = struct{}{}
		}
	}
	for p := range pi.buffers {
		if _, ok := open[p]; !ok {
			delete(pi.buffers, p)
			pi.ix.Update(p) // closed: back to the file
		}
	}
}

// Memo returns what make derived from the configuration file at path for
// the snapshot in force, made once per snapshot (an application.yml of
// 10,000 services is not read again for every request). make runs
// without the index's lock.
func (pi *ProjectIndex) Memo(path string, make func() any) any {
	pi.mu.Lock()
	v, ok := pi.memo[path]
	snap := pi.snap
	pi.mu.Unlock()
	if ok {
		return v
	}
	v = make()
	pi.mu.Lock()
	if pi.snap == snap {
		if pi.memo == nil {
			pi.memo = map[string]any{}
		}
		pi.memo[path] = v
	}
	pi.mu.Unlock()
	return v
}

// FilesChanged updates every built index holding one of paths (a client's
// workspace/didChangeWatchedFiles; an open text stays), and reports
// whether one changed.
func (s *Session) FilesChanged(paths []string) bool {
	s.indexes.mu.Lock()
	list := make([]*ProjectIndex, 0, len(s.indexes.m))
	for _, pi := range s.indexes.m {
		list = append(list, pi)
	}
	s.indexes.mu.Unlock()
	changed := false
	for _, pi := range list {
		select {
		case <-pi.ready:
		default:
			continue // the build reads the files anyway
		}
		root := pi.ix.Root() + string(filepath.Separator)
		for _, p := range paths {
			if p = filepath.Clean(p); strings.HasPrefix(p, root) {
				pi.mu.Lock()
				if _, open := pi.buffers[p]; !open && pi.ix.Update(p) {
					changed = true
				}
				pi.mu.Unlock()
			}
		}
	}
	return changed
}

// Poll brings a built index current with the disk, at most once per
// every (every surface polling the index shares the interval), and
// reports whether a script changed.
func (pi *ProjectIndex) Poll(every time.Duration) bool {
	select {
	case <-pi.ready:
	default:
		return false
	}
	pi.mu.Lock()
	due := time.Since(pi.lastPoll) >= every
	if due {
		pi.lastPoll = time.Now()
	}
	pi.mu.Unlock()
	return due && pi.ix.Poll()
}

// WalkStopMessage is LeftOutMessage the first time a walk of the index
// (its Build, Poll or Update) is found stopped at input's walk bounds,
// "" before and after: the surfaces say it once.
func (pi *ProjectIndex) WalkStopMessage() string {
	if pi.ix.WalkStop() == nil {
		return ""
	}
	pi.mu.Lock()
	said := pi.walkSaid
	pi.walkSaid = true
	pi.mu.Unlock()
	if said {
		return ""
	}
	return pi.LeftOutMessage()
}

// LeftOutMessage says which scripts the index left out, for the user:
// what navigation will not see and why; "" when none was. Once it has
// said where a walk stopped, WalkStopMessage does not again.
func (pi *ProjectIndex) LeftOutMessage() string {
	ix, root := pi.ix, pi.key.root
	n, first := ix.LeftOut(3)
	held, truncated := ix.Len()
	var parts []string
	if stop := ix.WalkStop(); stop != nil {
		pi.mu.Lock()
		pi.walkSaid = true
		pi.mu.Unlock()
		parts = append(parts, fmt.Sprintf("what is past where its walk stopped (%v)", stop))
	}
	if n > 0 {
		budget := pi.s.opts.IndexMaxBytes
		if budget <= 0 {
			budget = index.DefaultMaxBytes
		}
		list := strings.Join(first, ", ")
		if n > len(first) {
			list += fmt.Sprintf(" and %d more", n-len(first))
		}
		size := fmt.Sprintf("%d MiB", budget>>20)
		if budget < 1<<20 {
			size = fmt.Sprintf("%d bytes", budget)
		}
		what := "scripts"
		if n == 1 {
			what = "script"
		}
		parts = append(parts, fmt.Sprintf("%d %s past the index's %s (%s)", n, what, size, list))
	}
	if truncated {
		parts = append(parts, fmt.Sprintf("the scripts past the first %d found", held))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("restls: the project index of %s left out %s: references, rename, code lens and service-unused do not see them. "+
		"Move generated or vendored scripts into node_modules or a directory whose name starts with \".\", which are not indexed.",
		root, strings.Join(parts, " and "))
}
