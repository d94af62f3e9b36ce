package isolate

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/restls/restls/internal/goldentest"
	scriptrt "github.com/restls/restls/runtime"
)

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

	goldentest.Check(t, filepath.Join("testdata", "messages.golden"), b.String())
}
