package lsp

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/workspace"
)

// TestRunScriptContract (issue 27): a dry run's calls carry the contract
// notes of their answers against the session's descriptions, as restls
// run's do; a call no operation documents has none.
func TestRunScriptContract(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config/application.yml": "scriptservice:\n  api:\n    - serviceId: shop\n      url: https://shop.example.test/api\n",
		"shop.json":              actionDescription,
	})
	src := []workspace.APISource{{ServiceID: "shop", Location: filepath.Join(dir, "shop.json")}}
	// The calls answered by fixtures, run by the real engine in this
	// process: it checks the answers, against the session's descriptions.
	writeFiles(t, dir, map[string]string{"orders.mock.yaml": `
- {serviceId: shop, method: GET, path: orders/1, status: 200, headers: {content-type: application/json}, body: {id: 0, state: lost}}
- {serviceId: shop, method: GET, path: orders/2, status: 500}
- {serviceId: shop, method: GET, path: carts/2, status: 500}
`})
	script := `api.rest.v1.get("shop", {pathParams: ["orders", "1"]}, {});
try { api.rest.v1.get("shop", {pathParams: ["orders", "2"]}, {}); } catch (e) {}
try { api.rest.v1.get("shop", {pathParams: ["carts", "2"]}, {}); } catch (e) {}
return 1;`
	eng := engine.New(engine.Options{Isolation: engine.InProcess})
	srv := newTestServer(t, Options{PollInterval: -1, Runner: eng.Run, Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}, OpenAPI: src})
	srv.ws.AnswerDescriptions().SetDelay(0)
	srv.ws.Descriptions().SetDelay(0)
	c := connect(t, srv, clientOptions{root: dir})
	u := uri.File(filepath.Join(dir, "orders.js"))
	c.open(u, script)
	t.Cleanup(func() { _ = srv.ws.Descriptions().Wait(context.Background(), src) })
	var res struct {
		Calls []struct {
			Contract []struct {
				Operation string `json:"operation"`
				Path      string `json:"path"`
				Rule      string `json:"rule"`
			} `json:"contract"`
		} `json:"calls"`
	}
	if err := c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": CommandRunScript, "arguments": []any{map[string]any{"uri": string(u), "mock": filepath.Join(dir, "orders.mock.yaml")}}}, &res); err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, call := range res.Calls {
		for _, n := range call.Contract {
			got = append(got, string(rune('1'+i))+" "+n.Operation+" "+n.Path+" "+n.Rule)
		}
	}
	want := "1 GET /orders/{id} /id minimum|1 GET /orders/{id} /state enum|2 GET /orders/{id}  status"
	if j := strings.Join(got, "|"); j != want {
		t.Errorf("contract notes %q\nwant %q", j, want)
	}
}
