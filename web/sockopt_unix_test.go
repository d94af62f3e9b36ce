//go:build unix

package web

import "syscall"

// setRecvBuffer sets a socket's receive buffer: a descriptor is an int on
// Unix and a Handle on Windows.
func setRecvBuffer(fd uintptr, n int) error {
	return syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, n)
}
