package lsp

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

// TestServerDecidesForEditors (issue 34 item 4): what an editor needs to
// know about files and environments is the server's answer, never the
// editor's copy. The initialize result and restls/status name the
// globs of scripts (the "include" setting, else the server's default)
// and of test files; restls/documentInfo says whether one document is a
// script; restls/status lists the environments to pick, the project
// file's and the editor's own ("environments" setting) together, and
// names the one in force, whose sources the session then uses. A
// session that may not choose sources (a designer's) gets no editor
// environments.
func TestServerDecidesForEditors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"ci/application.yml":    "scriptservice:\n  api:\n    - serviceId: only-ci\n      url: https://ci.example.test\n",
		"local/application.yml": "scriptservice:\n  api:\n    - serviceId: only-local\n      url: https://local.example.test\n",
		"handlers/a.js":         "return 1;\n",
		"scripts/b.js":          "return 2;\n",
	})
	project := map[string]config.Sources{"ci": {ConfigRoot: filepath.Join(dir, "ci")}}
	srv := newTestServer(t, Options{Session: projectSession(t, dir, "environments:\n  ci: {configRoot: ci}\ndefaultEnvironment: ci\n", project["ci"])})
	files := func(c *testClient) Files {
		t.Helper()
		var exp Experimental
		if err := json.Unmarshal(c.initResult.Capabilities.Experimental, &exp); err != nil {
			t.Fatalf("initialize result's experimental %s: %v", c.initResult.Capabilities.Experimental, err)
		}
		return exp.Restls
	}
	isScript := func(c *testClient, name string) bool {
		t.Helper()
		var out *DocumentInfo
		if err := c.call(MethodDocumentInfo, &DocumentInfoParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(filepath.Join(dir, name))}}, &out); err != nil || out == nil {
			t.Fatalf("documentInfo %s: %v, %v", name, out, err)
		}
		return out.Script
	}
	statusOf := func(c *testClient, what string, ok func(Status) bool) Status {
		t.Helper()
		c.waitFor(what, func() bool { return len(c.statuses) > 0 && ok(c.statuses[len(c.statuses)-1]) })
		return c.lastStatus()
	}

	// The server's defaults.
	d := connect(t, srv, clientOptions{root: dir})
	want := Files{Scripts: workspace.DefaultScriptGlobs, TestFiles: "**/*.test.yaml"}
	if got := files(d); !slices.Equal(got.Scripts, want.Scripts) || got.TestFiles != want.TestFiles {
		t.Errorf("initialize: files %+v, want %+v", got, want)
	}
	st := statusOf(d, "the default status", func(Status) bool { return true })
	if !slices.Equal(st.Scripts, want.Scripts) || st.TestFiles != want.TestFiles || st.Environment != "ci" || !slices.Equal(st.Environments, []string{"ci"}) {
		t.Errorf("default status: %+v", st)
	}
	if !isScript(d, "scripts/b.js") || isScript(d, "handlers/a.js") {
		t.Error("default globs: scripts/b.js is a script, handlers/a.js is not")
	}

	// The editor's include and environments, one of them picked.
	opts := map[string]any{
		"include":      []string{"**/handlers/*.js"},
		"environments": map[string]any{"local": map[string]any{"configRoot": "local"}},
		"environment":  "local",
	}
	e := connect(t, srv, clientOptions{root: dir, initOptions: opts})
	if got := files(e); !slices.Equal(got.Scripts, []string{"**/handlers/*.js"}) {
		t.Errorf("initialize with include: %+v", got)
	}
	st = statusOf(e, "the local environment", func(s Status) bool { return s.Sources.ConfigRoot == filepath.Join(dir, "local") })
	if st.Environment != "local" || !slices.Equal(st.Environments, []string{"ci", "local"}) || !slices.Equal(st.Scripts, []string{"**/handlers/*.js"}) || st.Kinds[0].Services != 1 {
		t.Errorf("editor environment picked: %+v", st)
	}
	if !isScript(e, "handlers/a.js") || isScript(e, "scripts/b.js") {
		t.Error("include: handlers/a.js is a script, scripts/b.js is not")
	}

	// Picking the project file's environment instead: the server says so.
	e.notify(protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"restls": map[string]any{
		"environments": opts["environments"], "environment": "ci",
	}}})
	st = statusOf(e, "the ci environment", func(s Status) bool { return s.Environment == "ci" })
	if st.Sources.ConfigRoot != project["ci"].ConfigRoot || !slices.Equal(st.Environments, []string{"ci", "local"}) || !slices.Equal(st.Scripts, workspace.DefaultScriptGlobs) {
		t.Errorf("project environment picked: %+v", st)
	}

	// A designer session: the editor environments name files it may not read.
	refused := &config.Diagnostic{Severity: config.SeverityError, Code: "sources-refused", Message: "refused"}
	g := connect(t, srv, clientOptions{root: dir, initOptions: opts, session: &SessionOptions{SourcesRefused: refused}})
	st = statusOf(g, "the designer's status", func(Status) bool { return true })
	if slices.Contains(st.Environments, "local") || st.Environment != "ci" {
		t.Errorf("a designer session offered the editor's environments: %+v", st)
	}
}
