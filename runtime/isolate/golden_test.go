package isolate

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	scriptrt "github.com/restls/restls/runtime"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestMessagesGolden: the text a user reads when a run's process ends
// without a result, or runs are busy.
func TestMessagesGolden(t *testing.T) {
	r := New(Options{MaxMemory: 256 << 20, Timeout: 30 * time.Second})
	var b bytes.Buffer
	show := func(title string, raw json.RawMessage) {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		out, _ := json.MarshalIndent(v, "", "  ")
		b.WriteString("-- " + title + " --\n")
		b.Write(out)
		b.WriteString("\n")
	}
	show("killed at the memory limit", r.result(Outcome{MemoryKilled: true}, nil, ""))
	show("killed at the time limit", r.result(Outcome{TimeKilled: true}, nil, ""))
	show("crashed", r.resultFor(Outcome{}, 2, "", nil, "fatal error: concurrent map writes"))
	show("killed by a signal", r.resultFor(Outcome{}, -1, "signal: segmentation fault", nil, ""))
	show("out of memory at the OS limit", r.resultFor(Outcome{}, 2, "", nil, "fatal error: out of memory allocating heap arena metadata"))
	show("usage error", r.resultFor(Outcome{}, 2, "", nil, "restls run: no service configuration found: pass --config-root"))
	b.WriteString("-- busy --\n" + ErrBusy.Error() + "\n")
	b.WriteString("-- remote registry --\n" + ErrRemoteRegistry.Error() + "\n")
	b.WriteString("-- watchdog --\n" + scriptrt.MemoryLimitMessage(512<<20) + "\n")

	path := filepath.Join("testdata", "messages.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal(want, b.Bytes()) {
		t.Errorf("messages differ from %s (run with -update to accept):\n%s", path, b.String())
	}
}
