package isolate

import (
	"context"
	"os/exec"
	"time"

	"github.com/restls/restls/runtime/dryrun"
)

// Run is RunChild's result alone, as most tests read it.
func (r *Runner) Run(ctx context.Context, req Request) (*dryrun.Result, error) {
	res, err := r.RunChild(ctx, req)
	if err != nil {
		return nil, err
	}
	return res.Result, nil
}

// Supervise is supervise without interrupt.
func Supervise(ctx context.Context, cmd *exec.Cmd, maxMemory int64, wall time.Duration) (Outcome, error) {
	return supervise(ctx, cmd, maxMemory, wall, false)
}
