package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Issue 34: a surface asks the one workspace session for the project's
// facts, never decides one itself. These tests hold surfaces that once
// assembled the project themselves to what the others answer.

// oneHomeProject writes a project whose restls.yaml sets engine: es5.1,
// a script beyond that level and a test file of it, and returns its
// directory and the test file.
func oneHomeProject(t *testing.T) (dir, testFile string) {
	t.Helper()
	dir = t.TempDir()
	root := filepath.Join(repoRoot(t), "testdata/config")
	writeFile(t, dir, "restls.yaml", "configRoot: "+root+"\nengine: es5.1\n")
	writeFile(t, dir, "s.js", "let n = 1;\nreturn n;\n")
	writeFile(t, dir, "s.test.yaml", "script: s.js\nresult: 1\n")
	return dir, filepath.Join(dir, "s.test.yaml")
}

// TestEditorTestsKeepTheEngineLevel: the editor's restls.runTests runs a
// test file's cases against the session's snapshot, as restls test does:
// a script beyond the project file's engine level fails there too. The
// editor once handed the test runner its configuration, kind map and
// descriptions but not the engine level, so the case passed in the
// editor and failed in CI.
func TestEditorTestsKeepTheEngineLevel(t *testing.T) {
	t.Parallel()
	dir, file := oneHomeProject(t)
	out, errs, rc := restlsTestIn(t, dir, "--json", ".")
	if rc != 1 {
		t.Fatalf("restls test: exit %d, want 1 (the script is beyond es5.1)\n%s%s", rc, out, errs)
	}
	cliMsg := engineLevelMessage(t, "restls test", out)

	s := startServe(t, nil, "--project", filepath.Join(dir, "restls.yaml"))
	root := uri.File(dir)
	//lint:ignore SA1019 the test client sends rootUri as older clients do
	if err := s.call(t, protocol.MethodInitialize, &protocol.InitializeParams{RootURI: &root}, nil); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	_ = s.conn.Notify(context.Background(), protocol.MethodInitialized, &protocol.InitializedParams{})
	raw, _ := json.Marshal(map[string]any{"uri": string(uri.File(file))})
	var rep json.RawMessage
	if err := s.call(t, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: "restls.runTests", Arguments: []protocol.LSPAny{raw}}, &rep); err != nil {
		t.Fatalf("restls.runTests: %v\n%s", err, s.stderr.String())
	}
	if got := engineLevelMessage(t, "restls.runTests", string(rep)); got != cliMsg {
		t.Errorf("restls.runTests says %q, restls test %q", got, cliMsg)
	}
}

// engineLevelMessage is the error message of the one case, failed, of a
// report of restls test --json's shape from door, which must name the
// engine level.
func engineLevelMessage(t *testing.T, door, report string) string {
	t.Helper()
	var rep struct {
		Failed int `json:"failed"`
		Tests  []struct {
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		} `json:"tests"`
	}
	if err := json.Unmarshal([]byte(report), &rep); err != nil || rep.Failed != 1 || len(rep.Tests) != 1 || rep.Tests[0].Error == nil {
		t.Fatalf("%s: want one failed case, its script beyond the project's engine level (%v):\n%s", door, err, report)
	}
	msg := rep.Tests[0].Error.Message
	if !strings.Contains(msg, "es5.1") {
		t.Errorf("%s: the error %q does not name the engine level", door, msg)
	}
	return msg
}

// TestFixturesGenerateNamesAnUnreadableDescription: restls fixtures
// generate reads the descriptions from its session's answer store, as a
// run checks its answers; a description that does not load is named
// on stderr with why, exit 2, and nothing is written.
func TestFixturesGenerateNamesAnUnreadableDescription(t *testing.T) {
	t.Parallel()
	dir := shopProject(t, "")
	writeFile(t, dir, "apis/shop.json", `{"openapi": 3`)
	writeFile(t, dir, "orders.js", "return api.rest.v1.get(\"shop\", {pathParams: [\"orders\", \"1\"]}, {}).body;\n")
	out, errs, rc := runInDir(t, dir, "fixtures", "generate", "orders.js")
	if rc != 2 || out != "" || !strings.HasPrefix(errs, "restls fixtures: ") || !strings.Contains(errs, "shop.json") || strings.Count(errs, "\n") != 1 {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and one line naming apis/shop.json", rc, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "orders.mock.yaml")); !os.IsNotExist(err) {
		t.Errorf("a fixture file was written: %v", err)
	}
}

// TestEditorTestsRunTheOpenScript: the editor's restls.runTests runs the
// script as the editor holds it, unsaved changes included, as its
// restls.runScript does: the open document, else the disk, for every
// run. The test runner once read the script from disk while the run
// beside it ran the editor's text.
func TestEditorTestsRunTheOpenScript(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "restls.yaml", "configRoot: "+filepath.Join(repoRoot(t), "testdata/config")+"\n")
	writeFile(t, dir, "s.js", "return 1;\n")
	file := writeFile(t, dir, "s.test.yaml", "script: s.js\nresult: 2\n")
	s := startServe(t, nil, "--project", filepath.Join(dir, "restls.yaml"))
	root := uri.File(dir)
	//lint:ignore SA1019 the test client sends rootUri as older clients do
	if err := s.call(t, protocol.MethodInitialize, &protocol.InitializeParams{RootURI: &root}, nil); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	_ = s.conn.Notify(context.Background(), protocol.MethodInitialized, &protocol.InitializedParams{})
	script := uri.File(filepath.Join(dir, "s.js"))
	_ = s.conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: script, LanguageID: "javascript", Version: 1, Text: "return 2;\n"},
	})
	exec := func(cmd string, arg map[string]any, res any) {
		t.Helper()
		raw, _ := json.Marshal(arg)
		if err := s.call(t, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: cmd, Arguments: []protocol.LSPAny{raw}}, res); err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, s.stderr.String())
		}
	}
	var run struct {
		Result json.RawMessage `json:"result"`
	}
	exec("restls.runScript", map[string]any{"uri": string(script)}, &run)
	if string(run.Result) != "2" {
		t.Fatalf("restls.runScript of the unsaved text: result %s, want 2", run.Result)
	}
	var rep struct {
		Passed int `json:"passed"`
		Failed int `json:"failed"`
	}
	exec("restls.runTests", map[string]any{"uri": string(uri.File(file))}, &rep)
	if rep.Passed != 1 || rep.Failed != 0 {
		t.Errorf("restls.runTests: %d passed, %d failed; want the case to pass on the script's unsaved text, which returns 2", rep.Passed, rep.Failed)
	}
}
