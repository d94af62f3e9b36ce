package dap

import (
	godap "github.com/google/go-dap"

	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
)

// RunEvent is the event Options.ReportRuns sends after each run: its
// body a RunReport. restls serve reads it from its restls dap child for
// the audit, and passes it on to no client.
const RunEvent = "restlsRun"

// RunReport is what an audit keeps of a debug run: its result without
// the values (the kind, the mode, the error, each call's serviceId,
// method, URL, status, error code and time), or Failed, why it did not
// run.
type RunReport struct {
	Result *dryrun.Result `json:"result,omitempty"`
	Failed string         `json:"failed,omitempty"`
}

type runEvent struct {
	godap.Event
	Body RunReport `json:"body"`
}

// report sends the RunEvent of a run that returned res or failed with
// err.
func (s *session) report(res *dryrun.Result, err error) {
	var r RunReport
	switch {
	case err != nil:
		r.Failed = err.Error()
	case res != nil:
		out := &dryrun.Result{Kind: res.Kind, Mode: res.Mode, Error: res.Error, DurationMs: res.DurationMs, Calls: make([]*restclient.Call, 0, len(res.Calls))}
		for _, c := range res.Calls {
			out.Calls = append(out.Calls, &restclient.Call{ServiceID: c.ServiceID, Method: c.Method, URL: c.URL, Status: c.Status, ErrorCode: c.ErrorCode, DurationMs: c.DurationMs})
		}
		r.Result = out
	}
	s.send(&runEvent{Event: s.newEvent(RunEvent), Body: r})
}
