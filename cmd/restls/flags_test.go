package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/restls/restls/lsp"
	"github.com/restls/restls/workspace"
)

// TestSettingNamesAgree holds every surface's names of a setting to the
// table in flags.go: the flags the commands register, the language
// server's settings, the VS Code extension's settings and the project
// file's keys. A setting added to one surface and not written in the
// table, or named differently, fails here.
func TestSettingNamesAgree(t *testing.T) {
	editor := lsp.SettingNames()
	project := workspace.Keys()
	var pkg struct {
		Contributes struct {
			Configuration struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"configuration"`
		} `json:"contributes"`
	}
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "vscode-extension", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatal(err)
	}
	vscode := pkg.Contributes.Configuration.Properties

	flags := map[string]bool{}
	for _, cmd := range []string{"check", "run", "test", "services", "serve"} {
		for _, f := range flagNames(t, cmd) {
			flags[f] = true
		}
	}
	inTable := func(pick func(setting) string, name string) bool {
		return slices.ContainsFunc(settings, func(s setting) bool { return pick(s) == name })
	}
	for _, s := range settings {
		if s.flag != "" && !flags[s.flag] {
			t.Errorf("flag --%s is in the table but no command registers it", s.flag)
		}
		if s.editor != "" && !slices.Contains(editor, s.editor) {
			t.Errorf("editor setting %q is in the table but the language server does not read it (lsp.SettingNames: %v)", s.editor, editor)
		}
		if s.project != "" && !slices.Contains(project, s.project) {
			t.Errorf("project key %q is in the table but restls.yaml has no such key (workspace.Keys: %v)", s.project, project)
		}
		if _, ok := vscode["restls."+s.editor]; s.vscode && !ok {
			t.Errorf("VS Code offers no restls.%s, which the table says it does", s.editor)
		} else if ok && !s.vscode {
			t.Errorf("VS Code offers restls.%s: mark it vscode in the table", s.editor)
		}
	}
	for _, name := range editor {
		if !inTable(func(s setting) string { return s.editor }, name) {
			t.Errorf("the language server reads the setting %q, which the table of flags.go does not name", name)
		}
	}
	// The project file's keys that are not a setting of the others.
	projectOnly := []string{"environments", "check", "fixtures", "roles"}
	for _, key := range project {
		if !slices.Contains(projectOnly, key) && !inTable(func(s setting) string { return s.project }, key) {
			t.Errorf("restls.yaml has the key %q, which the table of flags.go does not name", key)
		}
	}
	// VS Code's settings of the extension itself, not the server's.
	clientOnly := []string{"path", "serverArgs", "serverEnv", "logLevel", "include", "environments", "trace.server", "dryRun.mode"}
	for key := range vscode {
		name := strings.TrimPrefix(key, "restls.")
		if !slices.Contains(clientOnly, name) && !inTable(func(s setting) string { return s.editor }, name) {
			t.Errorf("VS Code offers %s, which is neither in the table of flags.go nor one of the extension's own settings", key)
		}
	}
}

// flagNames are the flags restls help CMD lists.
func flagNames(t *testing.T, cmd string) []string {
	t.Helper()
	var out bytes.Buffer
	env := &cliEnv{stdin: strings.NewReader(""), stdout: &out, stderr: &out, getenv: func(string) string { return "" }}
	if rc := runMain(env, []string{"help", cmd}); rc != 0 {
		t.Fatalf("restls help %s: exit %d\n%s", cmd, rc, out.String())
	}
	var names []string
	for _, m := range flagLine.FindAllStringSubmatch(out.String(), -1) {
		names = append(names, m[1])
	}
	if len(names) == 0 {
		t.Fatalf("restls help %s lists no flag:\n%s", cmd, out.String())
	}
	return names
}

var flagLine = regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`)
