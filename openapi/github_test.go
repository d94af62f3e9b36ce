package openapi

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

var github struct {
	once sync.Once
	path string
	err  string
}

// githubDescription returns the path of GitHub's own description (npm
// package @octokit/openapi, generated/api.github.com.json, 13 MB), fetched
// once per test binary with npm into a temporary directory and never
// committed; the test or benchmark is skipped when npm cannot fetch it.
// RESTLS_GITHUB_OPENAPI names an already fetched copy.
func githubDescription(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv("RESTLS_GITHUB_OPENAPI"); p != "" {
		return p
	}
	github.once.Do(func() {
		npm, err := exec.LookPath("npm")
		if err != nil {
			github.err = "npm is not installed: cannot fetch GitHub's description (@octokit/openapi)"
			return
		}
		dir, err := os.MkdirTemp("", "restls-github-openapi")
		if err != nil {
			github.err = err.Error()
			return
		}
		cmd := exec.Command(npm, "pack", "--silent", "@octokit/openapi")
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			github.err = "npm pack @octokit/openapi failed: " + err.Error()
			return
		}
		tgz := filepath.Join(dir, string(trimNL(out)))
		if err := exec.Command("tar", "-xzf", tgz, "-C", dir, "package/generated/api.github.com.json").Run(); err != nil {
			github.err = "unpacking " + tgz + ": " + err.Error()
			return
		}
		github.path = filepath.Join(dir, "package", "generated", "api.github.com.json")
	})
	if github.path == "" {
		tb.Skip(github.err)
	}
	return github.path
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

func TestGitHubDescription(t *testing.T) {
	data, err := os.ReadFile(githubDescription(t))
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
	data, err := os.ReadFile(githubDescription(b))
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
