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
	hard := uint64(dataSegment() + 2*limit + 256<<20)
	if rl.Max != ^uint64(0) && rl.Max < hard {
		hard = rl.Max // never ask for more than we may have
	}
	if rl.Cur != ^uint64(0) && rl.Cur < hard {
		return nil // a lower limit is already in force
	}
	rl.Cur = hard
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &rl); err != nil {
		return fmt.Errorf("set the data segment limit: %w", err)
	}
	return nil
}
