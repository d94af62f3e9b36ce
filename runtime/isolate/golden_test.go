package isolate

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/restls/restls/internal/goldentest"
	scriptrt "github.com/restls/restls/runtime"
	"github.com/restls/restls/runtime/dryrun"
)

// TestMessagesGolden: the text a user reads when a run's process ends
// without a result, or runs are busy.
func TestMessagesGolden(t *testing.T) {
	r := New(Options{MaxMemory: 256 << 20, Timeout: 30 * time.Second})
	var b bytes.Buffer
	show := func(title string, res *dryrun.Result) {
		raw, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		var v any // members sorted, as the golden file has always had them
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		out, _ := json.MarshalIndent(v, "", "  ")
		b.WriteString("-- " + title + " --\n")
		b.Write(out)
		b.WriteString("\n")
	}
	lim := Limits{MaxMemory: 256 << 20, Timeout: 30 * time.Second}
	show("killed at the memory limit", r.result(Outcome{MemoryKilled: true}, lim, nil, nil).Result)
	show("killed at the time limit", r.result(Outcome{TimeKilled: true}, lim, nil, nil).Result)
	show("crashed", r.resultFor(Outcome{}, lim, 2, "", nil, []byte("fatal error: concurrent map writes")).Result)
	show("killed by a signal", r.resultFor(Outcome{}, lim, -1, "signal: segmentation fault", nil, nil).Result)
	show("out of memory at the OS limit", r.resultFor(Outcome{}, lim, 2, "", nil, []byte("fatal error: out of memory allocating heap arena metadata")).Result)
	show("no configuration", failed(noConfiguration).Result)
	show("result too large", tooLarge(MaxResult))
	b.WriteString("-- busy --\n" + ErrBusy.Error() + "\n")
	b.WriteString("-- remote registry --\n" + ErrRemoteRegistry.Error() + "\n")
	b.WriteString("-- watchdog --\n" + scriptrt.MemoryLimitMessage(512<<20) + "\n")

	goldentest.Check(t, filepath.Join("testdata", "messages.golden"), b.String())
}
