package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// serveLimit is serve's soft memory limit for a live heap of live bytes
// after a collection: serveMemoryLimit while the heap is small, so that
// a spike's memory goes back, and twice the live heap once that is
// larger. A fixed limit below the live heap (a 24 MB description is a
// tree of some 400 MB while it is read) made the runtime collect without
// pause: three times the CPU and the wall time of the same load with no
// limit, for a peak only 5% lower. Twice the live heap is where the
// collector's own target (GOGC 100) lies, so past the fixed limit the
// runtime paces itself about as it would with none.
func serveLimit(live uint64) int64 {
	return max(serveMemoryLimit, int64(min(live, 1<<61))*2)
}

// followLiveHeap sets serve's soft memory limit and keeps it at
// serveLimit of the live heap after each collection, until stop is
// called. Nothing runs between collections.
func followLiveHeap() (stop func()) {
	var stopped atomic.Bool
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	debug.SetMemoryLimit(serveMemoryLimit)
	var arm func()
	arm = func() {
		// A pointer field keeps the sentinel out of the tiny allocator,
		// whose blocks may never be collected one by one.
		s := &struct{ p *byte }{}
		runtime.AddCleanup(s, func(struct{}) {
			if stopped.Load() {
				return
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				debug.SetMemoryLimit(serveLimit(sample[0].Value.Uint64()))
			}
			arm()
		}, struct{}{})
	}
	arm()
	return func() { stopped.Store(true) }
}
