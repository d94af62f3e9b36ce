package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/lsp"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// sessionLimitNote waits for the session-limit diagnostic of uri and
// returns its message.
func sessionLimitNote(t *testing.T, ctx context.Context, c *lspClient, uri string) string {
	t.Helper()
	n, err := c.waitNote(ctx, func(n note) bool {
		return n.method == "textDocument/publishDiagnostics" && strings.Contains(string(n.params), uri) &&
			strings.Contains(string(n.params), lsp.CodeSessionLimit)
	})
	if err != nil {
		t.Fatalf("no session-limit diagnostic for %s: %v", uri, err)
	}
	var p struct {
		Diagnostics []struct{ Message string }
	}
	_ = json.Unmarshal(n.params, &p)
	if len(p.Diagnostics) != 1 {
		t.Fatalf("diagnostics %s", n.params)
	}
	return p.Diagnostics[0].Message
}

// Issue 23, finding 13: one socket without the key opening 150 documents
// of 15 MB took the server to 2.1 GiB. A session keeps at most
// SessionDocuments documents and SessionBytes of text; past either, the
// document gets a diagnostic naming the limit and the flag that raises it.
func TestSessionBudgets(t *testing.T) {
	t.Parallel()
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.SessionDocuments = 3
		o.SessionBytes = 1 << 20
	})
	ctx := testCtx(t)
	c, err := dialLSP(t, ctx, wsURL(hs), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	if err := c.open(ctx, "file:///d/0.js", "return 1;"); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if err := c.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": fmt.Sprintf("file:///d/%d.js", i), "languageId": "javascript", "version": 1, "text": "return 1;"}}); err != nil {
			t.Fatal(err)
		}
	}
	msg := sessionLimitNote(t, ctx, c, "file:///d/3.js")
	if want := "this session already has 3 documents open, its limit, so restls does not check this one: close some documents and open it again; " +
		"to allow more, start restls serve --http with --session-documents N or --session-bytes SIZE"; msg != want {
		t.Errorf("message %q\nwant %q", msg, want)
	}
	// Closing one makes room again; a change past the bytes drops it.
	_ = c.conn.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": "file:///d/0.js"}})
	_ = c.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": "file:///d/big.js", "languageId": "javascript", "version": 1, "text": "return 1;"}})
	_ = c.conn.Notify(ctx, "textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": "file:///d/big.js", "version": 2},
		"contentChanges": []any{map[string]any{"text": "//" + strings.Repeat("x", 1<<20)}}})
	msg = sessionLimitNote(t, ctx, c, "file:///d/big.js")
	if !strings.HasPrefix(msg, "the documents open in this session would hold 1.0 MiB of text, past its limit of 1.0 MiB") {
		t.Errorf("message %q", msg)
	}
	var h json.RawMessage
	if err := c.call(ctx, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": "file:///d/1.js"},
		"position": map[string]any{"line": 0, "character": 1}}, &h); err != nil {
		t.Fatalf("hover after the refusals: %v", err)
	}
}

// The bound holds in memory: 40 documents of 4 MiB (160 MiB) sent on one
// socket leave the server holding about the session's 64 MiB.
func TestSessionBytesBoundMemory(t *testing.T) {
	// Not in parallel: it measures this process's memory, which tests beside it would add to.
	_, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, nil)
	ctx := testCtx(t)
	c, err := dialLSP(t, ctx, wsURL(hs), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	if err := c.open(ctx, "file:///d/first.js", "return 1;"); err != nil {
		t.Fatal(err)
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	text := "//" + strings.Repeat("x", 4<<20)
	const n = 40
	for i := range n {
		if err := c.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": fmt.Sprintf("file:///d/%d.js", i), "languageId": "javascript", "version": 1, "text": text}}); err != nil {
			t.Fatal(err)
		}
	}
	sessionLimitNote(t, ctx, c, fmt.Sprintf("file:///d/%d.js", n-1))
	grew := int64(heap()) - int64(before)
	t.Logf("heap grew by %d MiB for %d MiB sent", grew>>20, n*4)
	if limit := int64(DefaultSessionBytes + 40<<20); grew > limit {
		t.Errorf("heap grew by %d MiB, want under %d MiB", grew>>20, limit>>20)
	}
}

