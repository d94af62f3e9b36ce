package isolate

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"time"
)

// Allowance is what a child may use beyond its memory limit before it is
// killed: the restls process itself (about 15 MB for `restls run` with a
// small configuration) plus headroom for a larger configuration.
const Allowance = 48 << 20

// poll is how often a child's resident memory is sampled. A script faults
// pages in at 1-2 GB/s at most, so 5 ms is 5-10 MB past the limit.
const poll = 5 * time.Millisecond

// Outcome says how a supervised child ended.
type Outcome struct {
	// State is the child's exit state.
	State *os.ProcessState
	// MemoryKilled: killed for growing past its limit plus Allowance.
	MemoryKilled bool
	// TimeKilled: killed at the wall-clock limit.
	TimeKilled bool
	// Canceled: killed because ctx ended.
	Canceled bool
	// PeakRSS is the highest resident memory seen, in bytes.
	PeakRSS int64
}

// supervise starts cmd and waits for it, killing it (SIGKILL, its whole
// process group when cmd sets Setpgid) when its resident memory exceeds
// maxMemory+Allowance, when wall (if positive) has passed, or when ctx
// ends; with interrupt, the end of ctx interrupts the child instead
// (os.Interrupt, as Ctrl-C does) and waits for it to end, within wall.
// It always waits for the child, so none is left behind.
//
// The check runs in this process, outside the child's Go runtime: inside
// the child, a watchdog goroutine cannot run while one large copy (a string
// concatenation of hundreds of megabytes) holds up a garbage collection.
func supervise(ctx context.Context, cmd *exec.Cmd, maxMemory int64, wall time.Duration, interrupt bool) (Outcome, error) {
	if err := cmd.Start(); err != nil {
		return Outcome{}, err
	}
	return watch(ctx, cmd, maxMemory, wall, interrupt)
}

// watch is supervise of a child already started.
func watch(ctx context.Context, cmd *exec.Cmd, maxMemory int64, wall time.Duration, interrupt bool) (Outcome, error) {
	var out Outcome
	pid := cmd.Process.Pid
	group := inOwnGroup(cmd)
	kill := func() {
		if group {
			killGroup(pid)
		}
		_ = cmd.Process.Kill()
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	tick := time.NewTicker(poll)
	defer tick.Stop()
	var deadline <-chan time.Time
	if wall > 0 {
		t := time.NewTimer(wall)
		defer t.Stop()
		deadline = t.C
	}
	done := ctx.Done()
	for {
		select {
		case err := <-waited:
			out.State = cmd.ProcessState
			if out.State != nil {
				err = nil // a non-zero exit is in State, not an error
			}
			return out, err
		case <-done:
			done = nil
			if interrupt && cmd.Process.Signal(os.Interrupt) == nil {
				continue
			}
			out.Canceled = true
			kill()
		case <-deadline:
			out.TimeKilled = true
			kill()
		case <-tick.C:
			rss := residentMemory(pid)
			if rss > out.PeakRSS {
				out.PeakRSS = rss
			}
			if maxMemory > 0 && rss > maxMemory+Allowance && !out.MemoryKilled {
				out.MemoryKilled = true
				kill()
			}
		}
	}
}

var pageSize = int64(os.Getpagesize())

// residentMemory is a process's resident memory in bytes, or 0 when it
// cannot be read (the process is gone, or this is not Linux).
func residentMemory(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	n, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return 0
	}
	return n * pageSize
}

// outOfMemory reports whether a process's stderr holds the Go runtime's
// out-of-memory report ("runtime: out of memory: cannot allocate ..." then
// "fatal error: out of memory", or "fatal error: runtime: out of memory").
func outOfMemory(stderr []byte) bool {
	return bytes.Contains(stderr, []byte("fatal error: out of memory")) || bytes.Contains(stderr, []byte("runtime: out of memory"))
}
