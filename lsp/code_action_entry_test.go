package lsp

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
)

// skeletonActions returns the "Add serviceId" actions at the start of
// the serviceId of line 0 of u.
func skeletonActions(t *testing.T, c *testClient, u uri.URI) []protocol.CodeAction {
	t.Helper()
	var raw []json.RawMessage
	if err := c.call(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: protocol.Range{Start: protocol.Position{Character: 18}, End: protocol.Position{Character: 18}},
	}, &raw); err != nil {
		t.Fatal(err)
	}
	var out []protocol.CodeAction
	for _, r := range raw {
		var a protocol.CodeAction
		if err := protocol.Unmarshal(r, &a); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(a.Title, "Add serviceId") {
			out = append(out, a)
		}
	}
	return out
}

// TestSkeletonEntryCapabilities: without documentChanges the skeleton
// entry is offered only for an existing file (plain changes cannot create
// one); a session shown other paths gets none; restls.showEntry opens the
// file through window/showDocument when the client offers it.
func TestSkeletonEntryCapabilities(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config/application.yml": "scriptservice:\n  api:\n    - serviceId: crm\n      url: https://crm.example.com\n",
		"a.js":                   "api.rest.v1.get(\"nope\", {}, {});\n",
	})
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}})
	yes := true
	plain := connect(t, srv, clientOptions{root: dir, caps: protocol.ClientCapabilities{Window: &protocol.WindowClientCapabilities{WorkDoneProgress: &yes}}})
	a := uri.File(filepath.Join(dir, "a.js"))
	plain.open(a, "api.rest.v1.get(\"nope\", {}, {});\n")
	plain.diagnostics(a, 1, 0)
	if got := skeletonActions(t, plain, a); len(got) != 0 {
		t.Errorf("no documentChanges, no service XML: %+v, want no action", got)
	}
	xml := filepath.Join(dir, "config", config.ServiceXMLPath)
	writeFiles(t, dir, map[string]string{"config/" + config.ServiceXMLPath: "<scriptservice>\n</scriptservice>\n"})
	got := skeletonActions(t, plain, a)
	if len(got) != 1 || got[0].Edit == nil || len(got[0].Edit.DocumentChanges) > 0 || len(got[0].Edit.Changes[uri.File(xml)]) != 1 {
		t.Fatalf("no documentChanges, an existing service XML: %+v, want one plain change of it", got)
	}
	// The plain client does not offer window/showDocument: nothing shown.
	var res map[string]bool
	if err := plain.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: got[0].Command.Command, Arguments: got[0].Command.Arguments}, &res); err != nil || res["shown"] {
		t.Errorf("restls.showEntry without showDocument: %v, %v", res, err)
	}

	caps := defaultCaps()
	caps.Window.ShowDocument = &protocol.ShowDocumentClientCapabilities{Support: true}
	full := connect(t, srv, clientOptions{root: dir, caps: caps})
	full.open(a, "api.rest.v1.get(\"nope\", {}, {});\n")
	full.diagnostics(a, 1, 0)
	got = skeletonActions(t, full, a)
	if len(got) != 1 {
		t.Fatalf("actions %+v", got)
	}
	if err := full.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: got[0].Command.Command, Arguments: got[0].Command.Arguments}, &res); err != nil || !res["shown"] {
		t.Errorf("restls.showEntry: %v, %v", res, err)
	}
	full.mu.Lock()
	shown := full.shown
	full.mu.Unlock()
	if len(shown) != 1 || !strings.Contains(shown[0], "script-service-api.xml") || !strings.Contains(shown[0], `"selection"`) {
		t.Errorf("window/showDocument %q", shown)
	}

	show := func(p string) string { return "shown:" + filepath.Base(p) }
	designer := connect(t, srv, clientOptions{root: dir, session: &SessionOptions{ShowPath: show}})
	designer.open(a, "api.rest.v1.get(\"nope\", {}, {});\n")
	designer.diagnostics(a, 1, 0)
	if got := skeletonActions(t, designer, a); len(got) != 0 {
		t.Errorf("a session shown other paths: %+v, want no action", got)
	}
}
