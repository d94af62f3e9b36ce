package faults

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/restclient"
)

// benchScript has 3 call sites: a fallback, a 404 told apart, a call
// whose failure escapes. Its first line makes each of n scripts its own.
func benchScript(n int) string {
	return fmt.Sprintf(`var script = %d;
var a, b, c;
try { a = api.rest.v1.get("crm", {pathParams: ["a"]}, {}).body.n; } catch (e) { a = 0; }
try { b = api.rest.v1.get("crm", {pathParams: ["b"]}, {}).body.n; } catch (e) { if (e.status && e.status.code === 404) b = null; else throw e; }
c = api.rest.v1.post("crm", {pathParams: ["c"]}, {}, {a: a, b: b}).body;
return [script, a, b, c];`, n)
}

// BenchmarkExplore: one script with 3 call sites, the full outcome set
// (1 + 3 x 7 runs an op), the reruns one after the other.
func BenchmarkExplore(b *testing.B) {
	snap, dir := crm(b)
	base, err := restclient.ParseMock("s.mock.yaml", []byte("- {serviceId: crm, body: {n: 1}}\n"))
	if err != nil {
		b.Fatal(err)
	}
	eng := engine.New(engine.Options{Isolation: engine.InProcess})
	req := engine.Request{Path: filepath.Join(dir, "s.js"), Text: benchScript(0)}
	b.ReportAllocs()
	for b.Loop() {
		rep, err := Explore(context.Background(), eng.Run, snap, req, base, Options{})
		if err != nil || rep.Runs != 21 {
			b.Fatalf("%v, %+v", err, rep)
		}
	}
}

// BenchmarkExplore1000 is issue 36's bound: 1,000 scripts with 3 call
// sites each, the full outcome set (22,000 runs an op), one script per
// core at a time as restls test --faults explores its cases; under 10 s
// an op on the 2-core machine. cpu-s/op is the CPU it took, peak-heap-MB
// the largest heap in use seen (sampled every 20 ms): memory stays
// bounded by the scripts running at once, not by the count.
func BenchmarkExplore1000(b *testing.B) {
	snap, dir := crm(b)
	base, err := restclient.ParseMock("s.mock.yaml", []byte("- {serviceId: crm, body: {n: 1}}\n"))
	if err != nil {
		b.Fatal(err)
	}
	workers := runtime.GOMAXPROCS(0)
	eng := engine.New(engine.Options{Isolation: engine.InProcess, MaxRuns: workers})
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
			}
		}
	}()
	before, okBefore := processCPU()
	n := 0
	for b.Loop() {
		n++
		next := make(chan int)
		var wg sync.WaitGroup
		var failed atomic.Value
		for range workers {
			wg.Go(func() {
				for i := range next {
					req := engine.Request{Path: filepath.Join(dir, fmt.Sprintf("s%d.js", i)), Text: benchScript(i)}
					rep, err := Explore(context.Background(), eng.Run, snap, req, base, Options{})
					if err != nil || rep.Runs != 21 {
						failed.Store(fmt.Sprintf("script %d: %v, %+v", i, err, rep))
					}
				}
			})
		}
		for i := range 1000 {
			next <- i
		}
		close(next)
		wg.Wait()
		if f := failed.Load(); f != nil {
			b.Fatal(f)
		}
	}
	after, okAfter := processCPU()
	close(stop)
	<-sampled
	if okBefore && okAfter {
		b.ReportMetric(((after - before) / time.Duration(n)).Seconds(), "cpu-s/op")
	}
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
}
