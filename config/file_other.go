//go:build !unix

package config

// openFlags: only Unix has FIFOs that block on open.
const openFlags = 0
