//go:build unix

package input

import "syscall"

// openFlags keeps opening a FIFO from waiting for a writer.
const openFlags = syscall.O_NONBLOCK

// noFollow refuses a symbolic link as the last part of a path already
// resolved: one put there after it was checked.
const noFollow = syscall.O_NOFOLLOW
