package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/internal/lsptest"
)

// The end-to-end benchmarks run the real restls serve as a child process
// and talk to it over its stdin/stdout pipes, like an editor.

func benchConfig(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	p := filepath.Join(dir, "script-code-config", "script-service-api.xml")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(lsptest.ServiceXML(n)), 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// diagWaiter is a client handler that signals each publishDiagnostics.
type diagWaiter struct {
	mu   sync.Mutex
	seen map[uri.URI]bool
	ch   chan struct{}
}

func newDiagWaiter() *diagWaiter {
	return &diagWaiter{seen: map[uri.URI]bool{}, ch: make(chan struct{}, 1)}
}

func (w *diagWaiter) handle(_ context.Context, req *jsonrpc2.Request) (any, error) {
	if req.Method() == protocol.MethodTextDocumentPublishDiagnostics {
		var p protocol.PublishDiagnosticsParams
		if protocol.Unmarshal(req.Params(), &p) == nil {
			w.mu.Lock()
			w.seen[p.URI] = true
			w.mu.Unlock()
			select {
			case w.ch <- struct{}{}:
			default:
			}
		}
	}
	return nil, nil
}

func (w *diagWaiter) wait(b *testing.B, n int) {
	deadline := time.After(2 * time.Minute)
	for {
		w.mu.Lock()
		got := len(w.seen)
		w.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-w.ch:
		case <-deadline:
			b.Fatalf("diagnostics for %d of %d documents", got, n)
		}
	}
}

// initialize announces VS Code's completion capabilities: snippets,
// documentation through resolve, item defaults.
func initialize(b *testing.B, p *serverProcess) {
	b.Helper()
	yes := true
	caps := protocol.ClientCapabilities{TextDocument: &protocol.TextDocumentClientCapabilities{
		Completion: &protocol.CompletionClientCapabilities{
			CompletionItem: &protocol.ClientCompletionItemOptions{
				SnippetSupport: &yes,
				ResolveSupport: protocol.ClientCompletionItemResolveOptions{Properties: []string{"documentation", "detail"}},
			},
			CompletionList: &protocol.CompletionListCapabilities{ItemDefaults: []string{"editRange", "data"}},
		},
	}}
	if err := p.call(b, protocol.MethodInitialize, &protocol.InitializeParams{Capabilities: caps}, nil); err != nil {
		b.Fatal(err)
	}
	_ = p.conn.Notify(context.Background(), protocol.MethodInitialized, &protocol.InitializedParams{})
}

func open(p *serverProcess, u uri.URI, text string) {
	_ = p.conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "javascript", Version: 1, Text: text},
	})
}

func completionParams(u uri.URI, pos protocol.Position) *protocol.CompletionParams {
	return &protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos,
	}}
}

// BenchmarkServeStdio measures round trips over the real process's stdio:
// completion inside the serviceId of a 10,000-line script with 10,000
// services, against a trivial request (hover on a one-line document) on the
// same connection. A round trip ends when the response has arrived; the
// result is kept raw so the test client's own decoding is not counted.
func BenchmarkServeStdio(b *testing.B) {
	root := benchConfig(b, 10000)
	w := newDiagWaiter()
	p := startServe(b, w.handle, "--config-root", root, "--log-level", "warn")
	initialize(b, p)
	text, pos := lsptest.BigScript(10000)
	big, small := uri.File("/ws/big.js"), uri.File("/ws/small.js")
	open(p, big, text)
	open(p, small, "var x = 1; // nothing to hover\n")
	// Steady state: the first diagnostics (a 100 ms parse) are done.
	w.wait(b, 2)
	// Warm up: the registry loads on first use.
	var l protocol.CompletionList
	if err := p.call(b, protocol.MethodTextDocumentCompletion, completionParams(big, pos), &l); err != nil || len(l.Items) == 0 {
		b.Fatalf("completion: %v, %d items", err, len(l.Items))
	}
	b.Run("completion", func(b *testing.B) {
		var ds []time.Duration
		for b.Loop() {
			start := time.Now()
			var raw jsonrpc2.RawMessage
			if err := p.call(b, protocol.MethodTextDocumentCompletion, completionParams(big, pos), &raw); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(start))
			b.ReportMetric(float64(len(raw)), "bytes")
		}
		lsptest.ReportPercentiles(b, "", ds)
	})
	b.Run("trivial", func(b *testing.B) {
		var ds []time.Duration
		hp := &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: small}, Position: protocol.Position{Line: 0, Character: 20},
		}}
		for b.Loop() {
			start := time.Now()
			var raw jsonrpc2.RawMessage
			if err := p.call(b, protocol.MethodTextDocumentHover, hp, &raw); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(start))
		}
		lsptest.ReportPercentiles(b, "", ds)
	})
}

