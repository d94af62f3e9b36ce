package lsp

import (
	"path/filepath"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
)

// TestRefreshAfterOutsideChange: when a script changes outside the
// editor, the reference counts on application.yml change, and a client
// that supports workspace/codeLens/refresh is asked to request its lenses
// again; when the configuration changes, the addresses the inlay hints
// show change, and a client that supports workspace/inlayHint/refresh is
// asked for those. A client that supports neither is never asked.
func TestRefreshAfterOutsideChange(t *testing.T) {
	t.Parallel()
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
			caps.Workspace.InlayHint = &protocol.InlayHintWorkspaceClientCapabilities{RefreshSupport: &refresh}
			c := connect(t, srv, clientOptions{root: dir, caps: caps})
			yml := uri.File(filepath.Join(dir, "config", "application.yml"))
			unused := func(want []string) {
				t.Helper()
				c.waitUnused(yml, want)
			}
			unused([]string{"5:18"})
			c.mu.Lock()
			lenses := c.lensRefreshes
			c.mu.Unlock()
			writeFiles(t, dir, map[string]string{"b.js": "api.rest.v1.get(\"hr\", {}, {});\n"})
			c.notify(protocol.MethodWorkspaceDidChangeWatchedFiles, &protocol.DidChangeWatchedFilesParams{Changes: []protocol.FileEvent{
				{URI: uri.File(filepath.Join(dir, "b.js")), Type: protocol.FileChangeTypeCreated}}})
			unused(nil)
			if refresh {
				c.waitFor("workspace/codeLens/refresh", func() bool { return c.lensRefreshes > lenses })
				c.mu.Lock()
				inlays := c.inlayRefreshes
				c.mu.Unlock()
				// hr moves: the hint after "hr" in b.js would show the old
				// host.
				writeFiles(t, dir, map[string]string{"config/application.yml": "scriptservice:\n  api:\n    - serviceId: crm\n      url: https://crm.example.com\n    - serviceId: hr\n      url: https://people.example.com\n"})
				c.notify(protocol.MethodWorkspaceDidChangeWatchedFiles, &protocol.DidChangeWatchedFilesParams{Changes: []protocol.FileEvent{
					{URI: yml, Type: protocol.FileChangeTypeChanged}}})
				c.waitFor("workspace/inlayHint/refresh", func() bool { return c.inlayRefreshes > inlays })
				return
			}
			// A refresh would follow the diagnostics it comes after; a
			// code lens round trip lets it arrive first.
			var got []protocol.CodeLens
			if err := c.call(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: yml}}, &got); err != nil {
				t.Fatal(err)
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.lensRefreshes != 0 || c.inlayRefreshes != 0 {
				t.Errorf("%d workspace/codeLens/refresh and %d workspace/inlayHint/refresh requests to a client without refreshSupport", c.lensRefreshes, c.inlayRefreshes)
			}
		})
	}
}
