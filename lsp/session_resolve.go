package lsp

import (
	"sync"

	"github.com/restls/restls/config"
	"github.com/restls/restls/hints"
)

// resolveCache keeps the engine's items of a session's latest completion
// answer, for completionItem/resolve to add the documentation that an
// answer to a client with lazy documentation leaves out.
//
// Answers are numbered by next; keep stores an answer's items only if it
// is newer than the one kept, so answers computed concurrently (completion
// runs off the read goroutine) leave the newest in place whatever order
// they finish in. resolve finds an item only in the kept answer: an item
// of an older one comes back unchanged.
//
// mu guards every field and is never held while calling out, so any
// goroutine may call any method; no other lock is taken under it.
type resolveCache struct {
	mu       sync.Mutex
	seq      int64                  // the latest number given to an answer
	itemsSeq int64                  // the number of the answer kept
	items    []hints.CompletionItem // its items, with their documentation
	reg      *config.Registry       // builds the documentation of LazyDoc items
}

// next numbers a new answer.
func (c *resolveCache) next() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	return c.seq
}

// keep makes items, of answer seq computed with reg, the ones resolve
// reads when seq is newer than the answer kept. It returns the items no
// longer needed, for recycling: those replaced, or items themselves when
// they came too late.
func (c *resolveCache) keep(seq int64, items []hints.CompletionItem, reg *config.Registry) (recycle []hints.CompletionItem) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if seq <= c.itemsSeq {
		return items
	}
	recycle, c.items = c.items, items
	c.itemsSeq, c.reg = seq, reg
	return recycle
}

// at returns item i of answer seq and the registry it was computed with;
// ok is false when seq is not the answer kept or i is out of range.
func (c *resolveCache) at(seq, i int64) (it hints.CompletionItem, reg *config.Registry, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if seq != c.itemsSeq || i < 0 || i >= int64(len(c.items)) {
		return hints.CompletionItem{}, nil, false
	}
	return c.items[i], c.reg, true
}

// labelled returns the first item of answer seq with label, as at does.
func (c *resolveCache) labelled(seq int64, label string) (it hints.CompletionItem, reg *config.Registry, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if seq != c.itemsSeq {
		return hints.CompletionItem{}, nil, false
	}
	for _, it := range c.items {
		if it.Label == label {
			return it, c.reg, true
		}
	}
	return hints.CompletionItem{}, nil, false
}
