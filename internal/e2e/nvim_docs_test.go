package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/internal/restlstest"
)

type nvimDocsResult struct {
	AClient, BClient int
	Omnifunc         string
	Root             string
	Labels           []string
	Filetype         string
	TestClient       int
	Lenses           []string
	TestDiags        []string
	YAMLAttached     bool
	ConfigClients    map[string]int
	ConfigLenses     []string
	ConfigRefs       []string
	ConfigRename     []string
	Messages         string
	Error            string
}

// runDocsSnippet runs docs/lsp.md's Neovim setup in headless Neovim with
// PATH set to path, on a workspace (a git root holding the example
// configuration and two scripts).
func runDocsSnippet(t *testing.T, path string, missing bool) (res nvimDocsResult, ws string) {
	t.Helper()
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		skipMissingTool(t, "nvim", "apt-get install neovim")
	}
	dir := t.TempDir()
	snippet := filepath.Join(dir, "restls.lua")
	if err := os.WriteFile(snippet, []byte(docsBlock(t, "### Neovim", "lua")), 0o644); err != nil {
		t.Fatal(err)
	}
	// The workspace: the example configuration at its root (what restls
	// reads without settings, from the directory Neovim started in),
	// scripts below.
	ws = filepath.Join(dir, "ws")
	if err := os.CopyFS(ws, os.DirFS(filepath.Join(repoRoot(t), "testdata/config"))); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(ws, "scripts", "a.js"), filepath.Join(ws, "scripts", "b.js")
	if err := os.MkdirAll(filepath.Dir(a), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{a, b} {
		if err := os.WriteFile(f, []byte("// a script\nvar r = api.rest.v1.get(\"crm\", {}, {});\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Test files of restls test beside the scripts, and YAML that is none.
	tests := map[string]string{
		"a.test.yaml":   "script: a.js\nfixtures:\n  - { serviceId: crm, body: {} }\ncases:\n  - name: one\n    result: 1\n  - name: two\n    result: 2\n",
		"bad.test.yaml": "script: a.js\nresutl: 1\n",
		"other.yaml":    "script: a.js\nresutl: 1\n",
	}
	for name, text := range tests {
		if err := os.WriteFile(filepath.Join(ws, "scripts", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The service configuration in all its file kinds, and the project
	// file: the copy holds application.yml and the XML files; the
	// properties add a service, restls.yaml names the root.
	configFiles := map[string]string{
		"application.properties": "scriptservice.api[0].serviceId=props\nscriptservice.api[0].url=https://props.example.com\n",
		"restls.yaml":            "configRoot: .\n",
	}
	for name, text := range configFiles {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outFile := filepath.Join(dir, "out.json")
	lua, _ := filepath.Abs("testdata/nvim/docs.lua")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-n", "-c", "luafile "+lua)
	cmd.Dir = ws // Neovim started in the project, as users do
	env := []string{"PATH=" + path, "HOME=" + dir, "RESTLS_SNIPPET=" + snippet, "RESTLS_A=" + a, "RESTLS_B=" + b, "RESTLS_OUT=" + outFile,
		"RESTLS_TEST=" + filepath.Join(ws, "scripts", "a.test.yaml"), "RESTLS_BADTEST=" + filepath.Join(ws, "scripts", "bad.test.yaml"), "RESTLS_YAML=" + filepath.Join(ws, "scripts", "other.yaml"),
		"RESTLS_CONFIG_YML=" + filepath.Join(ws, "application.yml"), "RESTLS_CONFIG_XML=" + filepath.Join(ws, "script-code-config", "script-service-api.xml"),
		"RESTLS_CONFIG_PROPS=" + filepath.Join(ws, "application.properties"), "RESTLS_PROJECT=" + filepath.Join(ws, "restls.yaml")}
	if missing {
		env = append(env, "RESTLS_MISSING=1")
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	output, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nvim: %v\n%s", err, output)
	}
	raw, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatalf("nvim wrote no result: %v\n%s", err, output)
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("bad result %s: %v", raw, err)
	}
	if res.Error != "" {
		t.Fatalf("the docs/lsp.md snippet failed: %s\nnvim output:\n%s", res.Error, output)
	}
	return res, ws
}

// TestNeovimDocsSnippet runs docs/lsp.md's Neovim setup as written, with
// restls on PATH: the two scripts of one root share one client and one
// server process, omnifunc is the LSP one, serviceIds complete.
func TestNeovimDocsSnippet(t *testing.T) {
	t.Parallel()
	exe := restlstest.Binary(t)
	// restls on PATH, counting its starts.
	bin := t.TempDir()
	starts := filepath.Join(bin, "starts")
	wrapper := "#!/bin/sh\necho \"$*\" >>'" + starts + "'\nexec '" + exe + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "restls"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	res, ws := runDocsSnippet(t, bin+string(os.PathListSeparator)+os.Getenv("PATH"), false)
	t.Logf("neovim saw: %+v", res)
	if res.AClient <= 0 || res.AClient != res.BClient {
		t.Errorf("clients of a.js and b.js: %d and %d, want one client for both", res.AClient, res.BClient)
	}
	if res.Root != ws {
		t.Errorf("root_dir = %q, want the git root %s", res.Root, ws)
	}
	if res.Omnifunc != "v:lua.vim.lsp.omnifunc" {
		t.Errorf("omnifunc = %q, want v:lua.vim.lsp.omnifunc", res.Omnifunc)
	}
	for _, want := range []string{"crm", "crm-orders"} {
		if !slices.Contains(res.Labels, want) {
			t.Errorf("serviceId completion lacks %q: %q", want, res.Labels)
		}
	}
	if res.TestClient != res.AClient {
		t.Errorf("the test file's client is %d, want the scripts' %d", res.TestClient, res.AClient)
	}
	if want := []string{"Run all 2 tests", "Run test", "Run test"}; !slices.Equal(res.Lenses, want) {
		t.Errorf("test file lenses %q, want %q", res.Lenses, want)
	}
	if len(res.TestDiags) != 1 || !strings.Contains(res.TestDiags[0], `did you mean "result"`) {
		t.Errorf("malformed test file diagnostics %q", res.TestDiags)
	}
	if res.YAMLAttached {
		t.Error("restls attached to a YAML file that is no test file")
	}
	// The configuration files: on the scripts' client, with lenses, and
	// references and rename from a serviceId there.
	for _, v := range []string{"RESTLS_CONFIG_YML", "RESTLS_CONFIG_XML", "RESTLS_CONFIG_PROPS", "RESTLS_PROJECT"} {
		if got := res.ConfigClients[v]; got != res.AClient {
			t.Errorf("%s: client %d, want the scripts' %d (the snippet does not attach to configuration files)", v, got, res.AClient)
		}
	}
	if !slices.Contains(res.ConfigLenses, "2 scripts call this") {
		t.Errorf("application.yml lenses %q, want \"2 scripts call this\" on crm", res.ConfigLenses)
	}
	for _, want := range []string{"scripts/a.js:2", "scripts/b.js:2"} {
		if !slices.Contains(res.ConfigRefs, want) {
			t.Errorf("references of crm from application.yml: %q, want %s among them", res.ConfigRefs, want)
		}
	}
	for _, want := range []string{"application.yml", "scripts/a.js", "scripts/b.js"} {
		if !slices.Contains(res.ConfigRename, want) {
			t.Errorf("rename of crm from application.yml edits %q, want %s among them", res.ConfigRename, want)
		}
	}
	log, _ := os.ReadFile(starts)
	if n := strings.Count(string(log), "\n"); n != 1 {
		t.Errorf("restls started %d times for two buffers of one root, want once:\n%s", n, log)
	}
	if !strings.Contains(res.Messages, "restls test a.test.yaml: 0 passed, 1 failed\nFAIL one (line 5): result (expected vs actual, by JSON path): $: expected 1, got null") {
		t.Errorf("the Run test lens told nothing:\n%s", res.Messages)
	}
	if strings.Contains(res.Messages, "traceback") || strings.Contains(res.Messages, "Error") {
		t.Errorf("Neovim reported errors:\n%s", res.Messages)
	}
}

// TestNeovimDocsSnippetMissingBinary: without restls on PATH the snippet
// warns once, with what to do, and shows no Lua error.
func TestNeovimDocsSnippetMissingBinary(t *testing.T) {
	t.Parallel()
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		skipMissingTool(t, "nvim", "apt-get install neovim")
	}
	// PATH holds nvim's directory and the tools Neovim may call, not restls.
	bin := t.TempDir()
	if err := os.Symlink(nvim, filepath.Join(bin, "nvim")); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("restls"); err == nil && filepath.Dir(nvim) == filepath.Dir(mustLookPath(t, "restls")) {
		t.Skip("restls is installed beside nvim; cannot hide it from PATH")
	}
	res, _ := runDocsSnippet(t, bin+string(os.PathListSeparator)+filepath.Dir(nvim), true)
	if res.Filetype != "javascript" {
		t.Fatalf("filetype = %q: the FileType autocommand did not run", res.Filetype)
	}
	msg := strings.TrimSpace(res.Messages)
	want := "restls: cannot start the language server: 'restls' is not an executable file or on PATH. Install restls (README.md, Install) or set cmd in the restls table of your init.lua to the binary's full path."
	if msg != want {
		t.Errorf("messages with restls missing:\n%s\nwant exactly:\n%s", msg, want)
	}
}

func mustLookPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
