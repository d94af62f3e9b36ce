//go:build !unix

package input

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs here") }
