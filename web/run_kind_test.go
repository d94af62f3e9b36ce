package web

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// TestRunKindFromTheScript: POST /v1/run runs the script as every other
// surface decides its kind (the engine's rule): "kind" when the request
// names one (the designer's kind selector), as restls run --kind and
// restls.runScript's kind win; else its first-line "// restls-kind: K";
// else scriptService.
func TestRunKindFromTheScript(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got config.Kind
	eng := engine.New(engine.Options{Isolation: engine.InProcess})
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.Runner = func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
			res, err := eng.Run(ctx, snap, req)
			if err == nil {
				mu.Lock()
				got = res.Kind
				mu.Unlock()
			}
			return res, err
		}
	})
	for _, tc := range []struct {
		body string
		want config.Kind
	}{
		{`{"text":"return 1"}`, config.ScriptService},
		{`{"text":"// restls-kind: scriptTask\nreturn 1"}`, config.ScriptTask},
		{`{"text":"return 1", "kind": "validationScript"}`, config.ValidationScript},
		{`{"text":"// restls-kind: scriptTask\nreturn 1", "kind": "validationScript"}`, config.ValidationScript},
	} {
		res, body := post(t, hs.URL+"/v1/run", tc.body, map[string]string{"Authorization": "Bearer " + s.key})
		mu.Lock()
		k := got
		mu.Unlock()
		if res.StatusCode != http.StatusOK || k != tc.want {
			t.Errorf("POST /v1/run %s = %d %s, ran as %s; want %s", tc.body, res.StatusCode, body, k, tc.want)
		}
	}
}
