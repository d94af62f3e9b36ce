package isolate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/restls/restls/config"
)

// TestMain makes this test binary a stand-in for restls when
// ISOLATE_TEST_CHILD names what it should do.
func TestMain(m *testing.M) {
	switch os.Getenv("ISOLATE_TEST_CHILD") {
	case "":
		os.Exit(m.Run())
	case "echo": // print what a child is given, as the result
		script, _ := io.ReadAll(os.Stdin)
		input, _ := os.ReadFile("/dev/fd/3")
		out, _ := json.Marshal(map[string]any{"script": string(script), "input": string(input), "args": os.Args[1:], "supervised": os.Getenv(EnvSupervised)})
		fmt.Printf(`{"result":%s,"error":null,"calls":[],"logs":[]}`, out)
		os.Exit(0)
	case "mock": // print the fixtures file the child is given
		var file string
		for i, a := range os.Args {
			if a == "--mock" && i+1 < len(os.Args) {
				file = os.Args[i+1]
			}
		}
		data, err := os.ReadFile(file)
		st, _ := os.Stat(file)
		out, _ := json.Marshal(map[string]any{"mock": string(data), "err": fmt.Sprint(err), "regular": st != nil && st.Mode().IsRegular(), "file": file})
		fmt.Printf(`{"result":%s,"error":null,"calls":[],"logs":[]}`, out)
		os.Exit(0)
	case "crash":
		fmt.Fprintln(os.Stderr, "fatal error: concurrent map writes")
		os.Exit(2)
	case "oom":
		fmt.Fprintln(os.Stderr, "fatal error: runtime: out of memory")
		os.Exit(2)
	case "usage":
		fmt.Fprintln(os.Stderr, "restls run: no service configuration found: pass --config-root")
		os.Exit(2)
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

type result struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Name, Code, Message string
	} `json:"error"`
}

func decode(t *testing.T, raw json.RawMessage) result {
	t.Helper()
	var r result
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("not a run result: %v\n%s", err, raw)
	}
	return r
}

// TestChildCommandLine: the script goes on stdin and context.input on a
// pipe; only the configuration sources and limits are on the command line.
func TestChildCommandLine(t *testing.T) {
	r := newTestRunner(t, "echo", Options{MaxMemory: 64 << 20, Timeout: 3 * time.Second})
	raw, err := r.Run(context.Background(), Request{Text: "return secretish;", Kind: config.ScriptTask, Input: []byte(`{"a":1}`),
		Sources: config.Sources{ConfigRoot: "/cfg", Properties: []string{"a.yml", "b.yml"}}})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Script, Input, Supervised string
		Args                      []string
	}
	if err := json.Unmarshal(decode(t, raw).Result, &got); err != nil {
		t.Fatal(err)
	}
	want := "run --json --kind scriptTask --timeout 3s --max-memory 67108864 --config-root=/cfg --properties=a.yml --properties=b.yml --input /dev/fd/3 -"
	if strings.Join(got.Args, " ") != want || got.Script != "return secretish;" || got.Input != `{"a":1}` || got.Supervised != "1" {
		t.Fatalf("child got %+v\nwant args %s", got, want)
	}
}

func TestChildEndsWithoutResult(t *testing.T) {
	for mode, code := range map[string]string{"crash": CodeRunnerCrashed, "oom": "memory-limit", "usage": CodeRunnerFailed, "hog": "memory-limit"} {
		t.Run(mode, func(t *testing.T) {
			r := newTestRunner(t, mode, Options{MaxMemory: 32 << 20})
			raw, err := r.Run(context.Background(), Request{Text: "1"})
			if err != nil {
				t.Fatal(err)
			}
			if res := decode(t, raw); res.Error == nil || res.Error.Code != code {
				t.Fatalf("result %s, want code %s", raw, code)
			}
		})
	}
	r := newTestRunner(t, "usage", Options{})
	raw, _ := r.Run(context.Background(), Request{Text: "1"})
	if res := decode(t, raw); !strings.HasPrefix(res.Error.Message, "no service configuration found") {
		t.Errorf("a child's usage error should say what it said: %s", raw)
	}
}

func TestWallClockKillsTheChild(t *testing.T) {
	r := newTestRunner(t, "block", Options{Timeout: time.Millisecond})
	start := time.Now()
	raw, err := r.Run(context.Background(), Request{Text: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if res := decode(t, raw); res.Error == nil || res.Error.Code != "script-timeout" {
		t.Fatalf("result %s", raw)
	}
	if took := time.Since(start); took > grace+5*time.Second {
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

func TestRemoteRegistryIsRefused(t *testing.T) {
	r := New(Options{})
	if _, err := r.Run(context.Background(), Request{Sources: config.Sources{RegistryURL: "http://127.0.0.1:1"}}); !errors.Is(err, ErrRemoteRegistry) {
		t.Fatalf("err %v", err)
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

// TestChildGetsTheMock: inline fixtures reach the child as a private
// regular file (restls run --mock reads only regular files), removed when
// the run ends.
func TestChildGetsTheMock(t *testing.T) {
	r := newTestRunner(t, "mock", Options{})
	doc := "- serviceId: crm\n  method: GET\n  status: 200\n  body: {a: 1}\n"
	raw, err := r.Run(context.Background(), Request{Text: "1", Mock: []byte(doc)})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Mock, Err, File string
		Regular         bool
	}
	if err := json.Unmarshal(decode(t, raw).Result, &got); err != nil {
		t.Fatal(err)
	}
	if got.Mock != doc || got.Err != "<nil>" || !got.Regular {
		t.Fatalf("child got %+v", got)
	}
	if _, err := os.Stat(got.File); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the fixtures file %s outlived the run: %v", got.File, err)
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
	raws := make([]json.RawMessage, 2)
	for i := range 2 {
		wg.Go(func() {
			raw, err := r.Run(context.Background(), Request{Text: "1"})
			if err != nil {
				t.Error(err)
			}
			raws[i] = raw
		})
	}
	wg.Wait()
	close(stop)
	grew := int64(<-peak) - int64(before)
	t.Logf("heap peak grew by %d MiB for two 100 MB results", grew>>20)
	if limit := int64(96 << 20); grew > limit {
		t.Errorf("heap grew by %d MiB, want under %d MiB", grew>>20, limit>>20)
	}
	for _, raw := range raws {
		res := decode(t, raw)
		if res.Error == nil || res.Error.Code != CodeResultTooLarge || !strings.Contains(res.Error.Message, "more than 16MiB of JSON") || len(raw) > 4096 {
			t.Errorf("result %.300s", raw)
		}
	}
}
