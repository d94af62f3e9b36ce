//go:build unix

package runtime

import (
	"fmt"
	"syscall"
)

// limitDataSegment sets RLIMIT_DATA well above limit (LimitProcessMemory).
func limitDataSegment(limit int64) error {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_DATA, &rl); err != nil {
		return fmt.Errorf("read the data segment limit: %w", err)
	}
	if !raiseTo(&rl.Cur, &rl.Max, uint64(dataSegment()+2*limit+256<<20)) {
		return nil // a lower limit is already in force
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &rl); err != nil {
		return fmt.Errorf("set the data segment limit: %w", err)
	}
	return nil
}

// raiseTo sets the soft limit cur to want, or to the hard limit max when
// that is lower, and reports whether it did: not when a lower soft limit
// is already in force. The limits are uint64 on Linux and macOS and int64
// on FreeBSD, where RLIM_INFINITY is -1, which is ^uint64(0) once
// converted, as elsewhere.
func raiseTo[T int64 | uint64](cur, max *T, want uint64) bool {
	if m := uint64(*max); m != ^uint64(0) && m < want {
		want = m // never ask for more than we may have
	}
	if c := uint64(*cur); c != ^uint64(0) && c < want {
		return false
	}
	*cur = T(want)
	return true
}
