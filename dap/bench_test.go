package dap

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/workspace"
)

// BenchmarkFirstBreakpoint is issue 35's "first breakpoint hit under
// 300 ms after launch": a session over pipes with the engine restls dap
// runs (in process, the project of testdata/project) launches
// scripts/debug.js with a breakpoint in its function, and the time from
// the launch request to the stopped event is reported as ms-to-stop
// (each op is the whole session, disconnect included). The process's
// own start is not in it: TestDAPBreakpointsAndSteps logs that.
func BenchmarkFirstBreakpoint(b *testing.B) {
	root, err := filepath.Abs(filepath.Join("testdata", "project"))
	if err != nil {
		b.Fatal(err)
	}
	sess := workspace.NewSession(workspace.SessionOptions{Sources: config.Sources{ConfigRoot: filepath.Join(root, "config")}, Recorded: true})
	eng := engine.New(engine.Options{Isolation: engine.InProcess, MaxRuns: 1})
	script := filepath.Join(root, "scripts", "debug.js")
	var total time.Duration
	for b.Loop() {
		c := servePipes(b, Options{Run: eng.Run, Snapshot: func(_ context.Context, env string) (workspace.Snapshot, error) {
			return sess.SnapshotIn(env)
		}})
		c.request("initialize", map[string]any{"adapterID": "restls"})
		c.response("initialize")
		start := time.Now()
		c.request("launch", map[string]any{"program": script, "input": map[string]any{"id": "42"}})
		c.response("launch")
		c.request("setBreakpoints", map[string]any{"source": map[string]any{"path": script}, "breakpoints": []map[string]any{{"line": 5}}})
		c.response("setBreakpoints")
		c.request("configurationDone", nil)
		c.until("the stop", func(m godap.Message) bool { _, ok := m.(*godap.StoppedEvent); return ok })
		total += time.Since(start)
		c.request("disconnect", nil)
		c.response("disconnect")
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-stop")
}
