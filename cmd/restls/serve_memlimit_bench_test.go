package main

import (
	"context"
	"fmt"
	"os"
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

// BenchmarkServeKeystrokes5MB types 100 characters, one didChange each,
// into a 5.5 MB script open in the real restls serve process, and reports
// the CPU time the process spent from the first keystroke until it has
// published the diagnostics of the last one, with its wall time and peak
// resident memory. Each sub-benchmark runs the process under another soft
// memory limit: "default" is serve's own (GOMEMLIMIT unset); the others set
// GOMEMLIMIT (and GOGC) as named. See "serve's memory limit" in
// docs/decisions.md.
//
//	go test -run '^$' -bench ServeKeystrokes5MB -benchtime 1x -count 3 ./cmd/restls/
func BenchmarkServeKeystrokes5MB(b *testing.B) {
	root := benchConfig(b, 10000)
	text, pos := lsptest.BigScript(58000)
	if len(text) < 5_400_000 || len(text) > 5_600_000 {
		b.Fatalf("script of %d bytes, want about 5.5 MB", len(text))
	}
	for _, c := range []struct{ name, memlimit, gogc string }{
		{"default", "", ""},
		{"limit=48MiB", "48MiB", ""}, // serve's limit until issue 13
		{"limit=96MiB", "96MiB", ""},
		{"limit=192MiB", "192MiB", ""},
		{"limit=256MiB", "256MiB", ""},
		{"limit=off", "off", ""},
		{"limit=off,GOGC=50", "off", "50"},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.Setenv("GOMEMLIMIT", c.memlimit)
			b.Setenv("GOGC", c.gogc)
			var cpu, wall time.Duration
			var peak float64
			for b.Loop() {
				b.StopTimer()
				w := newVersionWaiter()
				p := startServe(b, w.handle, "--config-root", root, "--log-level", "warn")
				initialize(b, p)
				u := uri.File("/ws/big.js")
				open(p, u, text)
				w.wait(b, u, 1)
				b.StartTimer()
				start, cpu0 := time.Now(), procCPU(b, p.cmd.Process.Pid)
				for i := range int32(100) {
					at := protocol.Position{Line: pos.Line, Character: pos.Character + uint32(i)}
					_ = p.conn.Notify(context.Background(), protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
						TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: 2 + i},
						ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{Range: protocol.Range{Start: at, End: at}, Text: "x"}},
					})
				}
				w.wait(b, u, 101)
				cpu += procCPU(b, p.cmd.Process.Pid) - cpu0
				wall += time.Since(start)
				b.StopTimer()
				_, hwm := procMemory(b, p.cmd.Process.Pid)
				peak = max(peak, hwm)
				_ = p.cmd.Process.Kill()
				_ = p.cmd.Wait()
				b.StartTimer()
			}
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(wall.Seconds()/float64(b.N), "wall-s/op")
			b.ReportMetric(peak, "peakRSS-MB")
		})
	}
}

// versionWaiter is a client handler that records the version of the
// latest diagnostics published for each document.
type versionWaiter struct {
	mu      sync.Mutex
	version map[uri.URI]int32
	ch      chan struct{}
}

func newVersionWaiter() *versionWaiter {
	return &versionWaiter{version: map[uri.URI]int32{}, ch: make(chan struct{}, 1)}
}

func (w *versionWaiter) handle(_ context.Context, req *jsonrpc2.Request) (any, error) {
	if req.Method() == protocol.MethodTextDocumentPublishDiagnostics {
		var p protocol.PublishDiagnosticsParams
		if protocol.Unmarshal(req.Params(), &p) != nil {
			return nil, nil
		}
		if v, ok := p.Version.Get(); ok {
			w.mu.Lock()
			w.version[p.URI] = max(w.version[p.URI], v)
			w.mu.Unlock()
			select {
			case w.ch <- struct{}{}:
			default:
			}
		}
	}
	return nil, nil
}

// wait waits for diagnostics of u at version or later.
func (w *versionWaiter) wait(b *testing.B, u uri.URI, version int32) {
	deadline := time.After(5 * time.Minute)
	for {
		w.mu.Lock()
		got := w.version[u]
		w.mu.Unlock()
		if got >= version {
			return
		}
		select {
		case <-w.ch:
		case <-deadline:
			b.Fatalf("diagnostics of version %d, want %d", got, version)
		}
	}
}

// procCPU reads the user and system CPU time pid has used so far.
func procCPU(b *testing.B, pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Skipf("no /proc here: %v", err)
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces: state is field 3, utime 14, stime 15.
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	const tick = 10 * time.Millisecond // USER_HZ is 100 on Linux
	return time.Duration(utime+stime) * tick
}
