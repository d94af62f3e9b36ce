package runtime

import (
	"fmt"
	"sync"
	"testing"

	"github.com/dop251/goja"
)

// TestProgramsAreShared: a script compiled once is run again from the
// cache, by several runtimes at once (go test -race checks they share
// nothing they write), with the same results and errors at the same
// lines as a fresh compile; an instrumented run neither reads nor fills
// the cache.
func TestProgramsAreShared(t *testing.T) {
	t.Parallel()
	reg := registryXML(t, `<scriptservice/>`)
	src := "var o = {n: context.input.n};\nfunction f(x) { return x.n * 2; }\nif (o.n > 2) { null.boom; }\nreturn [f(o), 'x'.repeat(o.n)];"
	key := keyOf("shared.js", src)
	if programs.get(key) != nil {
		t.Fatal("cached before the first run")
	}
	runN := func(n int) *Result {
		return run(t, reg, src, func(o *Options) { o.Filename = "shared.js"; o.Input = []byte(fmt.Sprintf(`{"n": %d}`, n)) })
	}
	if got := mustReturn(t, runN(1)); got != `[2,"x"]` {
		t.Fatalf("first run: %s", got)
	}
	if programs.get(key) == nil {
		t.Fatal("the compiled program was not kept")
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			res := runN(i % 4)
			if i%4 > 2 {
				if res.Error == nil || res.Error.Name != "TypeError" || res.Error.Line != 3 {
					t.Errorf("n=%d: %+v, want a TypeError at line 3", i%4, res.Error)
				}
				return
			}
			if want := fmt.Sprintf(`[%d,%q]`, 2*(i%4), "xxx"[:i%4]); mustReturn(t, res) != want {
				t.Errorf("n=%d: %s, want %s", i%4, res.Result, want)
			}
		})
	}
	wg.Wait()

	// The bounds: the oldest program goes first.
	c := &programCache{progs: map[programKey]*cachedProgram{}}
	prg := goja.MustCompile("x", "1", false)
	for i := range maxPrograms + 1 {
		c.put(keyOf("f", fmt.Sprint(i)), prg, 1)
	}
	if c.get(keyOf("f", "0")) != nil || c.get(keyOf("f", fmt.Sprint(maxPrograms))) == nil || len(c.progs) != maxPrograms {
		t.Errorf("count bound: %d programs", len(c.progs))
	}
	c.put(keyOf("big", ""), prg, maxProgramBytes-10)
	if c.bytes > maxProgramBytes || c.get(keyOf("big", "")) == nil {
		t.Errorf("byte bound: %d bytes", c.bytes)
	}
	c.put(keyOf("huge", ""), prg, maxProgramBytes+1)
	if c.get(keyOf("huge", "")) != nil {
		t.Error("a program past the whole budget was kept")
	}
}
