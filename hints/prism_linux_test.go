package hints

import "syscall"

// prismSysProcAttr has Linux kill Prism when the test binary dies
// before its cleanup runs (a timeout, a closed pipe).
func prismSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
