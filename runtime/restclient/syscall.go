package restclient

import "syscall"

func errConnRefused() error { return syscall.ECONNREFUSED }
