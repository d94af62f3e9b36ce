package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/runtime/isolate"
)

// Scripts that allocate without bound, each a different way (issue 13,
// finding 5: the first reached 4.2 GB in 20 s).
var memoryBombs = map[string]string{
	"string-doubling": `var s="x";while(true)s=s+s`,
	"array-push":      `var a=[];while(true)a.push({i:a.length,s:"abc"+a.length})`,
	"object-keys":     `var o={};var i=0;while(true){o["k"+i]=[i,i+1,i+2];i++}`,
}

// isolateRoot is a configuration with one service at url.
func isolateRoot(t *testing.T, url string) string {
	t.Helper()
	root := t.TempDir()
	yml := "scriptservice:\n  api:\n    - serviceId: slow\n      url: " + url + "\n"
	if err := os.WriteFile(filepath.Join(root, "application.yml"), []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// runResult is the part of `restls run --json` these tests read.
type runResult struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Name    string `json:"name"`
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// maxRSS is the peak resident memory of an ended command and of every
// descendant it waited for, in bytes.
func maxRSS(t *testing.T, st *os.ProcessState) int64 {
	rss, ok := peakRSS(st)
	if !ok {
		t.Skip("no rusage on this platform")
	}
	return rss
}

// TestRunMaxMemory: through the real binary, each bomb ends within a few
// seconds with memory-limit and exit 1, and the run's processes never hold
// more than the limit plus restls's own allowance and what a script can
// add between two samples of the supervisor. Samples are 5 ms apart, but
// on a loaded 2-core machine (make test runs packages side by side) one
// was seen 25 MiB late in a string doubling; 64 MiB keeps the test about
// the bound, not the scheduler. The limit is 96 MiB, not the 256 it was:
// the bound is checked the same, and each bomb allocates (and the test,
// alone, waits for) a third of it.
func TestRunMaxMemory(t *testing.T) {
	// Not in parallel: it bounds the wall time, which tests beside it would stretch.
	const limit = 96 << 20
	root := isolateRoot(t, "http://127.0.0.1:1")
	// The baseline: a run that allocates nothing.
	cmd := restlsCommand(t, "run", "--json", "--config-root", root, "-")
	cmd.Stdin = strings.NewReader("return 1")
	if out, err := cmd.Output(); err != nil || !bytes.Contains(out, []byte(`"result": 1`)) {
		t.Fatalf("plain run: %v %s", err, out)
	}
	t.Logf("baseline peak RSS %d MiB", maxRSS(t, cmd.ProcessState)>>20)
	for name, script := range memoryBombs {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := restlsCommand(t, "run", "--json", "--max-memory", "96MiB", "--config-root", root, "-")
			cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(script), &stdout, &stderr
			start := time.Now()
			err := cmd.Run()
			took := time.Since(start)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("exit %v, want 1; stderr:\n%s", err, stderr.String())
			}
			var res runResult
			if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || res.Error == nil || res.Error.Code != "memory-limit" {
				t.Fatalf("stdout is not one object with error code memory-limit (%v):\n%s", err, stdout.String())
			}
			peak := maxRSS(t, cmd.ProcessState)
			t.Logf("%s: stopped after %v, peak RSS %d MiB", name, took.Round(time.Millisecond), peak>>20)
			if max := int64(limit + isolate.Allowance + 64<<20); peak > max {
				t.Errorf("peak RSS %d MiB, want at most %d MiB", peak>>20, max>>20)
			}
			if took > 15*time.Second {
				t.Errorf("took %v to stop", took)
			}
		})
	}
}

// blockingService answers every request only once release is closed (or
// the request ends), and says on arrived when one came in.
func blockingService(t *testing.T) (url string, arrived <-chan struct{}, release func()) {
	t.Helper()
	in := make(chan struct{}, 16)
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in <- struct{}{}
		select {
		case <-done:
		case <-r.Context().Done():
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok":true}`)
	}))
	var once sync.Once
	release = func() { once.Do(func() { close(done) }) }
	t.Cleanup(func() { release(); srv.Close() })
	return srv.URL, in, release
}

// children lists the processes whose parent is pid (zombies included).
func children(t *testing.T, pid int) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	var out []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, n)
		}
	}
	return out
}

// waitNoChildren waits until pid has no child process left.
func waitNoChildren(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(children(t, pid)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("processes %v are still children of the server", children(t, pid))
		}
		time.Sleep(10 * time.Millisecond) // polling /proc: there is no event for another process's end
	}
}

func postRun(ctx context.Context, t *testing.T, base, script string) (*http.Response, runResult) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"text": script})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/run", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer isolate-test")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, runResult{}
		}
		t.Errorf("POST /v1/run: %v", err)
		return nil, runResult{}
	}
	defer res.Body.Close()
	var out runResult
	if res.StatusCode == http.StatusOK {
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
			t.Errorf("POST /v1/run answered 200 with %v", err)
		}
	}
	return res, out
}

