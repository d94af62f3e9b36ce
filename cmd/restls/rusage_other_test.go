//go:build !unix

package main

import "os"

// peakRSS has no getrusage to read here: callers skip their memory check.
func peakRSS(*os.ProcessState) (int64, bool) { return 0, false }

// envPeakDir and peakDir: see rusage_unix_test.go; nothing is recorded
// here.
const envPeakDir = "RESTLS_TEST_PEAK_DIR"

var peakDir = ""

// makePeakDir has no directory to make here.
func makePeakDir() string { return "" }

// recordPeak has nothing to record here.
func recordPeak() {}
