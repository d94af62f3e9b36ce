//go:build !linux

package hints

import "syscall"

// prismSysProcAttr: elsewhere, Prism ends with the test's cleanup only.
func prismSysProcAttr() *syscall.SysProcAttr { return nil }
