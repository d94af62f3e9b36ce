package runtime

import (
	"crypto/sha256"
	"sync"

	"github.com/dop251/goja"
)

// Compiled programs are kept for the runs that follow (issue 36): the
// fault explorer runs one script some twenty times, restls test runs a
// script once per case, and parsing and compiling was a third of each
// run. A goja.Program is immutable once compiled and is run by many
// runtimes, one each (k6 shares one among its virtual users). Programs
// with a debugger's instrumentation, which differs per observer, are not
// kept; coverage's, the same for every run, is kept under its own key
// with what it counts (branches.go); only programs that compiled.

// Bounds of the cache: how many programs, and how much script text
// they stand for in all (a compiled program is a few times its text).
const (
	maxPrograms     = 64
	maxProgramBytes = 8 << 20
)

type programKey [sha256.Size]byte

type programCache struct {
	mu    sync.Mutex
	progs map[programKey]*cachedProgram
	order []programKey // oldest first
	bytes int
}

type cachedProgram struct {
	prg  *goja.Program
	size int
	// cover, for a coverage run's program (branches.go), is what it
	// counts.
	cover *coverProgram
}

var programs = &programCache{progs: map[programKey]*cachedProgram{}}

func keyOf(filename, text string) programKey {
	h := sha256.New()
	h.Write([]byte(filename))
	h.Write([]byte{0})
	h.Write([]byte(text))
	var k programKey
	h.Sum(k[:0])
	return k
}

func (c *programCache) get(k programKey) *goja.Program {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.progs[k]; p != nil {
		return p.prg
	}
	return nil
}

// entry is the program kept under k, nil when none is.
func (c *programCache) entry(k programKey) *cachedProgram {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.progs[k]
}

// putCover keeps a coverage run's program and what it counts.
func (c *programCache) putCover(k programKey, prg *goja.Program, size int, cover *coverProgram) {
	c.put(k, prg, size)
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.progs[k]; p != nil && p.prg == prg {
		p.cover = cover
	}
}

// put keeps prg, dropping the oldest programs past the bounds; a text
// larger than the whole budget is not kept.
func (c *programCache) put(k programKey, prg *goja.Program, size int) {
	if size > maxProgramBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.progs[k] != nil {
		return
	}
	for len(c.order) > 0 && (len(c.order) >= maxPrograms || c.bytes+size > maxProgramBytes) {
		old := c.order[0]
		c.order = c.order[1:]
		c.bytes -= c.progs[old].size
		delete(c.progs, old)
	}
	c.progs[k] = &cachedProgram{prg: prg, size: size}
	c.order = append(c.order, k)
	c.bytes += size
}
