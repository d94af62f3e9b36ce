package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/internal/goldentest"
)

// TestCLISlips runs the real binary the way a new user slips and checks
// what it says against golden files: a typo in a command or a flag gets
// the nearest name and one usage line (never the whole flag list), and a
// named config root that is not there is an error that says so.
func TestCLISlips(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	script := filepath.Join(t.TempDir(), "ok.js")
	if err := os.WriteFile(script, []byte("return 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "no-such-dir")
	tests := []struct {
		name string
		args []string
		env  []string
		rc   int
	}{
		{"unknown-command", []string{"servics"}, nil, 2},
		{"help-unknown-command", []string{"help", "rn"}, nil, 2},
		{"unknown-flag", []string{"services", "--config", "testdata/config"}, nil, 2},
		{"unknown-flag-after-script", []string{"run", script, "--jsn"}, nil, 2},
		{"bad-flag-value", []string{"run", "--timeout", "soon", script}, nil, 2},
		{"services-missing-root", []string{"services", "--config-root", missing}, nil, 2},
		{"run-missing-root", []string{"run", "--config-root", missing, script}, nil, 2},
		{"serve-missing-root", []string{"serve", "--config-root", missing}, nil, 2},
		{"serve-http-missing-root", []string{"serve", "--http", "127.0.0.1:0", "--config-root", missing}, nil, 2},
		{"env-root-is-a-file", []string{"services"}, []string{"RESTLS_CONFIG_ROOT=" + script}, 2},
		{"help", []string{"help"}, nil, 0},
		{"help-dap", []string{"help", "dap"}, nil, 0},
		{"help-check", []string{"help", "check"}, nil, 0},
		{"help-test", []string{"help", "test"}, nil, 0},
		{"dap-request-stdin-listen", []string{"dap", "--request-stdin", "--listen", "127.0.0.1:0"}, nil, 2},
		{"dap-request-stdin-empty", []string{"dap", "--request-stdin"}, nil, 2},
		{"dap-request-stdin-project", []string{"dap", "--request-stdin", "--config-root", "testdata/config"}, nil, 2},
		{"dap-allow-services-empty", []string{"dap", "--allow-services="}, nil, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := restlsCommand(t, tc.args...)
			cmd.Dir = root
			cmd.Env = append(cmd.Env, tc.env...)
			cmd.Stdin = strings.NewReader("")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			rc := 0
			if err != nil {
				rc = cmd.ProcessState.ExitCode()
			}
			if rc != tc.rc {
				t.Errorf("exit status %d, want %d; stderr:\n%s", rc, tc.rc, stderr.String())
			}
			out := "stdout:\n" + stdout.String() + "stderr:\n" + stderr.String()
			out = strings.ReplaceAll(out, missing, "$MISSING")
			out = strings.ReplaceAll(out, script, "$SCRIPT")
			goldentest.Check(t, filepath.Join("testdata/golden/cli", tc.name+".txt"), out)
		})
	}
}

// TestHelpSynopsesNameEveryFlag: the usage line of each command's help
// names every flag its Flags section lists (the configuration flags as
// "[config flags]"), so no flag hides at the bottom of the page.
func TestHelpSynopsesNameEveryFlag(t *testing.T) {
	t.Parallel()
	configFlags := map[string]bool{"config-root": true, "properties": true, "service-xml": true, "handler-xml": true, "platform-config": true, "project": true, "env": true}
	for _, name := range []string{"run", "services", "dap"} {
		out, _, rc := run(t, nil, "help", name)
		if rc != 0 {
			t.Fatalf("help %s: rc %d", name, rc)
		}
		synopsis, _, _ := strings.Cut(out, "\n")
		_, flags, _ := strings.Cut(out, "\nFlags:\n")
		n := 0
		for _, line := range strings.Split(flags, "\n") {
			f, ok := strings.CutPrefix(line, "  -")
			if !ok {
				continue
			}
			f = strings.FieldsFunc(f, func(r rune) bool { return r == ' ' || r == '\t' })[0]
			n++
			want := "--" + f
			if len(f) == 1 {
				want = "-" + f
			}
			if configFlags[f] {
				want = "[config flags]"
			}
			if !strings.Contains(synopsis+" ", want+" ") && !strings.Contains(synopsis, "["+want+" ") && !strings.Contains(synopsis, "["+want+"]") {
				t.Errorf("restls help %s: the usage line %q leaves out %s", name, synopsis, want)
			}
		}
		if n < 5 {
			t.Errorf("restls help %s: found %d flags in\n%s", name, n, out)
		}
	}
}

// TestHelpNamesEveryMode: the modes a command has besides its default
// (services --diff, serve --http) are in restls help's list and in their
// command's help, and 'restls help CMD --MODE' prints the mode's own help.
func TestHelpNamesEveryMode(t *testing.T) {
	t.Parallel()
	help := func(args ...string) string {
		t.Helper()
		cmd := restlsCommand(t, append([]string{"help"}, args...)...)
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("restls help %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	list := help()
	for _, mode := range []struct{ cmd, flag, synopsis string }{
		{"services", "--diff", "Usage: restls services --diff A B"},
		{"serve", "--http", "Usage: restls serve "},
	} {
		if !strings.Contains(list, "\n  "+mode.cmd+" "+mode.flag+" ") {
			t.Errorf("restls help does not list %s %s:\n%s", mode.cmd, mode.flag, list)
		}
		if own := help(mode.cmd); !strings.Contains(own, mode.flag) {
			t.Errorf("restls help %s does not mention %s:\n%s", mode.cmd, mode.flag, own)
		}
		if own := help(mode.cmd, mode.flag); !strings.HasPrefix(own, mode.synopsis) {
			t.Errorf("restls help %s %s: want its own help (%q...), got:\n%s", mode.cmd, mode.flag, mode.synopsis, own)
		}
	}
}
