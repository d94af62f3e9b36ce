package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/restls/restls/dap"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// TestRunOutcome: the one function that names a run's outcome answers
// every result and error, a run with neither included (it panicked).
func TestRunOutcome(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	live := context.Background()
	threw := &dryrun.Result{Error: &dryrun.ScriptError{Name: "Error", Message: "no"}}
	for _, tc := range []struct {
		name string
		ctx  context.Context
		res  *dryrun.Result
		err  error
		want string
	}{
		{"neither result nor error", live, nil, nil, "failed"},
		{"neither, canceled context", canceled, nil, nil, "failed"},
		{"returned", live, &dryrun.Result{}, nil, "returned"},
		{"threw", live, threw, nil, "threw"},
		{"refused", live, nil, &RefusedError{Code: refusedRole, Reason: "no"}, "refused"},
		{"busy", live, nil, engine.ErrBusy, "busy"},
		{"canceled context", canceled, nil, errors.New("stopped"), "canceled"},
		{"canceled error", live, nil, fmt.Errorf("run: %w", context.Canceled), "canceled"},
		{"failed", live, nil, errors.New("the child crashed"), "failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := runOutcome(tc.ctx, tc.res, tc.err); got != tc.want {
				t.Errorf("runOutcome = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDebugAuditOutcome: a designer debug session's audit line names
// the outcome runOutcome gives the run its child reported, as a dry
// run's: a report with neither a result nor a failure is a failed run
// (it was audited canceled), and no report at all a canceled one.
func TestDebugAuditOutcome(t *testing.T) {
	threw := &dryrun.Result{Error: &dryrun.ScriptError{Name: "Error", Message: "no"}}
	for _, tc := range []struct {
		name string
		rep  *dap.RunReport
		want string
	}{
		{"no report", nil, "canceled"},
		{"empty report", &dap.RunReport{}, "failed"},
		{"failed", &dap.RunReport{Failed: "no configuration"}, "failed"},
		{"returned", &dap.RunReport{Result: &dryrun.Result{}}, "returned"},
		{"threw", &dap.RunReport{Result: threw}, "threw"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf := &syncWriter{&sync.Mutex{}, &bytes.Buffer{}}
			a, err := OpenAudit(AuditOptions{File: "-", Stderr: buf})
			if err != nil {
				t.Fatal(err)
			}
			g := NewGate(GateOptions{AllowRun: true, Audit: a})
			r := &dapRelay{s: &Server{gate: g}, start: time.Now(), report: tc.rep,
				req: engine.Request{Name: "debug.js", Text: "return 1"}, snap: workspace.Snapshot{}}
			r.audit()
			var rec AuditRecord
			if err := json.Unmarshal([]byte(strings.TrimSpace(buf.String())), &rec); err != nil {
				t.Fatalf("audit line %q: %v", buf.String(), err)
			}
			if rec.Outcome != tc.want || rec.Via != "dap" {
				t.Errorf("audit outcome %q via %q, want %q via dap", rec.Outcome, rec.Via, tc.want)
			}
			if res, err := reportedRun(tc.rep); runOutcome(context.Background(), res, err) != rec.Outcome {
				t.Errorf("the audit says %q where runOutcome of the same run says %q", rec.Outcome, runOutcome(context.Background(), res, err))
			}
		})
	}
}
