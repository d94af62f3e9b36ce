package isolate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/restls/restls/config"
	"github.com/restls/restls/runtime/dryrun"
)

// TestMain makes this test binary a stand-in for restls when
// ISOLATE_TEST_CHILD names what it should do.
func TestMain(m *testing.M) {
	switch os.Getenv("ISOLATE_TEST_CHILD") {
	case "":
		os.Exit(m.Run())
	case "child": // the real child, as cmd/restls starts it
		if len(os.Args) != 2 || os.Args[1] != ChildArg {
			fmt.Fprintf(os.Stderr, "child started with %q", os.Args[1:])
			os.Exit(3)
		}
		os.Exit(ChildMain(os.Stdin, os.Stdout, os.Stderr))
	case "echo": // return the request and command line a child is given
		var req ChildRequest
		err := json.NewDecoder(os.Stdin).Decode(&req)
		out, _ := json.Marshal(map[string]any{"request": req, "err": fmt.Sprint(err), "args": os.Args[1:]})
		fmt.Printf(`{"result":{"result":%s,"error":null,"calls":[],"logs":[]}}`, out)
		os.Exit(0)
	case "crash":
		fmt.Fprintln(os.Stderr, "fatal error: concurrent map writes")
		os.Exit(2)
	case "oom":
		fmt.Fprintln(os.Stderr, "fatal error: runtime: out of memory")
		os.Exit(2)
	case "garbage": // exit 0 with something that is not a result
		fmt.Print(`{"result":`)
		os.Exit(0)
	case "block":
		select {}
	case "big": // a 100 MB result
		chunk := strings.Repeat("x", 1<<20)
		fmt.Print(`{"result":"`)
		for range 100 {
			fmt.Print(chunk)
		}
		fmt.Print(`","error":null,"calls":[],"logs":[]}`)
		os.Exit(0)
	case "hog": // grow resident memory until killed
		for {
			b := make([]byte, 8<<20)
			for i := range b {
				b[i] = 1
			}
			hogged = append(hogged, b) // reachable, so the collector keeps it
		}
	}
}

// hogged holds what the "hog" child allocates.
var hogged [][]byte

func newTestRunner(t *testing.T, mode string, opts Options) *Runner {
	t.Helper()
	t.Setenv("ISOLATE_TEST_CHILD", mode)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	opts.Executable = exe
	return New(opts)
}

