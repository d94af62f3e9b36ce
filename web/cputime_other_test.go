//go:build !unix

package web

import "time"

// processCPU has no getrusage to read here: callers skip their CPU check.
func processCPU() (time.Duration, bool) { return 0, false }
