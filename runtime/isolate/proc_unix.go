//go:build unix

package isolate

import (
	"os"
	"os/exec"
	"syscall"
)

// inOwnGroup reports whether cmd was started in a process group of its own.
func inOwnGroup(cmd *exec.Cmd) bool { return cmd.SysProcAttr != nil && cmd.SysProcAttr.Setpgid }

// killGroup kills the process group led by pid.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }

// processGone reports whether no process pid exists (kill(pid, 0) says
// ESRCH). A process of another user answers EPERM: it exists.
func processGone(pid int) bool {
	return pid > 0 && syscall.Kill(pid, 0) == syscall.ESRCH
}

// ownedByMe reports whether a file belongs to this process's user.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
