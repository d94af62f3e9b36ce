//go:build unix

package faults

import (
	"syscall"
	"time"
)

// processCPU is the user plus system CPU time this process has used so
// far; the benchmarks report CPU seconds per run from two readings.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
