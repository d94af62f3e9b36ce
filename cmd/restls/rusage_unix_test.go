//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSS is the peak resident memory of an ended command and of every
// descendant it waited for, in bytes. getrusage(2) gives it in kilobytes
// on Linux and in bytes on macOS.
func peakRSS(st *os.ProcessState) (int64, bool) {
	ru, ok := st.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss), true
	}
	return int64(ru.Maxrss) << 10, true
}
