//go:build !unix

package isolate

import (
	"os"
	"os/exec"
	"syscall"
)

// ChildAttr is what a supervised child is started with. Windows has no
// process groups to kill at once; Supervise kills the child itself.
func ChildAttr(bool) *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

func inOwnGroup(*exec.Cmd) bool { return false }

func killGroup(int) {}

// processGone cannot be told reliably here; stale directories are left.
func processGone(int) bool { return false }

func ownedByMe(os.FileInfo) bool { return false }
