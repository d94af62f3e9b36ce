package cursortest

import (
	"runtime"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		src, text string
		off       int
	}{
		{"|abc", "abc", 0},
		{"ab|c", "abc", 2},
		{"é|", "é", 2},
		{"abc|", "abc", 3},
	} {
		if text, off := Split(t, tc.src); text != tc.text || off != tc.off {
			t.Errorf("Split(%q) = %q, %d; want %q, %d", tc.src, text, off, tc.text, tc.off)
		}
	}
}

// TestSplitFails: no marker and two markers fail the test.
func TestSplitFails(t *testing.T) {
	for _, src := range []string{"abc", "a|b|c"} {
		ft := &fakeT{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			Split(ft, src)
		}()
		<-done
		if !ft.failed {
			t.Errorf("Split(%q) did not fail", src)
		}
	}
}

// fakeT records Fatalf and ends its goroutine as testing.T does.
type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Helper() {}

func (f *fakeT) Fatalf(string, ...any) {
	f.failed = true
	runtime.Goexit()
}
