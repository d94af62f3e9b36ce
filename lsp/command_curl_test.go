package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// TestPasteCurl drives restls.pasteCurl through a real JSON-RPC
// connection: the answer is an edit inserting the call, indented as the
// line, with the notes as comments above it; a URL no service matches
// is an error naming the base url to configure.
func TestPasteCurl(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "config")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "testdata", "config"))); err != nil {
		t.Fatal(err)
	}
	srv := newTestServer(t, Options{})
	c := connect(t, srv, clientOptions{initOptions: map[string]any{"restls": map[string]any{"configRoot": dir}}})
	doc := uri.File(filepath.Join(t.TempDir(), "script.js"))
	text := "function run(input) {\n    \n}\n"
	c.open(doc, text)

	paste := func(curl string, pos protocol.Position) (*PasteCurlResult, error) {
		var res PasteCurlResult
		err := c.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
			Command:   CommandPasteCurl,
			Arguments: []protocol.LSPAny{mustJSON(map[string]any{"uri": string(doc), "position": pos, "curl": curl})},
		}, &res)
		return &res, err
	}

	// registry has basic authorization configured: the pasted header is
	// left out, with a note.
	res, err := paste(`curl 'https://registry.example.gov/api/companies/42?fields=name' \
  -H 'Authorization: Basic dXNlcjpwYXNz' -H 'X-Trace: 1' --compressed`, protocol.Position{Line: 1, Character: 4})
	if err != nil {
		t.Fatal(err)
	}
	if res.ServiceID != "registry" || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], `serviceId "registry" has basic authorization configured`) {
		t.Fatalf("%+v", res)
	}
	edits := res.Edit.Changes[doc]
	if len(edits) != 1 {
		t.Fatalf("edit %+v", res.Edit)
	}
	got := applyTextEdit(text, edits[0])
	want := "function run(input) {\n" +
		"    // restls: " + res.Notes[0] + "\n" +
		`    api.rest.v1.get("registry", {pathParams: ["companies", "42"], queryParams: {fields: "name"}}, {"X-Trace": "1"});` + "\n}\n"
	if got != want {
		t.Errorf("after the edit:\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(got, "dXNlcjpwYXNz") {
		t.Error("the pasted credential is in the script")
	}

	// The longest prefix: documents-search extends documents.
	res, err = paste(`curl -X POST --json '{"q":"forms"}' https://docs.example.com/api/v3/search/run`, protocol.Position{Line: 1, Character: 4})
	if err != nil {
		t.Fatal(err)
	}
	if res.Call != `api.rest.v1.post("documents-search", {pathParams: ["run"]}, {}, {q: "forms"});` {
		t.Errorf("call %s", res.Call)
	}

	// No service: the error says which base url to configure.
	_, err = paste(`curl https://unknown.example.com/v1/things/7`, protocol.Position{Line: 1, Character: 4})
	if err == nil || !strings.Contains(err.Error(), "configure one with url https://unknown.example.com/v1/things") {
		t.Errorf("err = %v", err)
	}
	// Not a curl command, and a document that is not open.
	if _, err = paste(`wget https://docs.example.com`, protocol.Position{}); err == nil || !strings.Contains(err.Error(), "no curl command found") {
		t.Errorf("err = %v", err)
	}
	var res2 PasteCurlResult
	err = c.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
		Command:   CommandPasteCurl,
		Arguments: []protocol.LSPAny{mustJSON(map[string]any{"uri": "file:///not/open.js", "position": protocol.Position{}, "curl": "curl https://docs.example.com"})},
	}, &res2)
	if err == nil || !strings.Contains(err.Error(), "is not open") {
		t.Errorf("err = %v", err)
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// applyTextEdit applies one edit to text (ASCII positions).
func applyTextEdit(text string, e protocol.TextEdit) string {
	m := newMapper(text)
	start, end := m.offset(e.Range.Start), m.offset(e.Range.End)
	return text[:start] + e.NewText + text[end:]
}
