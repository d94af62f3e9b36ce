package openapi

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/restls/restls/input"
)

// TestRecordedAliasBomb (issue 23, finding 8): a 530-byte *.mock.yaml
// alias bomb beside a script is refused for the cost of the document;
// before the YAML budget each such file was expanded to the 4 million
// values of maxNodes (nine files at once: 2.5 GiB in the language
// server).
func TestRecordedAliasBomb(t *testing.T) {
	// Not in parallel: it measures this process's memory, which tests beside it would add to.
	var b strings.Builder
	b.WriteString("- serviceId: a\n  path: x\n  body:\n    l0: &l0 [x,x,x,x,x,x,x,x,x]\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&b, "    l%d: &l%d [%s*l%d]\n", i, i, strings.Repeat(fmt.Sprintf("*l%d,", i-1), 8), i-1)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := BuildRecorded("bomb.mock.yaml", []byte(b.String()))
	runtime.ReadMemStats(&after)
	if !errors.Is(err, input.ErrYAMLBudget) || ErrorLine(err) == 0 {
		t.Fatalf("got %v, want the YAML budget error at a line", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("refusing a %d-byte bomb allocated %d bytes, want under 4 MiB", b.Len(), alloc)
	}
}