// Issue 23, findings 2 and 12: four 800 KB documents of "()=>" sent over
// /lsp, then the socket closed: the server went on parsing (70 CPU-seconds
// and climbing) and the session stayed counted as open. Now the session
// ends, its slot is free, and the process stops spending CPU.
func TestClosedSessionStopsWorking(t *testing.T) {
	// Not in parallel: it measures this process's CPU time, which tests beside it would add to.
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, nil)
	var ends sync.WaitGroup
	ends.Add(1)
	s.endHook = func(error) { ends.Done() }
	ctx := testCtx(t)
	c, err := dialLSP(t, ctx, wsURL(hs), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The worker diagnoses what changed in URI order: a.js, then the
	// four b*.js. Once a.js's second version is published, the worker
	// goes straight on to the first of them.
	if err := c.open(ctx, "file:///d/a.js", "return 1;"); err != nil {
		t.Fatal(err)
	}
	published := func(version int) func(note) bool {
		return func(n note) bool {
			return n.method == "textDocument/publishDiagnostics" && strings.Contains(string(n.params), "file:///d/a.js") &&
				strings.Contains(string(n.params), fmt.Sprintf(`"version":%d`, version))
		}
	}
	if _, err := c.waitNote(ctx, published(1)); err != nil {
		t.Fatal(err)
	}
	bomb := strings.Repeat("()=>", 200000) + "1"
	for i := range 4 {
		_ = c.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": fmt.Sprintf("file:///d/b%d.js", i), "languageId": "javascript", "version": 1, "text": bomb}})
	}
	_ = c.conn.Notify(ctx, "textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": "file:///d/a.js", "version": 2},
		"contentChanges": []any{map[string]any{"text": "return 2;"}}})
	go func() {
		var h json.RawMessage
		_ = c.call(ctx, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": "file:///d/b3.js"},
			"position": map[string]any{"line": 0, "character": 5}}, &h)
	}()
	if _, err := c.waitNote(ctx, published(2)); err != nil {
		t.Fatal(err)
	}
	c.close()
	cpu0, ok := processCPU()
	done := make(chan struct{})
	go func() { ends.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the session was still open 20 s after its socket closed")
	}
	if n := len(s.slots); n != 0 {
		t.Errorf("%d sessions still counted as open", n)
	}
	if !ok {
		return
	}
	time.Sleep(time.Second) // nothing of the session may run meanwhile
	cpu1, _ := processCPU()
	t.Logf("CPU from close to a second after the session ended: %v", cpu1-cpu0)
	if cpu1-cpu0 > 3*time.Second {
		t.Errorf("the process spent %v of CPU after the socket closed", cpu1-cpu0)
	}
	if res, body := get(t, hs.URL+"/healthz", nil); res.StatusCode != http.StatusOK {
		t.Errorf("healthz %d %s", res.StatusCode, body)
	}
}

// Issue 23, finding 4: six concurrent 4 MB pasted mocks took the server to
// 1 GiB before the 429s, since each was parsed before --max-runs applied.
// Now a run is admitted before its body is read: with both runs taken,
// the large requests get 429 and the server's heap stays flat.
func TestRunAdmittedBeforeTheMockIsParsed(t *testing.T) {
	// Not in parallel: it measures this process's memory, which tests beside it would add to.
	release := make(chan struct{})
	started := make(chan struct{}, 2)
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		// The engine's one limit: two runs at once, then busy; the held
		// runs use the slots handleRun took for them.
		eng := engine.New(engine.Options{Isolation: engine.InProcess, MaxRuns: 2})
		o.Admit = eng.Admit
		o.Runner = func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
			if req.Slot == nil {
				return nil, workspace.ErrRunnerBusy
			}
			started <- struct{}{}
			<-release
			return &dryrun.Result{Result: json.RawMessage(`1`)}, nil
		}
	})
	key := map[string]string{"Authorization": "Bearer " + s.key}
	var held sync.WaitGroup
	for range 2 {
		held.Go(func() {
			if res, body := post(t, hs.URL+"/v1/run", `{"text":"return 1"}`, key); res.StatusCode != http.StatusOK {
				t.Errorf("held run: %d %s", res.StatusCode, body)
			}
		})
	}
	<-started
	<-started
	defer func() { close(release); held.Wait() }()

	// 2 MB of YAML: a node per two bytes, which costs the decoder some
	// hundred bytes each.
	var b strings.Builder
	b.WriteString("fixtures:\n  - serviceId: crm-customers\n    method: GET\n    body: [1")
	b.WriteString(strings.Repeat(",1", 1<<20))
	b.WriteString("]\n")
	big, _ := json.Marshal(map[string]any{"text": "return 1", "mock": b.String()})
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	var peak uint64
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range 6 {
		wg.Go(func() {
			res, body := post(t, hs.URL+"/v1/run", string(big), key)
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			mu.Lock()
			peak = max(peak, m.HeapAlloc)
			mu.Unlock()
			if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" || !strings.Contains(body, "--max-runs") {
				t.Errorf("large mock while busy: %d (Retry-After %q) %s", res.StatusCode, res.Header.Get("Retry-After"), body)
			}
		})
	}
	wg.Wait()
	grew := int64(peak) - int64(before)
	t.Logf("heap peak grew by %d MiB over six 2 MB requests", grew>>20)
	if limit := int64(64 << 20); grew > limit {
		t.Errorf("heap grew by %d MiB, want under %d MiB", grew>>20, limit>>20)
	}
}
