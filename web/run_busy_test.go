package web

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// TestRunBusyIs429: a runner at its limit makes POST /v1/run answer 429
// with Retry-After, whatever else its error says.
func TestRunBusyIs429(t *testing.T) {
	t.Parallel()
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.Runner = func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
			return nil, fmt.Errorf("%w: two runs already go", workspace.ErrRunnerBusy)
		}
	})
	res, body := post(t, hs.URL+"/v1/run", `{"text":"return 1"}`, map[string]string{"Authorization": "Bearer " + s.key})
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != retryAfterBusy {
		t.Fatalf("POST /v1/run = %d (Retry-After %q) %s", res.StatusCode, res.Header.Get("Retry-After"), body)
	}
}
