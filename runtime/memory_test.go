package runtime

import (
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"512MiB": 512 << 20, "1GiB": 1 << 30, "1048576": 1 << 20, "64 KiB": 64 << 10, "500MB": 500e6, "2gib": 2 << 30,
	} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "lots", "1XB", "2PiB"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
	for n, want := range map[int64]string{512 << 20: "512MiB", 1 << 30: "1GiB", 3 << 10: "3KiB", 1500: "1500"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"512MiB", "1GiB", "1048576", "1.5 GB", strings.Repeat("9", 4096) + "MiB", "1" + strings.Repeat("0", 100000)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			return
		}
		if n <= 0 {
			t.Fatalf("ParseSize(%q) = %d", s, n)
		}
		// What FormatSize writes, ParseSize reads back.
		if back, err := ParseSize(FormatSize(n)); err != nil || back != n {
			t.Fatalf("FormatSize(%d) = %q reads back as %d, %v", n, FormatSize(n), back, err)
		}
	})
}

// TestMemoryLimitInterruptsTheScript: in-process, the watchdog stops a
// script that keeps growing, with the trace kept (the log before it).
func TestMemoryLimitInterruptsTheScript(t *testing.T) {
	start := time.Now()
	res := run(t, nil, lines(`console.log("before");`, `var a = []; while (true) { a.push({i: a.length, s: "abc" + a.length}); }`), func(o *Options) {
		o.MaxMemory = 64 << 20
	})
	if e := res.Error; e == nil || e.Name != "MemoryLimitError" || e.Code != CodeMemoryLimit || e.Line != 2 || !strings.Contains(e.Message, "64MiB") {
		t.Fatalf("error %+v", res.Error)
	}
	if len(res.Logs) != 1 {
		t.Errorf("logs %+v, want the one before the loop", res.Logs)
	}
	t.Logf("stopped after %v", time.Since(start))
}

// TestStoppedErrorNames: a run stopped while converting its result is
// named as a run stopped inside the script is: the memory limit is a
// MemoryLimitError there too, not a TimeoutError.
func TestStoppedErrorNames(t *testing.T) {
	for code, want := range map[string]string{CodeMemoryLimit: "MemoryLimitError", CodeCanceled: "CanceledError", CodeScriptTimeout: "TimeoutError"} {
		r := &runner{}
		r.stopped.Store(&interruptReason{code, "m"})
		if se := r.stoppedError(); se.Name != want || se.Code != code {
			t.Errorf("%s: %+v, want name %s", code, se, want)
		}
	}
}

// TestWatchdogsShareSamples: runs side by side in one process (restls
// test's cases) take their watchdog's samples from one read of the
// process's memory per memoryFresh, not one read each; and the watchdog
// still stops a script (TestMemoryLimitInterruptsTheScript).
func TestWatchdogsShareSamples(t *testing.T) {
	reads := 0
	readMemory = func() int64 { reads++; return 1 << 30 }
	t.Cleanup(func() { readMemory = processMemory })
	memorySample.mu.Lock()
	memorySample.at = time.Time{}
	memorySample.mu.Unlock()
	start := time.Now()
	var stops []func()
	for range 50 {
		stops = append(stops, watchMemory(64<<20, func(string) {}, nil))
	}
	for _, stop := range stops {
		stop()
	}
	// At most one read per memoryFresh that passed (the loop is fast:
	// usually one), against 50 before.
	if max := int(time.Since(start)/memoryFresh) + 1; reads == 0 || reads > max {
		t.Errorf("50 watchdogs started within %v read the process's memory %d times, want at most %d", time.Since(start), reads, max)
	}
}
