package web

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/lsp"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/workspace"
)

// TestRunChecksAnswers: the designer's POST /v1/run holds each call's
// answer to the server's API descriptions (--openapi), as the editor's
// runs and restls run do: a body that breaks the schema gets a contract
// note beside the call, with its JSON path and rule, and the run still
// answers 200.
func TestRunChecksAnswers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("application.yml", "scriptservice:\n  api:\n    - serviceId: shop\n      url: https://shop.example.test/api\n")
	desc := write("shop.yaml", `openapi: 3.0.3
info: {title: Shop, version: "1"}
paths:
  /orders/{id}:
    get:
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: An order.
          content:
            application/json:
              schema:
                type: object
                required: [id]
                properties:
                  id: {type: integer}
`)
	log := zaptest.NewLogger(t)
	ls := lsp.NewServer(lsp.Options{Sources: config.Sources{ConfigRoot: dir}, Logger: log, PollInterval: -1,
		OpenAPI: []workspace.APISource{{ServiceID: "shop", Location: desc}}})
	s, err := New(Options{LSP: ls, Logger: log, Version: "test",
		Runner: engine.New(engine.Options{Isolation: engine.InProcess}).Run})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() {
		s.Close()
		hs.Close()
	})
	res, body := post(t, hs.URL+"/v1/run", `{"text":"api.rest.v1.get('shop', {pathParams: ['orders', '7']}, {})",`+
		`"mock":[{"serviceId":"shop","method":"GET","path":"orders/7","status":200,"headers":{"content-type":"application/json"},"body":{"id":"seven"}}]}`, map[string]string{"Authorization": "Bearer " + s.key})
	if res.StatusCode != 200 {
		t.Fatalf("POST /v1/run = %d %s", res.StatusCode, body)
	}
	var got struct {
		Calls []struct {
			Contract []restclient.ContractNote `json:"contract"`
		} `json:"calls"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil || len(got.Calls) != 1 {
		t.Fatalf("answer %s: %v", body, err)
	}
	notes := got.Calls[0].Contract
	if len(notes) != 1 || notes[0].Path != "/id" || notes[0].Rule != "type" || notes[0].Operation != "GET /orders/{id}" {
		t.Errorf("contract notes = %+v, want one type note at /id of GET /orders/{id}", notes)
	}
}