// TestServeHTTPRunIsolated: over HTTP, a memory bomb becomes an error
// result and the server stays up; a third run while two go is answered 429
// with Retry-After; a run whose client went away leaves no process behind.
func TestServeHTTPRunIsolated(t *testing.T) {
	t.Parallel()
	url, arrived, release := blockingService(t)
	root := isolateRoot(t, url)
	p := startHTTP(t, nil, "--config-root", root, "--allow-run", "--token", "isolate-test",
		"--max-memory", "128MiB", "--max-runs", "2")
	ctx := context.Background()

	res, out := postRun(ctx, t, p.base, memoryBombs["string-doubling"])
	if res == nil || res.StatusCode != 200 || out.Error == nil || out.Error.Code != "memory-limit" {
		t.Fatalf("memory bomb: %v %+v\n%s", res, out.Error, p.stderr.String())
	}
	req, _ := http.NewRequest(http.MethodGet, p.base+"/healthz", nil)
	req.Header.Set("Authorization", "Bearer isolate-test")
	if h, err := http.DefaultClient.Do(req); err != nil || h.StatusCode != 200 {
		t.Fatalf("/healthz after the memory bomb: %v %v", h, err)
	}

	// Two runs wait on the service; a third is refused.
	slow := `var r = api.rest.v1.get("slow", {}, {}); return r.body.ok;`
	var wg sync.WaitGroup
	results := make(chan runResult, 2)
	for range 2 {
		wg.Go(func() {
			if _, out := postRun(ctx, t, p.base, slow); out.Error == nil {
				results <- out
			} else {
				t.Errorf("slow run: %+v", out.Error)
			}
		})
	}
	<-arrived
	<-arrived
	res, _ = postRun(ctx, t, p.base, slow)
	if res == nil || res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Fatalf("third run = %v, want 429 with Retry-After", res)
	}
	release()
	wg.Wait()
	close(results)
	for out := range results {
		if string(out.Result) != "true" {
			t.Errorf("slow run result %s", out.Result)
		}
	}

	// A run that never ends: the client goes away, its process must go too.
	cctx, cancel := context.WithCancel(ctx)
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		postRun(cctx, t, p.base, `while(true){}`)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(children(t, p.pid)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the run's process never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-gone
	waitNoChildren(t, p.pid)
}

// TestServeRunScriptBusy: over stdio, restls.runScript while --max-runs
// runs already go answers a JSON-RPC error saying runs are busy.
func TestServeRunScriptBusy(t *testing.T) {
	t.Parallel()
	url, arrived, release := blockingService(t)
	root := isolateRoot(t, url)
	p := startServe(t, nil, "--config-root", root, "--max-runs", "1")
	var init protocol.InitializeResult
	if err := p.call(t, protocol.MethodInitialize, &protocol.InitializeParams{}, &init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	_ = p.conn.Notify(context.Background(), protocol.MethodInitialized, &protocol.InitializedParams{})
	u := uri.File("/ws/slow.js")
	_ = p.conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "javascript", Version: 1,
			Text: `var r = api.rest.v1.get("slow", {}, {}); return context.input.n;`},
	})
	run := func(n int) (runResult, error) {
		arg, _ := json.Marshal(map[string]any{"uri": string(u), "input": map[string]int{"n": n}})
		var out runResult
		err := p.call(t, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: "restls.runScript", Arguments: []protocol.LSPAny{arg}}, &out)
		return out, err
	}
	first := make(chan runResult, 1)
	go func() {
		out, err := run(1)
		if err != nil {
			t.Errorf("first run: %v", err)
		}
		first <- out
	}()
	<-arrived
	_, err := run(2)
	var je *jsonrpc2.Error
	if !errors.As(err, &je) || je.Code != -32803 || !strings.Contains(je.Message, "busy") {
		t.Fatalf("second run = %v, want RequestFailed saying runs are busy", err)
	}
	release()
	// context.input reached the child (in its request, not the command line).
	if out := <-first; string(out.Result) != "1" {
		t.Errorf("first run result %s error %+v", out.Result, out.Error)
	}
}

// TestServeShutdownStopsRuns: on SIGTERM a run still going when the
// grace period is over (issue 29: runs get it to finish) is stopped, its
// process killed, and the client hears why.
func TestServeShutdownStopsRuns(t *testing.T) {
	t.Parallel()
	root := isolateRoot(t, "http://127.0.0.1:1")
	p := startHTTP(t, nil, "--config-root", root, "--allow-run", "--token", "isolate-test", "--shutdown-grace", "1s")
	type answer struct {
		code int
		body string
	}
	answered := make(chan answer, 1)
	go func() {
		body, _ := json.Marshal(map[string]any{"text": `while(true){}`})
		req, _ := http.NewRequest(http.MethodPost, p.base+"/v1/run", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer isolate-test")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- answer{body: err.Error()}
			return
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		answered <- answer{res.StatusCode, string(b)}
	}()
	deadline := time.Now().Add(10 * time.Second)
	var kids []int
	for kids = children(t, p.pid); len(kids) == 0; kids = children(t, p.pid) {
		if time.Now().After(deadline) {
			t.Fatal("the run's process never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.kill(syscall.SIGTERM)
	select {
	case a := <-answered:
		if a.code != http.StatusUnprocessableEntity || !strings.Contains(a.body, "shutdown grace period") {
			t.Errorf("answer %d %s", a.code, a.body)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no answer: the run outlived the shutdown")
	}
	if err := <-p.wait; err != nil {
		t.Errorf("serve: %v", err)
	}
	for _, k := range kids {
		if _, err := os.Stat("/proc/" + strconv.Itoa(k)); err == nil {
			t.Errorf("run process %d outlived the server", k)
		}
	}
}
