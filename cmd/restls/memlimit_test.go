package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestServeLimitFollowsTheLiveHeap: serve's soft memory limit stays at
// serveMemoryLimit while the live heap is small and rises to twice a
// live heap above half of it, so that a large description or script is
// read at the collector's own pace instead of under a limit it cannot
// meet (three times the CPU); it comes back down when the heap does.
// Not in parallel: the limit is the process's.
func TestServeLimitFollowsTheLiveHeap(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int64
	}{{0, serveMemoryLimit}, {serveMemoryLimit / 2, serveMemoryLimit}, {serveMemoryLimit, 2 * serveMemoryLimit}, {1 << 62, 1 << 62}} {
		if got := serveLimit(c.live); got != c.want {
			t.Errorf("serveLimit(%d) = %d, want %d", c.live, got, c.want)
		}
	}

	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	stop := followLiveHeap()
	defer stop()
	if got := debug.SetMemoryLimit(-1); got != serveMemoryLimit {
		t.Fatalf("limit %d at the start, want %d", got, serveMemoryLimit)
	}
	// waitLimit collects until the limit is as want says, or 10 s passed
	// (the limit is set after a collection, on the cleanup goroutine).
	waitLimit := func(what string, want func(int64) bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !want(debug.SetMemoryLimit(-1)) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the limit is %d MiB", what, debug.SetMemoryLimit(-1)>>20)
			}
			runtime.GC()
			runtime.Gosched() // the cleanup goroutine's turn
		}
	}
	live := make([]byte, 96<<20)
	waitLimit("96 MiB live", func(l int64) bool { return l >= 192<<20 })
	runtime.KeepAlive(live)
	live = nil
	waitLimit("the 96 MiB dropped", func(l int64) bool { return l == serveMemoryLimit })
	_ = live
}
