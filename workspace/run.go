package workspace

import (
	"errors"
)

// ErrRunnerBusy is what a runner's error wraps when as many runs as it
// allows are already going; restls.runScript answers RequestFailed and
// POST /v1/run 429, both saying to try again.
var ErrRunnerBusy = errors.New("dry runs are busy")
