package lsp

import (
	"path/filepath"
	"slices"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
)

// TestCodeLensRefreshAfterOutsideChange: when a script changes outside
// the editor, the reference counts on application.yml change, and a
// client that supports workspace/codeLens/refresh is asked to request
// its lenses again; a client that does not is never asked.
func TestCodeLensRefreshAfterOutsideChange(t *testing.T) {
	for _, refresh := range []bool{true, false} {
		t.Run(map[bool]string{true: "refreshSupport", false: "no refreshSupport"}[refresh], func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				"config/application.yml": "scriptservice:\n  api:\n    - serviceId: crm\n      url: https://crm.example.com\n    - serviceId: hr\n      url: https://hr.example.com\n",
				"a.js":                   "api.rest.v1.get(\"crm\", {}, {});\n",
			})
			srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}})
			caps := defaultCaps()
			if caps.Workspace == nil {
				caps.Workspace = &protocol.WorkspaceClientCapabilities{}
			}
			caps.Workspace.CodeLens = &protocol.CodeLensWorkspaceClientCapabilities{RefreshSupport: &refresh}
			c := connect(t, srv, clientOptions{root: dir, caps: caps})
			yml := uri.File(filepath.Join(dir, "config", "application.yml"))
			unused := func(want []string) {
				t.Helper()
				c.waitFor("service-unused on application.yml", func() bool {
					p, ok := c.diags[yml]
					if !ok {
						return false
					}
					var got []string
					for _, d := range p.params.Diagnostics {
						if d.Code == protocol.String("service-unused") {
							got = append(got, lineOf(d))
						}
					}
					return slices.Equal(got, want)
				})
			}
			unused([]string{"5:18"})
			c.mu.Lock()
			before := c.lensRefreshes
			c.mu.Unlock()
			writeFiles(t, dir, map[string]string{"b.js": "api.rest.v1.get(\"hr\", {}, {});\n"})
			c.notify(protocol.MethodWorkspaceDidChangeWatchedFiles, &protocol.DidChangeWatchedFilesParams{Changes: []protocol.FileEvent{
				{URI: uri.File(filepath.Join(dir, "b.js")), Type: protocol.FileChangeTypeCreated}}})
			unused(nil)
			if refresh {
				c.waitFor("workspace/codeLens/refresh", func() bool { return c.lensRefreshes > before })
				return
			}
			// The refresh would follow the diagnostics it comes after;
			// a hover round trip lets it arrive first.
			var lenses []protocol.CodeLens
			if err := c.call(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: yml}}, &lenses); err != nil {
				t.Fatal(err)
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.lensRefreshes != 0 {
				t.Errorf("%d workspace/codeLens/refresh requests to a client without refreshSupport", c.lensRefreshes)
			}
		})
	}
}
