package e2e_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/runtime/curlin"
)

// TestPasteCurlLongPipelineKeepsTheServer is issue 33's finding 2
// through the binary: restls.pasteCurl with a pipeline or an && list
// just under the 1 MiB input limit built a tree hundreds of thousands
// of levels deep whose walk ended restls serve with "fatal error: stack
// overflow". Each is now refused with an error naming the limit, and the
// same server then converts a command.
func TestPasteCurlLongPipelineKeepsTheServer(t *testing.T) {
	t.Parallel()
	root, _ := filepath.Abs("../../testdata/config")
	p := startServe(t, nil, "--config-root", root)
	if err := p.call(t, protocol.MethodInitialize, &protocol.InitializeParams{}, nil); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	_ = p.conn.Notify(context.Background(), protocol.MethodInitialized, &protocol.InitializedParams{})
	doc := uri.File(filepath.Join(t.TempDir(), "script.js"))
	_ = p.conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: doc, LanguageID: "javascript", Version: 1, Text: "\n"},
	})
	paste := func(curl string) (json.RawMessage, error) {
		arg, _ := json.Marshal(map[string]any{"uri": string(doc), "position": protocol.Position{}, "curl": curl})
		var res json.RawMessage
		err := p.call(t, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
			Command: "restls.pasteCurl", Arguments: []protocol.LSPAny{arg},
		}, &res)
		return res, err
	}
	const url = "curl https://registry.example.gov/api/companies/42"
	fill := curlin.MaxInputBytes - 100
	for name, tc := range map[string]struct{ curl, want string }{
		"pipeline": {url + strings.Repeat("|a", fill/2), "at most 1000 are read"},
		"and list": {url + strings.Repeat("&&a", fill/3), "pipe or list operators"},
		"or list":  {url + strings.Repeat("||a", fill/3), "pipe or list operators"},
		"if":       {url + "; " + strings.Repeat("if ", fill/16) + "a" + strings.Repeat("; then :; fi", fill/16), "shell keywords that open a compound command"},
	} {
		if _, err := paste(tc.curl); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s: err = %v, want it to hold %q; stderr:\n%.2000s", name, err, tc.want, p.stderr.String())
		}
	}
	res, err := paste(url + " | jq .")
	if err != nil || !strings.Contains(string(res), `api.rest.v1.get(\"registry\"`) {
		t.Fatalf("after the refusals: %v %s", err, res)
	}
}
