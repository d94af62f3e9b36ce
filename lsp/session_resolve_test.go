package lsp

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/hints"
)

// TestResolveCacheKeepsTheNewestAnswer: answers finish in any order; the
// newest one numbered stays, and keep hands back what is no longer needed.
func TestResolveCacheKeepsTheNewestAnswer(t *testing.T) {
	t.Parallel()
	var c resolveCache
	reg := config.NewRegistry(config.ScriptService, nil, config.DefaultTimeouts, nil)
	a, b := c.next(), c.next()
	older := []hints.CompletionItem{{Label: "old"}}
	newer := []hints.CompletionItem{{Label: "crm", Documentation: "doc"}, {Label: "erp"}}
	if got := c.keep(b, newer, reg); got != nil {
		t.Errorf("keep(newest) recycled %v, want nothing (nothing was kept)", got)
	}
	if got := c.keep(a, older, nil); len(got) != 1 || got[0].Label != "old" {
		t.Errorf("keep(older) recycled %v, want the older items themselves", got)
	}
	if it, r, ok := c.at(b, 0); !ok || it.Documentation != "doc" || r != reg {
		t.Errorf("at(%d, 0) = %+v, %v, %v", b, it, r, ok)
	}
	if it, _, ok := c.labelled(b, "erp"); !ok || it.Label != "erp" {
		t.Errorf("labelled(erp) = %+v, %v", it, ok)
	}
	for _, tc := range []struct {
		seq, i int64
	}{{a, 0}, {b, -1}, {b, 2}, {0, 0}} {
		if _, _, ok := c.at(tc.seq, tc.i); ok {
			t.Errorf("at(%d, %d) found an item", tc.seq, tc.i)
		}
	}
	if _, _, ok := c.labelled(a, "old"); ok {
		t.Error("an item of an older answer was found")
	}
	n := c.next()
	if got := c.keep(n, older, nil); len(got) != 2 || got[0].Label != "crm" {
		t.Errorf("keep(newer) recycled %v, want the items it replaced", got)
	}
}

// TestResolveCacheConcurrent runs answers and resolves at once (for -race):
// whatever the interleaving, every item slice but the one kept comes back
// for recycling.
func TestResolveCacheConcurrent(t *testing.T) {
	t.Parallel()
	var c resolveCache
	const n = 200
	var back atomic.Int64
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			seq := c.next()
			items := []hints.CompletionItem{{Label: "s", Detail: string(rune('a' + seq%26))}}
			rec := c.keep(seq, items, nil)
			c.at(seq, 0)
			c.labelled(seq, "s")
			if rec != nil {
				back.Add(1)
			}
		})
	}
	wg.Wait()
	if got := back.Load(); got != n-1 {
		t.Errorf("%d item slices came back, want %d (all but the one kept)", got, n-1)
	}
	if _, _, ok := c.at(c.itemsSeq, 0); !ok {
		t.Error("nothing is kept")
	}
}
