package web

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// TestRunKindFromTheScript: POST /v1/run runs the script as the kind rule
// of every other surface decides: its first-line "// restls-kind: K",
// else "kind" (the designer's kind selector, a kind map to its /lsp
// session, so the run agrees with the hints), else scriptService.
func TestRunKindFromTheScript(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got config.Kind
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.Runner = func(ctx context.Context, req workspace.RunRequest) (*dryrun.Result, error) {
			mu.Lock()
			got = req.Kind
			mu.Unlock()
			return &dryrun.Result{Result: []byte("1")}, nil
		}
	})
	for _, tc := range []struct {
		body string
		want config.Kind
	}{
		{`{"text":"return 1"}`, config.ScriptService},
		{`{"text":"// restls-kind: scriptTask\nreturn 1"}`, config.ScriptTask},
		{`{"text":"return 1", "kind": "validationScript"}`, config.ValidationScript},
		{`{"text":"// restls-kind: scriptTask\nreturn 1", "kind": "validationScript"}`, config.ScriptTask},
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
