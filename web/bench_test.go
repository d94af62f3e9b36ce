package web

import (
	"context"
	"fmt"
	"net/http/httptest"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/lsp"
)

// benchServer is newTestServer without test logging.
func benchServer(b *testing.B) *httptest.Server { return benchServerOps(b, nil) }

// benchServerOps is benchServer with ops (metrics) when not nil.
func benchServerOps(b *testing.B, ops *Ops) *httptest.Server {
	ls := lsp.NewServer(lsp.Options{Sources: config.Sources{ConfigRoot: exampleRoot}, Logger: zap.NewNop(), PollInterval: -1})
	s, err := New(Options{LSP: ls, Ops: ops})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(s)
	b.Cleanup(func() { s.Close(); hs.Close() })
	return hs
}

const benchText = "var r = api.rest.v1.get(\"\", {}, {});\n"

var benchCol = len(`var r = api.rest.v1.get("`)

// BenchmarkCompletionWebSocket: one session, completion inside the
// serviceId argument, round trip over a loopback WebSocket.
func BenchmarkCompletionWebSocket(b *testing.B) {
	b.Run("metrics=off", func(b *testing.B) { benchCompletion(b, nil) })
	// What --metrics adds: a counter, a histogram and a second decode of
	// each answer.
	b.Run("metrics=on", func(b *testing.B) { benchCompletion(b, NewOps(OpsOptions{Metrics: true})) })
}

func benchCompletion(b *testing.B, ops *Ops) {
	hs := benchServerOps(b, ops)
	ctx := context.Background()
	c, err := dialLSP(b, ctx, wsURL(hs), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.close()
	if err := c.open(ctx, "file:///b.js", benchText); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.complete(ctx, "file:///b.js", 0, benchCol); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompletion200Sessions: 200 open sessions, completions from all
// of them at once; reports the p99 round trip and the heap per session
// (client and server sides together, both in this process; the load
// program in testdata/load measures the server process alone).
func BenchmarkCompletion200Sessions(b *testing.B) {
	const n = 200
	hs := benchServer(b)
	ctx := context.Background()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	clients := make([]*lspClient, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			c, err := dialLSP(b, ctx, wsURL(hs), nil)
			if err == nil {
				err = c.open(ctx, fmt.Sprintf("file:///b%d.js", i), benchText)
			}
			if err != nil {
				b.Error(err)
				return
			}
			clients[i] = c
		})
	}
	wg.Wait()
	if b.Failed() {
		return
	}
	defer func() {
		for _, c := range clients {
			c.close()
		}
	}()
	// One completion each so every session has parsed its document.
	for i, c := range clients {
		if _, err := c.complete(ctx, fmt.Sprintf("file:///b%d.js", i), 0, benchCol); err != nil {
			b.Fatal(err)
		}
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)

	var next atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	b.SetParallelism(n / runtime.GOMAXPROCS(0))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := int(next.Add(1)-1) % n
		c, uri := clients[i], fmt.Sprintf("file:///b%d.js", i)
		var mine []time.Duration
		for pb.Next() {
			t0 := time.Now()
			if _, err := c.complete(ctx, uri, 0, benchCol); err != nil {
				b.Error(err)
				return
			}
			mine = append(mine, time.Since(t0))
		}
		mu.Lock()
		lat = append(lat, mine...)
		mu.Unlock()
	})
	b.StopTimer()
	if len(lat) > 0 {
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	}
	b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/n/1024, "heap-KB/session")
}
