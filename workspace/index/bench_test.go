package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/config"
)

// The project of issue 26's figures: 10,000 scripts and 10,000 services.
// Every tenth script calls "hot", so renaming it touches 1,000 scripts.
const (
	benchScripts  = 10_000
	benchServices = 10_000
)

// benchProject writes the project once per benchmark binary.
var benchRoot string

func benchProject(b *testing.B) string {
	b.Helper()
	if benchRoot != "" {
		return benchRoot
	}
	root, err := os.MkdirTemp("", "restls-index-bench")
	if err != nil {
		b.Fatal(err)
	}
	var y strings.Builder
	y.WriteString("scriptservice:\n  api:\n    - serviceId: hot\n      url: https://hot.example.com/api\n")
	for i := range benchServices {
		fmt.Fprintf(&y, "    - serviceId: svc-%04d\n      url: https://s%d.example.com/v1\n      description: service %d\n", i, i, i)
	}
	if err := os.MkdirAll(filepath.Join(root, "config"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "config", "application.yml"), []byte(y.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	for i := range benchScripts {
		dir := filepath.Join(root, "scripts", fmt.Sprintf("d%02d", i%100))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		var s strings.Builder
		fmt.Fprintf(&s, "// script %d\nfunction load(id) {\n  var r = api.rest.v1.get(\"svc-%04d\", {pathParams: [\"customers\", id]}, {});\n  return r.body;\n}\n", i, i%benchServices)
		fmt.Fprintf(&s, "function save(x) {\n  if (!x) { return null; }\n  return api.rest.v1.post(\"svc-%04d\", {}, {\"Content-Type\": \"application/json\"}, {value: x});\n}\n", (i*7)%benchServices)
		if i%10 == 0 {
			s.WriteString("var h = api.rest.v1.get(\"hot\", {queryParams: {q: \"1\"}}, {});\n")
		}
		s.WriteString("var out = [];\nfor (var k = 0; k < 3; k++) { out.push(load(k)); }\nsave(out);\nreturn out;\n")
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%05d.js", i)), []byte(s.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	benchRoot = root
	return root
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchRoot != "" {
		os.RemoveAll(benchRoot)
	}
	os.Exit(code)
}

func heap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkBuild: the whole index, scripts and configuration, from disk
// (warm page cache); heap-MB is what the index holds after a GC.
// workers=1 is how the language server builds on this 2-core machine
// (one core left to the first completion).
func BenchmarkBuild(b *testing.B) {
	for _, w := range []int{0, 1} {
		name := "workers=all"
		if w > 0 {
			name = fmt.Sprintf("workers=%d", w)
		}
		b.Run(name, func(b *testing.B) { benchBuild(b, w) })
	}
}

func benchBuild(b *testing.B, workers int) {
	root := benchProject(b)
	snap := config.Load(config.Sources{ConfigRoot: filepath.Join(root, "config")})
	b.ResetTimer()
	var held uint64
	for range b.N {
		b.StopTimer()
		before := heap()
		ix, err := New(Options{Root: root, Workers: workers})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := ix.Build(context.Background()); err != nil {
			b.Fatal(err)
		}
		ix.SetConfig(snap)
		b.StopTimer()
		held = heap() - before
		b.StartTimer()
		if n, _ := ix.Len(); n != benchScripts {
			b.Fatalf("%d scripts", n)
		}
		runtime.KeepAlive(ix)
	}
	b.ReportMetric(float64(held)/(1<<20), "heap-MB")
}

func builtIndex(b *testing.B) *Index {
	root := benchProject(b)
	ix, err := New(Options{Root: root})
	if err != nil {
		b.Fatal(err)
	}
	if err := ix.Build(context.Background()); err != nil {
		b.Fatal(err)
	}
	ix.SetConfig(config.Load(config.Sources{ConfigRoot: filepath.Join(root, "config")}))
	return ix
}

// p99 runs f n times and reports the 99th percentile of its durations.
func p99(b *testing.B, n int, f func(i int)) {
	d := make([]time.Duration, n)
	for i := range n {
		start := time.Now()
		f(i)
		d[i] = time.Since(start)
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[n*99/100].Microseconds())/1000, "p99-ms")
}

func BenchmarkReferences(b *testing.B) {
	ix := builtIndex(b)
	b.ResetTimer()
	for b.Loop() {
		p99(b, 1000, func(i int) {
			id := fmt.Sprintf("svc-%04d", i*7%benchServices)
			if i%10 == 0 {
				id = "hot"
			}
			if r := ix.Occurrences(id, false, config.Kinds); len(r.Calls) == 0 {
				b.Fatalf("no calls of %s", id)
			}
		})
	}
}

func BenchmarkSymbols(b *testing.B) {
	ix := builtIndex(b)
	b.ResetTimer()
	for b.Loop() {
		p99(b, 1000, func(i int) {
			q := []string{"", "svc", "SVC-12", "hot", "999"}[i%5]
			if s, _ := ix.Symbols(q, 1000); len(s) == 0 {
				b.Fatalf("no symbol for %q", q)
			}
		})
	}
}

// BenchmarkRename: "hot" is called by 1,000 scripts.
func BenchmarkRename(b *testing.B) {
	ix := builtIndex(b)
	b.ResetTimer()
	for b.Loop() {
		p, err := ix.Rename("hot", "hot-2", []config.Kind{config.ScriptService})
		if err != nil || len(p.Files) != 1001 {
			b.Fatalf("%v, %d files", err, len(p.Files))
		}
	}
}

// BenchmarkPoll: one poll of the whole project with nothing changed, what
// the polling watcher costs per interval.
func BenchmarkPoll(b *testing.B) {
	ix := builtIndex(b)
	b.ResetTimer()
	for b.Loop() {
		if ix.Poll() {
			b.Fatal("a change")
		}
	}
}

// BenchmarkPollCapped: BenchmarkPoll of an index capped at half the
// project (MaxFiles 5,000 of 10,000 scripts), nothing changed: the
// scripts past the cap cost a stat each, as the held ones do, and are
// not read (they were read again at every poll).
func BenchmarkPollCapped(b *testing.B) {
	root := benchProject(b)
	ix, err := New(Options{Root: root, MaxFiles: benchScripts / 2})
	if err != nil {
		b.Fatal(err)
	}
	if err := ix.Build(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if ix.Poll() {
			b.Fatal("a change")
		}
	}
}
