package lsp

import (
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
