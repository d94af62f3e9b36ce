package lsp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

const actionDescription = `{"openapi":"3.0.3","info":{"title":"Shop","version":"1"},"paths":{"/orders/{id}":{"get":{
	"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","required":["id","state"],"properties":{
		"id":{"type":"integer","minimum":1},"state":{"type":"string","enum":["open","shipped"]}}}}}}}}}}}`

// fixtureActionsAt returns the raw code actions titled "Add a fixture
// for this call" at pos.
func fixtureActionsAt(t testing.TB, c *testClient, u uri.URI, pos protocol.Position) []map[string]any {
	t.Helper()
	var raw []json.RawMessage
	if err := c.call(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: protocol.Range{Start: pos, End: pos}}, &raw); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, r := range raw {
		var a map[string]any
		if err := json.Unmarshal(r, &a); err != nil {
			t.Fatal(err)
		}
		if a["title"] == addFixtureTitle {
			out = append(out, a)
		}
	}
	return out
}

// TestAddFixtureAction (issue 27): on a call no fixture answers, "Add a
// fixture for this call" creates NAME.mock.yaml with the fixture built
// from the description; once the file answers the call, the action is
// gone; a call whose serviceId has no description gets none; with the
// file there, the action edits it, keeping what it holds.
func TestAddFixtureAction(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config/application.yml": "scriptservice:\n  api:\n    - serviceId: shop\n      url: https://shop.example.test/api\n    - serviceId: other\n      url: https://other.example.test\n",
		"shop.json":              actionDescription,
	})
	src := []workspace.APISource{{ServiceID: "shop", Location: filepath.Join(dir, "shop.json")}}
	srv := newTestServer(t, Options{PollInterval: -1, Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}, OpenAPI: src})
	srv.answerAPIs.SetDelay(0)
	srv.apis.SetDelay(0) // nothing loads after the test
	c := connect(t, srv, clientOptions{root: dir})
	script := filepath.Join(dir, "orders.js")
	u := uri.File(script)
	text := "var id = context.input.id;\nvar o = api.rest.v1.get(\"shop\", {pathParams: [\"orders\", id]}, {});\napi.rest.v1.get(\"other\", {pathParams: [\"x\"]}, {});\n"
	c.open(u, text)
	for _, store := range []*workspace.Descriptions{srv.answerAPIs, srv.apis} {
		if err := store.Wait(context.Background(), src); err != nil {
			t.Fatal(err)
		}
	}
	m := newMapper(text)
	onShop := m.position(strings.Index(text, "pathParams"))
	acts := fixtureActionsAt(t, c, u, onShop)
	if len(acts) != 1 {
		t.Fatalf("actions %v, want one", acts)
	}
	edit, _ := json.Marshal(acts[0]["edit"])
	var we struct {
		DocumentChanges []struct {
			Kind, URI    string
			TextDocument struct{ URI string }
			Edits        []struct{ NewText string }
		}
	}
	if err := json.Unmarshal(edit, &we); err != nil {
		t.Fatal(err)
	}
	mock := uri.File(filepath.Join(dir, "orders.mock.yaml"))
	if len(we.DocumentChanges) != 2 || we.DocumentChanges[0].Kind != "create" || we.DocumentChanges[0].URI != string(mock) ||
		we.DocumentChanges[1].TextDocument.URI != string(mock) || len(we.DocumentChanges[1].Edits) != 1 {
		t.Fatalf("edit %s", edit)
	}
	created := we.DocumentChanges[1].Edits[0].NewText
	if want := "fixtures:\n- serviceId: shop\n  method: GET\n  path: orders/*\n  status: 200\n  body:\n    id: 1\n    state: open\n"; !strings.HasSuffix(created, want) {
		t.Errorf("the new file:\n%s\nwant it to end with\n%s", created, want)
	}
	if got := fixtureActionsAt(t, c, u, m.position(strings.Index(text, "\"other\""))); len(got) != 0 {
		t.Errorf("a call without a description got %v", got)
	}
	// Applied: the call has its fixture, and the action goes.
	if err := os.WriteFile(filepath.Join(dir, "orders.mock.yaml"), []byte(created), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := fixtureActionsAt(t, c, u, onShop); len(got) != 0 {
		t.Errorf("a call the file answers got %v", got)
	}
	// A file that answers other calls: edited in place, its fixture kept.
	if err := os.WriteFile(filepath.Join(dir, "orders.mock.yaml"), []byte("# mine\n- {serviceId: other, method: GET, path: x}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := fixtureActionsAt(t, c, u, onShop)
	if len(got) != 1 {
		t.Fatalf("actions %v", got)
	}
	edit, _ = json.Marshal(got[0]["edit"])
	var ch struct {
		Changes map[string][]struct{ NewText string }
	}
	if err := json.Unmarshal(edit, &ch); err != nil || len(ch.Changes[string(mock)]) != 1 {
		t.Fatalf("edit %s (%v)", edit, err)
	}
	if nt := ch.Changes[string(mock)][0].NewText; !strings.HasPrefix(nt, "# mine\n- {serviceId: other, method: GET, path: x}\n- serviceId: shop\n") {
		t.Errorf("the edited file:\n%s", nt)
	}
}
