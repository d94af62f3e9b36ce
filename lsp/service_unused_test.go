package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
)

// TestServiceUnusedFollowsWatchedFiles: service-unused is published on
// the configuration file once the index is built, and again when a
// script that calls the entry is created or deleted outside the editor.
func TestServiceUnusedFollowsWatchedFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config/application.yml": "scriptservice:\n  api:\n    - serviceId: crm\n      url: https://crm.example.com\n    - serviceId: hr\n      url: https://hr.example.com\n",
		"a.js":                   "api.rest.v1.get(\"crm\", {}, {});\n",
	})
	srv := newTestServer(t, Options{Sources: config.Sources{ConfigRoot: filepath.Join(dir, "config")}})
	c := connect(t, srv, clientOptions{root: dir})
	yml := uri.File(filepath.Join(dir, "config", "application.yml"))
	unused := func(want []string) {
		t.Helper()
		c.waitUnused(yml, want)
	}
	unused([]string{"5:18"}) // hr, once the index is built
	report := func(f string) {
		c.notify(protocol.MethodWorkspaceDidChangeWatchedFiles, &protocol.DidChangeWatchedFilesParams{Changes: []protocol.FileEvent{
			{URI: uri.File(filepath.Join(dir, f)), Type: protocol.FileChangeTypeChanged}}})
	}
	writeFiles(t, dir, map[string]string{"b.js": "api.rest.v1.get(\"hr\", {}, {});\n"})
	report("b.js")
	unused(nil)
	if err := os.Remove(filepath.Join(dir, "b.js")); err != nil {
		t.Fatal(err)
	}
	report("b.js")
	unused([]string{"5:18"})
}

// waitUnused waits until the service-unused diagnostics published on
// the configuration file u are at want (line:column each, in order).
func (c *testClient) waitUnused(u uri.URI, want []string) {
	c.t.Helper()
	c.waitFor("service-unused on "+filepath.Base(hostPaths.fsPath(u)), func() bool {
		p, ok := c.diags[u]
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

func lineOf(d protocol.Diagnostic) string {
	return fmt.Sprintf("%d:%d", d.Range.Start.Line+1, d.Range.Start.Character+1)
}
