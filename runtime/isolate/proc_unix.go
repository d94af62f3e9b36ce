//go:build unix

package isolate

import (
	"os/exec"
	"syscall"
)

// inOwnGroup reports whether cmd was started in a process group of its own.
func inOwnGroup(cmd *exec.Cmd) bool { return cmd.SysProcAttr != nil && cmd.SysProcAttr.Setpgid }

// killGroup kills the process group led by pid.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