// TestChildRequest: the child is started with ChildArg alone and reads
// everything else (script, input, sources, limits) as one typed request
// on stdin; nothing is on its command line.
func TestChildRequest(t *testing.T) {
	r := newTestRunner(t, "echo", Options{MaxMemory: 64 << 20, Timeout: 3 * time.Second})
	src := config.Sources{ConfigRoot: "/cfg", Properties: []string{"a.yml", "b.yml"}}
	res, err := r.Run(context.Background(), Request{Text: "return secretish;", Kind: config.ScriptTask, Input: []byte(`{"a":1}`),
		Sources: src, MockFile: "/ws/o.mock.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Request ChildRequest
		Err     string
		Args    []string
	}
	if err := json.Unmarshal(res.Result, &got); err != nil {
		t.Fatal(err)
	}
	want := ChildRequest{Sources: src, Kind: config.ScriptTask, Text: "return secretish;", Input: json.RawMessage(`{"a":1}`),
		MockFile: "/ws/o.mock.yaml", Limits: Limits{Timeout: 3 * time.Second, MaxMemory: 64 << 20, MaxResult: MaxResult}}
	if diff := cmp.Diff(want, got.Request, cmpopts.IgnoreUnexported(ChildRequest{})); diff != "" || got.Err != "<nil>" || !slices.Equal(got.Args, []string{ChildArg}) {
		t.Fatalf("child args %q, request (-want +got):\n%s\n%s", got.Args, diff, got.Err)
	}
	if res.Mode != ModeMock {
		t.Errorf("mode %q, want %q", res.Mode, ModeMock)
	}
}

func TestChildEndsWithoutResult(t *testing.T) {
	for mode, code := range map[string]string{"crash": CodeRunnerCrashed, "oom": "memory-limit", "garbage": CodeRunnerCrashed, "hog": "memory-limit"} {
		t.Run(mode, func(t *testing.T) {
			r := newTestRunner(t, mode, Options{MaxMemory: 32 << 20})
			res, err := r.Run(context.Background(), Request{Text: "1", RecordFile: "/ws/r.mock.yaml"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Error == nil || res.Error.Code != code || res.Mode != ModeRecord {
				t.Fatalf("result %s, want code %s and mode record", show(res), code)
			}
		})
	}
}

func show(res *dryrun.Result) string {
	raw, _ := json.Marshal(res)
	return string(raw)
}

func TestWallClockKillsTheChild(t *testing.T) {
	r := newTestRunner(t, "block", Options{Timeout: time.Millisecond})
	r.grace = 50 * time.Millisecond // the child never ends: only the supervisor's kill does
	start := time.Now()
	res, err := r.Run(context.Background(), Request{Text: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Error == nil || res.Error.Code != "script-timeout" {
		t.Fatalf("result %s", show(res))
	}
	if took := time.Since(start); took > r.grace+5*time.Second {
		t.Errorf("took %v", took)
	}
}

// TestBusyAndCancel: a run past MaxRuns is refused with ErrBusy; a
// canceled run's child is killed and waited for, and its slot is free again.
func TestBusyAndCancel(t *testing.T) {
	r := newTestRunner(t, "block", Options{MaxRuns: 1})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := r.Run(ctx, Request{Text: "1"})
		done <- err
	}()
	// The first run holds the slot once the semaphore is taken.
	for len(r.sem) == 0 {
		time.Sleep(time.Millisecond) // no event for "acquired"; the channel length is it
	}
	if _, err := r.Run(context.Background(), Request{Text: "1"}); !errors.Is(err, ErrBusy) {
		t.Fatalf("second run: %v, want ErrBusy", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled run: %v", err)
	}
	if len(r.sem) != 0 {
		t.Fatal("the slot was not given back")
	}
}

// TestRemoteRegistryWithoutServices: a registryUrl snapshot whose backend
// has not answered has nothing to run against.
func TestRemoteRegistryWithoutServices(t *testing.T) {
	r := New(Options{})
	remote := config.Sources{RegistryURL: "http://127.0.0.1:1"}
	for _, reg := range []*config.Registry{nil, config.FailedRegistry(config.ScriptService)} {
		if _, err := r.Run(context.Background(), Request{Sources: remote, Registry: reg}); !errors.Is(err, ErrRemoteRegistry) {
			t.Fatalf("registry %v: err %v", reg, err)
		}
	}
}

// TestSuperviseLeavesNoProcess: a child killed for cancellation is reaped.
func TestSuperviseLeavesNoProcess(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = ChildAttr(true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, err := Supervise(ctx, cmd, 0, 0)
	if err != nil || !out.Canceled || out.State == nil || out.State.Exited() {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", cmd.Process.Pid)); err == nil {
		t.Errorf("process %d still exists (a zombie?)", cmd.Process.Pid)
	}
}

// Issue 23: two concurrent runs returning 100 MB each held 530 MiB in the
// server. What the server keeps of a child's output is capped at
// MaxResult, and a run past it ends with a clear error.
func TestResultSizeIsBounded(t *testing.T) {
	r := newTestRunner(t, "big", Options{MaxRuns: 2})
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	runtime.GC()
	before := heap()
	stop := make(chan struct{})
	peak := make(chan uint64, 1)
	go func() {
		var p uint64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				peak <- p
				return
			case <-tick.C:
				p = max(p, heap())
			}
		}
	}()
	var wg sync.WaitGroup
	results := make([]*dryrun.Result, 2)
	for i := range 2 {
		wg.Go(func() {
			res, err := r.Run(context.Background(), Request{Text: "1"})
			if err != nil {
				t.Error(err)
			}
			results[i] = res
		})
	}
	wg.Wait()
	close(stop)
	grew := int64(<-peak) - int64(before)
	t.Logf("heap peak grew by %d MiB for two 100 MB results", grew>>20)
	if limit := int64(96 << 20); grew > limit {
		t.Errorf("heap grew by %d MiB, want under %d MiB", grew>>20, limit>>20)
	}
	for _, res := range results {
		if raw := show(res); res.Error == nil || res.Error.Code != CodeResultTooLarge || !strings.Contains(res.Error.Message, "more than 16MiB of JSON") || len(raw) > 4096 {
			t.Errorf("result %.300s", raw)
		}
	}
}
