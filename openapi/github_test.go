package openapi

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/restls/restls/internal/openapitest"
)

func TestGitHubDescription(t *testing.T) {
	// Not in parallel: it measures this process's memory, which tests beside it would add to.
	data, err := os.ReadFile(openapitest.GitHub(t))
	if err != nil {
		t.Fatal(err)
	}
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	start := time.Now()
	idx, err := Build("api.github.com.json", data)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	t.Logf("load %v, index heap %d MB, %d operations, %d problems", took, (int64(m1.HeapAlloc)-int64(m0.HeapAlloc))>>20, len(idx.Ops), len(idx.Problems))
	runtime.KeepAlive(idx)
	if len(idx.Ops) < 1000 {
		t.Errorf("%d operations, want > 1000", len(idx.Ops))
	}
	api := API{Index: idx}
	op, _ := api.Match("GET", []Seg{{Text: "repos"}, {Computed: true}, {Computed: true}})
	if op == nil || op.Path != "/repos/{owner}/{repo}" {
		t.Fatalf("match = %+v", op)
	}
	for _, p := range []string{"full_name", "stargazers_count", "owner"} {
		if op.Response.Prop(p) == nil {
			t.Errorf("response has no %s", p)
		}
	}
	if op.Response.Prop("owner").Schema.Prop("login") == nil {
		t.Errorf("owner has no login")
	}
	next := map[string]bool{}
	for _, n := range api.Next("GET", []Seg{{Text: "repos"}, {Computed: true}, {Computed: true}}) {
		next[n.Segment] = true
	}
	if !next["issues"] || !next["pulls"] {
		t.Errorf("next = %v", next)
	}
}

func BenchmarkLoadGitHub(b *testing.B) {
	data, err := os.ReadFile(openapitest.GitHub(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var heap float64
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		b.StartTimer()
		idx, err := Build("api.github.com.json", data)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&m1)
		b.StartTimer()
		heap = float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc)) / (1 << 20)
		runtime.KeepAlive(idx)
	}
	b.ReportMetric(heap, "MB-index")
}
