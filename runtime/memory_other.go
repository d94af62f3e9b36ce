//go:build !unix

package runtime

// limitDataSegment does nothing where there is no RLIMIT_DATA (Windows):
// the Go soft limit and the watchdog still hold a run to its limit.
func limitDataSegment(int64) error { return nil }
