package web

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/lsp"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// TestDesignerSelectorIsTheKind (issue 34): the designer's "Script kind"
// selector is the script's kind on both of its surfaces, over a
// "// restls-kind:" line that says otherwise. /lsp gets the selector as
// the page sends it (scriptKinds globs with explicitKinds: true) and gives
// the selector kind's hints (archive-cases, a scriptTask serviceId, is not
// flagged, the directive is said to be overruled; restls/documentInfo
// says the kind is explicit); POST /v1/run
// gets it as "kind" and runs the script as that kind.
func TestDesignerSelectorIsTheKind(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var ran config.Kind
	eng := engine.New(engine.Options{Isolation: engine.InProcess})
	s, hs := newTestServer(t, config.Sources{ConfigRoot: exampleRoot}, func(o *Options) {
		o.Runner = func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
			res, err := eng.Run(ctx, snap, req)
			if err == nil {
				mu.Lock()
				ran = res.Kind
				mu.Unlock()
			}
			return res, err
		}
	})
	ctx := testCtx(t)
	c, err := dialLSP(t, ctx, wsURL(hs)+"?access_token="+s.key, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	// What web/designer/src/index.js sends.
	globs := map[string]string{}
	for _, k := range []config.Kind{config.ScriptService, config.ScriptTask, config.ValidationScript} {
		globs["**/designer/"+string(k)+"/**"] = string(k)
	}
	var res json.RawMessage
	if err := c.call(ctx, "initialize", map[string]any{"processId": nil, "rootUri": "file:///designer", "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"scriptKinds": globs, "explicitKinds": true}}, &res); err != nil {
		t.Fatal(err)
	}
	if err := c.conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	const uri = "file:///designer/scriptTask/script.js"
	// The directive says scriptService, the selector scriptTask.
	text := "// restls-kind: scriptService\nvar a = api.rest.v1.get(\"archive-cases\", {});\nvar b = api.rest.v1.get(\"no-such-service\", {});\n"
	if err := c.conn.Notify(ctx, "textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": uri, "languageId": "javascript", "version": 1, "text": text},
	}); err != nil {
		t.Fatal(err)
	}
	// The diagnostics that judged the serviceIds (no-such-service is
	// unknown in every kind): archive-cases must not be among them.
	n, err := c.waitNote(ctx, func(n note) bool {
		return n.method == "textDocument/publishDiagnostics" && strings.Contains(string(n.params), uri) &&
			strings.Contains(string(n.params), "no-such-service")
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(n.params), "archive-cases") {
		t.Errorf("/lsp judged the script as its directive's kind, not the selector's (scriptTask): %s", n.params)
	}
	if !strings.Contains(string(n.params), `"kind-directive-overruled"`) {
		t.Errorf("/lsp does not say the directive is overruled by the selector: %s", n.params)
	}
	ids, err := c.complete(ctx, uri, 1, len(`var a = api.rest.v1.get("`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(ids, "archive-cases") || slices.Contains(ids, "crm-customers") {
		t.Errorf("serviceId completion = %q, want scriptTask's (archive-cases, not crm-customers)", ids)
	}
	var info struct {
		Kind config.KindDecision `json:"kind"`
	}
	if err := c.call(ctx, lsp.MethodDocumentInfo, map[string]any{"textDocument": map[string]any{"uri": uri}}, &info); err != nil {
		t.Fatal(err)
	}
	if info.Kind.Kind != config.ScriptTask || info.Kind.Source != config.KindFromExplicit {
		t.Errorf("%s kind = %+v, want scriptTask, explicit", lsp.MethodDocumentInfo, info.Kind)
	}

	body, _ := json.Marshal(map[string]any{"text": text, "kind": "scriptTask"})
	hres, out := post(t, hs.URL+"/v1/run", string(body), map[string]string{"Authorization": "Bearer " + s.key})
	mu.Lock()
	k := ran
	mu.Unlock()
	if hres.StatusCode != http.StatusOK || k != config.ScriptTask {
		t.Errorf("POST /v1/run = %d %s, ran as %s; want scriptTask", hres.StatusCode, out, k)
	}
}
