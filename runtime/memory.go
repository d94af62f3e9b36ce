package runtime

import (
	"bytes"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/restls/restls/runtime/restclient"
)

// CodeMemoryLimit is the error code of a script stopped at its memory
// limit (Options.MaxMemory).
const CodeMemoryLimit = "memory-limit"

// DefaultMaxMemory is the memory a dry run may add to its process unless
// told otherwise (`restls run --max-memory`, `restls serve --max-memory`).
const DefaultMaxMemory = 512 << 20

// memoryPoll is how often the watchdog samples the process's memory. At
// the 1-2 GB/s a script can fault pages in, 5 ms is 5-10 MB of overshoot.
const memoryPoll = 5 * time.Millisecond

// ParseSize reads a memory size for --max-memory: plain bytes ("1048576")
// or a number with a unit, binary ("512MiB", "1GiB") or decimal ("500MB").
func ParseSize(s string) (int64, error) {
	n, err := humanize.ParseBytes(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%q is not a size: give bytes or a number with a unit such as 512MiB or 1GiB", s)
	}
	if n == 0 || n > 1<<50 {
		return 0, fmt.Errorf("%q is out of range: give a size between 1 byte and 1 PiB", s)
	}
	return int64(n), nil
}

// FormatSize writes a size as ParseSize reads it back: in the largest
// binary unit that divides it, else in bytes.
func FormatSize(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

// LimitProcessMemory makes the process that runs scripts (restls run, or
// the child a server starts for each dry run) hold to limit bytes on top of
// what it uses now. It sets the Go runtime's soft memory limit, so garbage
// is collected before the watchdog counts it against a script, and an OS
// limit on the data segment (RLIMIT_DATA) well above it, as the last resort
// should the watchdog not get to run: hitting that one makes the Go runtime
// end the process with "out of memory". See docs/decisions.md.
func LimitProcessMemory(limit int64) error {
	base := processMemory()
	debug.SetMemoryLimit(base + limit*3/4)
	return limitDataSegment(limit)
}

// memoryWatch stops a run whose process grows by more than its limit.
//
// goja cannot bound its own allocations, so the watchdog samples the
// process's resident memory from outside the VM. At 7/8 of the limit it
// interrupts the VM, which stops at its next instruction with a
// memory-limit error and keeps the trace of the run. One operation can
// allocate hundreds of megabytes before the VM reaches that instruction (a
// string concatenation copies both halves at once); if memory reaches the
// whole limit anyway, hardStop is called, which in restls run ends the
// process at once with the same error code.
type memoryWatch struct {
	limit     int64
	base      int64
	interrupt func(msg string)
	hardStop  func(msg string)
	done      chan struct{}
	wg        sync.WaitGroup
}

// watchMemory starts the watchdog; the returned function stops it and
// waits until it has stopped, so no callback runs after it returns.
func watchMemory(limit int64, interrupt, hardStop func(msg string)) (stop func()) {
	w := &memoryWatch{limit: limit, base: sampledMemory(), interrupt: interrupt, hardStop: hardStop, done: make(chan struct{})}
	w.wg.Add(1)
	go w.loop()
	return func() {
		close(w.done)
		w.wg.Wait()
	}
}

// MemoryLimitMessage is the message of a memory-limit error.
func MemoryLimitMessage(limit int64) string {
	return fmt.Sprintf("the script used more memory than its limit of %s and was stopped: look for a loop that keeps growing a string, array or object, or raise --max-memory", FormatSize(limit))
}

func (w *memoryWatch) loop() {
	defer w.wg.Done()
	t := time.NewTicker(memoryPoll)
	defer t.Stop()
	soft := w.limit / 8 * 7
	interrupted := false
	msg := MemoryLimitMessage(w.limit)
	for {
		select {
		case <-w.done:
			return
		case <-t.C:
		}
		used := sampledMemory() - w.base
		if used >= w.limit {
			if w.hardStop != nil {
				w.hardStop(msg)
			}
			if !interrupted {
				w.interrupt(msg)
				interrupted = true
			}
			continue
		}
		if used >= soft && !interrupted {
			w.interrupt(msg)
			interrupted = true
		}
	}
}

// MemoryLimitResult is the result of a run ended by the hard memory stop,
// when the trace of the run can no longer be read safely.
func MemoryLimitResult(msg string) *Result {
	return &Result{
		Result: []byte("null"),
		Error:  &ScriptError{Name: "MemoryLimitError", Code: CodeMemoryLimit, Message: msg + " (the calls and logs of this run are lost: it allocated too much at once to be stopped in between)"},
		Calls:  []*restclient.Call{},
		Logs:   []LogEntry{},
	}
}

// memoryFresh is how old a sample of the process's memory may be for a
// watchdog to use it: its own interval, so a run's start and its ticks see
// the process at most one interval late (at most twice the overshoot
// memoryPoll allows, well inside the limit's 1/8 margin).
const memoryFresh = memoryPoll

// memorySample is the last sample of the process's memory, shared by the
// watchdogs of runs that go side by side in one process (restls test's
// cases, one per core): n runs cost one read per memoryFresh, not n per
// start and per tick.
var memorySample struct {
	mu   sync.Mutex
	at   time.Time
	used int64
}

// readMemory samples the process's memory (a variable for tests).
var readMemory = processMemory

// sampledMemory is the process's memory, read at most memoryFresh ago.
func sampledMemory() int64 {
	memorySample.mu.Lock()
	defer memorySample.mu.Unlock()
	if now := time.Now(); memorySample.at.IsZero() || now.Sub(memorySample.at) >= memoryFresh {
		memorySample.used, memorySample.at = readMemory(), now
	}
	return memorySample.used
}

var pageSize = int64(os.Getpagesize())

// processMemory is the process's resident memory in bytes (Linux), or the
// memory the Go runtime holds from the OS elsewhere.
func processMemory() int64 {
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := bytes.Fields(b); len(f) > 1 {
			if pages, err := strconv.ParseInt(string(f[1]), 10, 64); err == nil {
				return pages * pageSize
			}
		}
	}
	return goMemory()
}

var goMemorySamples = []metrics.Sample{
	{Name: "/memory/classes/total:bytes"},
	{Name: "/memory/classes/heap/released:bytes"},
}

var goMemoryMu sync.Mutex

func goMemory() int64 {
	goMemoryMu.Lock()
	defer goMemoryMu.Unlock()
	metrics.Read(goMemorySamples)
	return int64(goMemorySamples[0].Value.Uint64() - goMemorySamples[1].Value.Uint64())
}

// dataSegment is what RLIMIT_DATA already counts for this process: the
// private writable mappings (Linux /proc/self/status VmData), or 0.
func dataSegment() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmData:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
