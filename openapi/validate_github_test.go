package openapi

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/restls/restls/internal/openapitest"
)

// Every request schema of GitHub's description is handed to the
// validator and compiles; the kept schemas cost little heap.
func TestGitHubValidators(t *testing.T) {
	// Not in parallel: it measures this process's memory, which tests beside it would add to.
	data, err := os.ReadFile(openapitest.GitHub(t))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := Build("api.github.com.json", data)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	bodies, params, failed := 0, 0, 0
	for _, op := range idx.Ops {
		if op.bodyRaw.n != nil {
			bodies++
			if idx.BodyValidator(op) == nil {
				failed++
				_, err := idx.valid.compile(op.bodyRaw)
				t.Errorf("%s %s body: %v", op.Method, op.Path, err)
			}
		}
		for _, list := range [][]Param{op.PathParams, op.Query, op.Headers} {
			for i := range list {
				params++
				if idx.ParamValidator(&list[i]) == nil {
					failed++
					_, err := idx.valid.compile(list[i].raw)
					t.Errorf("%s %s %s: %v", op.Method, op.Path, list[i].Name, err)
				}
			}
		}
	}
	t.Logf("%d bodies, %d parameters compiled in %v (%d failed), %d $refs kept", bodies, params, time.Since(start), failed, len(idx.valid.refs))
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	t.Logf("heap with the validators %d MB", m.HeapAlloc>>20)
	runtime.KeepAlive(idx)
}
