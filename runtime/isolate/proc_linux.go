package isolate

import "syscall"

// ChildAttr is what a supervised child is started with: with group, a
// process group of its own (a terminal's Ctrl-C is then the parent's to
// handle); always, death with the thread that started it, so a parent
// killed outright leaves no child behind.
func ChildAttr(group bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: group, Pdeathsig: syscall.SIGKILL}
}
