package web

import (
	"context"

	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// WrapFaults is Wrap for the reruns of a fault exploration (the editor's
// and the designer's restls.exploreFaults): each rerun is a run the gate
// judges, a mock run (parsed fixtures answer every call: a mocker may
// explore, a viewer may not), audited with via "faults".
func (g *Gate) WrapFaults(run Runner) Runner {
	gated := g.Wrap(run)
	if gated == nil {
		return nil
	}
	return func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
		return gated(context.WithValue(ctx, viaKey{}, "faults"), snap, req)
	}
}
