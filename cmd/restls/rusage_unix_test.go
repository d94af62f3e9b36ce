//go:build unix

package main

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// envPeakDir names the directory where a child run as restls by
// restlsCommand writes its own peak resident memory when it ends
// (recordPeak), in a file named by its process id.
//
// Why not only getrusage: Go starts children with clone(CLONE_VM), and
// Linux carries the memory the parent had at exec into the child's
// ru_maxrss, so a child of a test process that once grew to 225 MiB
// reads at least 225 MiB whatever it used itself. The child's own
// VmHWM (/proc/self/status) starts afresh at exec.
const envPeakDir = "RESTLS_TEST_PEAK_DIR"

// peakDir is the directory this test process gives its children, made
// by TestMain (makePeakDir) in the test process only: a child run as
// restls, and the dry-run child it starts in turn, are this binary too,
// and a directory made at package init was left in the temporary
// directory by each of them (63,701 by one afternoon, which every run's
// stale-directory sweep then read).
var peakDir string

// makePeakDir makes the directory for peakDir, or returns "".
func makePeakDir() string {
	d, err := os.MkdirTemp("", "restls-peak-")
	if err != nil {
		return ""
	}
	return d
}

// recordPeak writes, in a child run as restls, its own peak resident
// memory and that of every descendant it waited for; a no-op elsewhere
// or where /proc has no VmHWM.
func recordPeak() {
	dir := os.Getenv(envPeakDir)
	if dir == "" || runtime.GOOS != "linux" {
		return
	}
	own, err := procVmHWM("self")
	if err != nil {
		return
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) == nil && int64(ru.Maxrss)<<10 > own {
		own = int64(ru.Maxrss) << 10
	}
	_ = os.WriteFile(filepath.Join(dir, strconv.Itoa(os.Getpid())), []byte(strconv.FormatInt(own, 10)), 0o600)
}

// procVmHWM is the peak resident memory so far of process pid ("self"
// for this one), from /proc, in bytes (Linux).
func procVmHWM(pid string) (int64, error) {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmHWM in /proc/" + pid + "/status")
}

// peakRSS is the peak resident memory of an ended command and of every
// descendant it waited for, in bytes: what the child recorded when it
// ended normally (recordPeak), else getrusage(2)'s figure (kilobytes on
// Linux, bytes on macOS), which on Linux includes the test process's own
// peak at the child's start.
func peakRSS(st *os.ProcessState) (int64, bool) {
	if peakDir != "" {
		if b, err := os.ReadFile(filepath.Join(peakDir, strconv.Itoa(st.Pid()))); err == nil {
			if n, err := strconv.ParseInt(string(b), 10, 64); err == nil {
				return n, true
			}
		}
	}
	ru, ok := st.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss), true
	}
	return int64(ru.Maxrss) << 10, true
}
