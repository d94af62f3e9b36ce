package lsp

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
)

// TestWindowsScriptCRLF: a script saved on Windows (CRLF line ends),
// opened under a drive-letter URI as Neovim and Sublime send it
// (file:///C:/...): serviceIds complete on the right line, and the
// diagnostic of the unknown serviceId on the third line lands on its
// column and is published under the URI VS Code uses (file:///c%3A/...).
func TestWindowsScriptCRLF(t *testing.T) {
	t.Parallel()
	root, _ := filepath.Abs("../testdata/config")
	c := connect(t, newTestServer(t, Options{Sources: config.Sources{ConfigRoot: root}}), clientOptions{})
	text := "// a script saved on Windows\r\nvar r = api.rest.v1.get(\"crm\", {}, {});\r\nvar s = api.rest.v1.get(\"crm-ordrs\", {}, {});\r\n"
	sent := uri.URI("file:///C:/webforms/scripts/a.js")
	c.open(sent, text)
	canonical := uri.URI("file:///c%3A/webforms/scripts/a.js")

	line1 := strings.Split(text, "\r\n")[1]
	got := labels(c.completion(canonical, protocol.Position{Line: 1, Character: uint32(strings.Index(line1, `"`) + 1)}))
	for _, want := range []string{"crm", "crm-orders"} {
		if !slices.Contains(got, want) {
			t.Errorf("completion on line 2 of a CRLF script lacks %q: %q", want, got)
		}
	}
	diags := c.diagnostics(canonical, 0, 0)
	line2 := strings.Split(text, "\r\n")[2]
	if len(diags) != 1 || diags[0].Range.Start.Line != 2 || int(diags[0].Range.Start.Character) != strings.Index(line2, "crm-ordrs") {
		t.Errorf("diagnostics of the CRLF script = %+v, want one on line 3 at the serviceId", diags)
	}
}

// TestWindowsCommandURI: a command names a document by the URI the client
// has for it (Neovim on Windows: file:///C:/...), which is not the
// canonical form the document is kept under (file:///c%3A/...). The
// document is found: its first-line kind chooses the services.
func TestWindowsCommandURI(t *testing.T) {
	t.Parallel()
	root, _ := filepath.Abs("../testdata/config")
	c := connect(t, newTestServer(t, Options{Sources: config.Sources{ConfigRoot: root}}), clientOptions{})
	c.open("file:///C:/webforms/tasks/t.js", "// restls-kind: scriptTask\r\nvar r = 1;\r\n")
	// Diagnosed: the document is open and the registry loaded.
	c.diagnostics("file:///c%3A/webforms/tasks/t.js", 0, 0)
	// The serviceIds of the answer (its key order varies).
	services := func(args map[string]string) string {
		var res map[string]json.RawMessage
		if err := c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{
			"command": CommandServices, "arguments": []any{args}}, &res); err != nil {
			t.Fatalf("restls.services %v: %v", args, err)
		}
		return strings.Join(slices.Sorted(maps.Keys(res)), " ")
	}
	task, script := services(map[string]string{"kind": "scriptTask"}), services(map[string]string{"kind": "scriptService"})
	if task == script {
		t.Fatal("testdata/config offers the same services to both kinds: the test cannot tell them apart")
	}
	for _, u := range []string{"file:///C:/webforms/tasks/t.js", "file:///c%3A/webforms/tasks/t.js", "file:///c:/webforms/tasks/t.js"} {
		if got := services(map[string]string{"uri": u}); got != task {
			t.Errorf("restls.services {uri: %s} did not find the open scriptTask document:\n%.200s\nwant\n%.200s", u, got, task)
		}
	}
}
