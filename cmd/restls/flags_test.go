package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/restls/restls/workspace"
)

// TestSettingNamesAgree holds the commands' flags and the VS Code
// extension's settings to the one table of setting names
// (workspace.Settings; lsp's and workspace's tests hold the server's
// settings and restls.yaml's keys to it). A setting added to one surface
// and not written in the table, or named differently, fails.
func TestSettingNamesAgree(t *testing.T) {
	t.Parallel()
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
	table := workspace.Settings()
	for _, s := range table {
		if s.Flag != "" && !flags[s.Flag] {
			t.Errorf("flag --%s is in the table but no command registers it", s.Flag)
		}
		if _, ok := vscode["restls."+s.Editor]; s.VSCode && !ok {
			t.Errorf("VS Code offers no restls.%s, which the table says it does", s.Editor)
		} else if ok && !s.VSCode {
			t.Errorf("VS Code offers restls.%s: mark it VSCode in the table", s.Editor)
		}
	}
	// VS Code's settings of the extension itself, not the server's.
	clientOnly := []string{"path", "serverArgs", "serverEnv", "logLevel", "trace.server", "dryRun.mode"}
	for key := range vscode {
		name := strings.TrimPrefix(key, "restls.")
		if !slices.Contains(clientOnly, name) && !slices.ContainsFunc(table, func(s workspace.Setting) bool { return s.Editor == name }) {
			t.Errorf("VS Code offers %s, which is neither in workspace.Settings nor one of the extension's own settings", key)
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

// TestSourceFlagsPassedOn holds the configuration flags a server passes
// to its designer debug child (configFlags.args, debugChildren) to the
// table: every source flag of workspace.Settings, given on the command
// line, is passed on as given, and the child reading them reads the
// same sources.
func TestSourceFlagsPassedOn(t *testing.T) {
	var given []string
	for _, s := range workspace.Settings() {
		if s.Source != nil {
			given = append(given, "--"+s.Flag, "v-"+s.Flag)
		}
	}
	given = append(given, "--properties", "second.properties")
	parse := func(args []string) configFlags {
		cf := configFlags{env: &cliEnv{}}
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		cf.register(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return cf
	}
	server := parse(given)
	if !slices.Equal(server.args, given) {
		t.Fatalf("passed on %q, want %q", server.args, given)
	}
	child := parse(server.args)
	if !reflect.DeepEqual(child.flags, server.flags) {
		t.Fatalf("the child reads %+v, the server %+v", child.flags, server.flags)
	}
}