// BenchmarkServeInitializeToFirstCompletion measures, on a fresh process
// that is up, the time from sending initialize to receiving the first
// completion in a 10,000-line script with 10,000 services: the registry
// load, the 1 MB didOpen and the completion are inside this window.
func BenchmarkServeInitializeToFirstCompletion(b *testing.B) {
	initializeToFirstCompletion(b, "--config-root", benchConfig(b, 10000))
}

// initializeToFirstCompletion is the loop of the initialize-to-first-
// completion benchmarks: restls serve started with args (--log-level warn
// added) for each iteration.
func initializeToFirstCompletion(b *testing.B, args ...string) {
	text, pos := lsptest.BigScript(10000)
	u := uri.File("/ws/big.js")
	var ds []time.Duration
	for b.Loop() {
		b.StopTimer()
		p := startServe(b, nil, append([]string{"--log-level", "warn"}, args...)...)
		// Wait until the process is up (a request before initialize is
		// answered with ServerNotInitialized), so process start-up is not
		// counted; the registry is loaded only from initialize on.
		if err := p.call(b, protocol.MethodShutdown, nil, nil); err == nil {
			b.Fatal("shutdown before initialize was accepted")
		}
		b.StartTimer()
		start := time.Now()
		initialize(b, p)
		open(p, u, text)
		var l protocol.CompletionList
		if err := p.call(b, protocol.MethodTextDocumentCompletion, completionParams(u, pos), &l); err != nil || len(l.Items) == 0 {
			b.Fatalf("completion: %v, %d items", err, len(l.Items))
		}
		ds = append(ds, time.Since(start))
		b.StopTimer()
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
		b.StartTimer()
	}
	lsptest.ReportPercentiles(b, "", ds)
}

// BenchmarkServeMemory50Scripts reports the resident memory of the server
// process with 50 open 1,000-line scripts, each diagnosed, and 10,000
// services. It measures restls as users get it, the binary go build makes
// as make dist does, not this test binary, which carries the tests' own
// dependencies (JSON Schema validation, an OAuth2 server, archive readers:
// 4 MB more resident here).
func BenchmarkServeMemory50Scripts(b *testing.B) {
	root := benchConfig(b, 10000)
	text, pos := lsptest.BigScript(1000)
	exe := shippedRestls(b)
	for b.Loop() {
		b.StopTimer()
		w := newDiagWaiter()
		p := startServeCommand(b, exec.Command(exe, "serve", "--stdio", "--config-root", root, "--log-level", "warn"), w.handle)
		initialize(b, p)
		b.StartTimer()
		for i := range 50 {
			u := uri.File(fmt.Sprintf("/ws/script%02d.js", i))
			open(p, u, text)
			var l protocol.CompletionList
			if err := p.call(b, protocol.MethodTextDocumentCompletion, completionParams(u, pos), &l); err != nil {
				b.Fatal(err)
			}
		}
		w.wait(b, 50)
		b.StopTimer()
		rss, hwm := procMemory(b, p.cmd.Process.Pid)
		b.ReportMetric(rss, "RSS-MB")
		b.ReportMetric(hwm, "peakRSS-MB")
		// RSS splits into the process's own memory (heap, stacks) and
		// the pages of the binary it has touched, which grow with the
		// binary whatever the session holds.
		anon, file := procMemorySplit(b, p.cmd.Process.Pid)
		b.ReportMetric(anon, "anonRSS-MB")
		b.ReportMetric(file, "fileRSS-MB")
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
		b.StartTimer()
	}
}

// shippedRestls builds restls from this package as make dist does (no cgo,
// trimmed paths, restls.pgo) into a temporary directory; Go's build cache
// makes it quick after the first time.
func shippedRestls(b *testing.B) string {
	b.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		b.Fatalf("building restls needs the go command: %v", err)
	}
	exe := filepath.Join(b.TempDir(), "restls")
	// As scripts/dist.sh builds it: with restls check's profile.
	cmd := exec.Command(goTool, "build", "-trimpath", "-pgo=restls.pgo", "-o", exe, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return exe
}

// procMemorySplit reads RssAnon and RssFile of pid in MB.
func procMemorySplit(b *testing.B, pid int) (anon, file float64) {
	m := procStatusMB(b, pid)
	return m["RssAnon:"], m["RssFile:"]
}

// procMemory reads VmRSS and VmHWM of pid in MB.
func procMemory(b *testing.B, pid int) (rss, hwm float64) {
	m := procStatusMB(b, pid)
	return m["VmRSS:"], m["VmHWM:"]
}

// procStatusMB is /proc/PID/status's fields given in kB, in MB, by
// their name with its colon.
func procStatusMB(b *testing.B, pid int) map[string]float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skipf("no /proc here: %v", err)
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[2] == "kB" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			out[f[0]] = kb / 1024
		}
	}
	return out
}
