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

// TestRenameInBOMFileNotOpen: a script and a configuration file saved
// with a UTF-8 byte order mark, neither open: the rename's edits land on
// the ids exactly as the editor shows the files (without the mark), on
// the first line too, and so do the references.
func TestRenameInBOMFileNotOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"config/application.yml": "\ufeff" + "scriptservice: {api: [{serviceId: crm, url: 'https://crm.example.com'}]}\n",
		"a.js":                   "api.rest.v1.get(\"crm\", {}, {});\n",
		"bom.js":                 "\ufeff" + "var x = api.rest.v1.get(\"crm\", {}, {});\napi.rest.v1.get('crm', {}, {});\n",
	}
	writeFiles(t, dir, files)
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}})
	c := connect(t, srv, clientOptions{root: dir})
	a := uri.File(filepath.Join(dir, "a.js"))
	c.open(a, files["a.js"])
	var raw json.RawMessage
	if err := c.call(protocol.MethodTextDocumentRename, &protocol.RenameParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: a}, Position: protocol.Position{Character: 18}},
		NewName:                    "crm-v2",
	}, &raw); err != nil {
		t.Fatal(err)
	}
	var we protocol.WorkspaceEdit
	if err := protocol.Unmarshal(raw, &we); err != nil {
		t.Fatal(err)
	}
	edited := map[string]bool{}
	for _, dc := range we.DocumentChanges {
		td := dc.(*protocol.TextDocumentEdit)
		name := strings.Split(locString(dir, td.TextDocument.URI, protocol.Position{}), ":")[0]
		edited[name] = true
		// What the editor shows: the file without its byte order mark.
		shown := strings.TrimPrefix(files[name], "\ufeff")
		sc := &script{text: shown, m: newMapper(shown)}
		var edits []protocol.TextEdit
		for _, e := range td.Edits {
			switch e := e.(type) {
			case *protocol.AnnotatedTextEdit:
				edits = append(edits, e.TextEdit)
			case *protocol.TextEdit:
				edits = append(edits, *e)
			}
		}
		if got, want := applyEdits(sc, edits), strings.ReplaceAll(strings.ReplaceAll(shown, "\"crm\"", "\"crm-v2\""), "'crm'", "'crm-v2'"); name != "config/application.yml" && got != want {
			t.Errorf("%s after the rename:\n%s\nwant\n%s", name, got, want)
		}
		if name == "config/application.yml" {
			if got, want := applyEdits(sc, edits), strings.Replace(shown, "serviceId: crm,", "serviceId: crm-v2,", 1); got != want {
				t.Errorf("%s after the rename:\n%s\nwant\n%s", name, got, want)
			}
		}
	}
	for _, f := range []string{"a.js", "bom.js", "config/application.yml"} {
		if !edited[f] {
			t.Errorf("the rename did not edit %s (%s)", f, raw)
		}
	}
	got := refsOf(t, c, dir, a)
	want := []string{"a.js:1:18", "bom.js:1:26", "bom.js:2:18", "config/application.yml:1:35"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("references %q, want %q", got, want)
	}
}
