package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// runBounded is shared by the tests that run restls on files it must
// refuse (input_files_unix_test.go) and on test files it must refuse
// (test_paths_test.go): not Unix-only, so every platform's vet compiles
// both.

// maxReadRSS bounds the peak resident memory of a command that refuses
// the files of these tests (restls's own baseline is about 20-40 MiB;
// the readers took 1.2-1.5 GiB before).
const maxReadRSS = 200 << 20

// runBounded runs restls with args in dir (the test's directory when
// empty) and extra environment, killing it after deadline (a hang is a
// failure), and checks its peak memory.
func runBounded(t *testing.T, dir string, env []string, deadline time.Duration, args ...string) (stdout, stderr string, rc int) {
	t.Helper()
	cmd := restlsCommand(t, args...)
	cmd.Env = append(cmd.Env, env...)
	if dir != "" {
		cmd.Dir = dir
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	runWithin(t, cmd, deadline, func() string { return out.String() + "\n" + errb.String() })
	if rss, ok := peakRSS(cmd.ProcessState); ok {
		t.Logf("restls %s: peak RSS %.1f MiB", args[0], float64(rss)/(1<<20))
		if rss > maxReadRSS {
			t.Errorf("restls %s: peak RSS %d MiB, want at most %d", strings.Join(args, " "), rss>>20, maxReadRSS>>20)
		}
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}
