//go:build unix && !linux

package isolate

import "syscall"

// ChildAttr is what a supervised child is started with: with group, a
// process group of its own. Outside Linux a child does not die with its
// parent.
func ChildAttr(group bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: group}
}
