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

// docBlock is the fenced code block that follows the line starting with
// marker in the Markdown file doc.
func docBlock(t *testing.T, doc, marker string) string {
	t.Helper()
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(data), "\n"+marker)
	if !ok {
		t.Fatalf("%s has no %q", doc, marker)
	}
	_, body, ok := strings.Cut(after, "```lua\n")
	if !ok {
		t.Fatalf("%s: no lua block after %q", doc, marker)
	}
	body, _, ok = strings.Cut(body, "\n```")
	if !ok {
		t.Fatalf("%s: the lua block after %q does not end", doc, marker)
	}
	return body + "\n"
}

// TestNeovimEndToEnd runs restls serve under Neovim's built-in LSP client,
// an editor client nobody here wrote: it must complete serviceIds, publish
// diagnostics, and keep positions right after an incremental edit with
// non-ASCII text.
func TestNeovimEndToEnd(t *testing.T) {
	t.Parallel()
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		skipMissingTool(t, "nvim", "apt-get install neovim")
	}
	exe := restlstest.Binary(t)
	dir := t.TempDir()
	// A copy of the configuration under the root: the rename edits it.
	root := filepath.Join(dir, "config")
	if err := os.CopyFS(root, os.DirFS("../../testdata/config")); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "main.js")
	if err := os.WriteFile(script, []byte("// a script for the platform\nvar r = api.rest.v1.get(\"crm-ordrs\", {}, {});\nvar x = 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A script with fixtures beside it, for the dry-run commands of
	// docs/lsp.md (extracted, so the docs cannot drift from what runs).
	runScript := filepath.Join(dir, "run.js")
	if err := os.WriteFile(runScript, []byte("var r = api.rest.v1.get(\"crm-orders\", {queryParams: {status: \"open\"}}, {});\nreturn r.body;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "run.mock.yaml"), []byte("fixtures:\n  - serviceId: crm-orders\n    method: GET\n    body: {n: 7}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	snippet := filepath.Join(dir, "dry-run.lua")
	if err := os.WriteFile(snippet, []byte(docBlock(t, "../../docs/lsp.md", "<!-- nvim-dry-run")), 0o644); err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(dir, "restls.log")
	cmdJSON, _ := json.Marshal([]string{exe, "serve", "--stdio", "--config-root", root, "--log-file", logFile, "--log-level", "debug"})
	outFile := filepath.Join(dir, "out.json")
	lua, _ := filepath.Abs("testdata/nvim/e2e.lua")

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-n", "-c", "luafile "+lua)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RESTLS_CMD="+string(cmdJSON), "RESTLS_SCRIPT="+script, "RESTLS_OUT="+outFile,
		"RESTLS_DRYRUN_LUA="+snippet, "RESTLS_RUN_SCRIPT="+runScript)
	output, err := cmd.CombinedOutput()
	logs, _ := os.ReadFile(logFile)
	if err != nil {
		t.Fatalf("nvim: %v\n%s\nserver log:\n%s", err, output, logs)
	}
	raw, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatalf("nvim wrote no result: %v\n%s\nserver log:\n%s", err, output, logs)
	}
	type diag struct {
		Lnum, Col int
		Code      string
		Message   string
	}
	var res struct {
		Client      bool
		Diagnostics []diag
		Labels      []string
		Edited      []diag
		Stopped     bool
		Error       string
		DryRun      []string `json:"dry_run"`
		Notified    []string
		References  []string
		Script      string `json:"renamed_script"`
		Config      string `json:"renamed_config"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("bad result %s: %v", raw, err)
	}
	t.Logf("neovim saw: %s", raw)
	if res.Error != "" || !res.Client {
		t.Fatalf("lua failed: %s\nnvim output:\n%s\nserver log:\n%s", res.Error, output, logs)
	}
	for _, want := range []string{"crm", "crm-orders", "geo"} {
		if !slices.Contains(res.Labels, want) {
			t.Errorf("completion in the serviceId lacks %q: %q", want, res.Labels)
		}
	}
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Code != "unknown-service" || res.Diagnostics[0].Lnum != 1 ||
		res.Diagnostics[0].Col != strings.Index(`var r = api.rest.v1.get("crm-ordrs"`, "crm-ordrs") || !strings.Contains(res.Diagnostics[0].Message, "crm-orders") {
		t.Errorf("diagnostics = %+v", res.Diagnostics)
	}
	// Neovim reports byte columns: the diagnostic must start on the "ü" of
	// the serviceId, after a 2-byte ü and a 4-byte emoji earlier on the line.
	wantCol := strings.Index(`var ü = "😀"; api.rest.v1.get("ünknown-zz"`, "ünknown")
	if len(res.Edited) != 1 || res.Edited[0].Col != wantCol || res.Edited[0].Code != "unknown-service" {
		t.Errorf("diagnostics after the edit = %+v, want one unknown-service at byte column %d", res.Edited, wantCol)
	}
	// :RestlsRunMocks answered from run.mock.yaml, beside run.js.
	if len(res.DryRun) < 4 || res.DryRun[0] != "restls dry run (mock)" || res.DryRun[1] != `result: {"n": 7}` ||
		!strings.HasPrefix(res.DryRun[2], "#1 GET https://crm.example.com/") || !strings.HasSuffix(res.DryRun[2], " -> 200") ||
		!strings.HasPrefix(res.DryRun[3], "curl ") {
		t.Errorf(":RestlsRunMocks showed %q (notified %q)", res.DryRun, res.Notified)
	}
	// References of crm-orders from run.js: its definition (the copied
	// service XML) and the call, as Neovim's client received them.
	// The fixtures file beside the script names crm-orders too: a rename
	// edits it (issue 33).
	if want := []string{"config/script-code-config/script-service-api.xml:7:19", "run.js:1:26", "run.mock.yaml:2:16"}; !slices.Equal(res.References, want) {
		t.Errorf("references = %q, want %q", res.References, want)
	}
	// vim.lsp.buf.rename applied the one workspace edit to both buffers.
	if !strings.Contains(res.Script, `get("crm-orders-v2"`) || !strings.Contains(res.Config, `serviceId="crm-orders-v2"`) {
		t.Errorf("after the rename: run.js %q, service XML line 7 %q", res.Script, res.Config)
	}
	if !res.Stopped {
		t.Errorf("the server did not stop when Neovim asked it to")
	}
	if !strings.Contains(string(logs), "shutdown") {
		t.Errorf("Neovim's stop did not reach the server as shutdown:\n%s", logs)
	}
}
