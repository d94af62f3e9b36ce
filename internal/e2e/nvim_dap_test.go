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

type nvimDAPResult struct {
	Program  string
	Verified bool
	Events   []string
	Output   []string
	Steps    []struct {
		Reason, Frame string
		Line          int
		Scopes        []string
		Vars          map[string]string
		Eval          string
	}
	Exit  *int
	Error string
}

// TestNeovimDAPDocsSnippet loads docs/lsp.md's nvim-dap block as written
// in headless Neovim with restls on PATH and drives restls dap from it
// through testdata/nvim/dap.lua: a DAP client in Neovim's Lua standing in
// for nvim-dap (Debian does not package it), which starts the block's
// adapter and first configuration as nvim-dap does. A breakpoint stops
// the script, the locals are read, a step over moves to the next line,
// continue ends the run with its result.
func TestNeovimDAPDocsSnippet(t *testing.T) {
	t.Parallel()
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		skipMissingTool(t, "nvim", "apt-get install neovim")
	}
	exe := restlstest.Binary(t)
	bin := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(bin, "restls")); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	snippet := filepath.Join(dir, "dap-snippet.lua")
	if err := os.WriteFile(snippet, []byte(docsBlock(t, "### Neovim: debugging (nvim-dap)", "lua")), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := dapProject(t)
	script := filepath.Join(ws, "scripts", "debug.js")
	outFile := filepath.Join(dir, "out.json")
	lua, _ := filepath.Abs("testdata/nvim/dap.lua")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-n", "-c", "luafile "+lua)
	cmd.Dir = ws // Neovim started in the project: restls dap finds restls.yaml
	env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + dir,
		"RESTLS_SNIPPET=" + snippet, "RESTLS_SCRIPT=" + script, "RESTLS_LINE=10", "RESTLS_OUT=" + outFile}
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
	var res nvimDAPResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("bad result %s: %v", raw, err)
	}
	t.Logf("neovim saw: %s", raw)
	if res.Error != "" {
		t.Fatalf("the DAP client failed: %s\nnvim output:\n%s", res.Error, output)
	}
	if res.Program != script {
		t.Errorf("program = %q, want ${file} replaced by %s", res.Program, script)
	}
	if !res.Verified {
		t.Error("the breakpoint on line 10 was not verified")
	}
	if len(res.Steps) != 2 {
		t.Fatalf("stops: %+v, want the breakpoint and the step", res.Steps)
	}
	bp, next := res.Steps[0], res.Steps[1]
	if bp.Reason != "breakpoint" || bp.Line != 10 || bp.Frame != "(script)" {
		t.Errorf("first stop %+v, want the breakpoint at line 10 in (script)", bp)
	}
	if !slices.Contains(bp.Scopes, "Locals") || bp.Vars["res"] == "" || !strings.Contains(bp.Eval, "paid") {
		t.Errorf("at the breakpoint the locals are %v (scopes %v) and res.body.status is %q, want res with the fixture's answer", bp.Vars, bp.Scopes, bp.Eval)
	}
	if next.Reason != "step" || next.Line != 11 {
		t.Errorf("after next: %+v, want a step to line 11", next)
	}
	joined := strings.Join(res.Output, "")
	for _, want := range []string{"order 42\n", `result: {"status":"paid","total":5}`} {
		if !strings.Contains(joined, want) {
			t.Errorf("the debug output lacks %q:\n%s", want, joined)
		}
	}
	if !slices.Contains(res.Events, "terminated") || res.Exit == nil || *res.Exit != 0 {
		t.Errorf("events %v, exit %v: want terminated and restls dap exiting 0 after disconnect", res.Events, res.Exit)
	}
}
