package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/internal/goldentest"
)

// TestProjectRoleServiceIDs: a role's services list with an empty
// serviceId, or one holding a control character, is an error of the
// project file, where it is written, for every command that reads the
// file: an empty id once allowed a runner every service, and a designer's
// debug child, given it, now ends at its start.
func TestProjectRoleServiceIDs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	const project = "configRoot: config\nroles:\n  groups:\n    devs: {role: runner, services: [crm, \"\"]}\n    ops:\n      role: runner\n      services:\n        - \"crm\\torders\"\n"
	if err := os.WriteFile(filepath.Join(dir, "restls.yaml"), []byte(project), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"check", []string{"check", "--project", "restls.yaml"}},
		{"serve-http", []string{"serve", "--http", "127.0.0.1:0", "--project", "restls.yaml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := restlsCommand(t, tc.args...)
			cmd.Dir = dir
			cmd.Stdin = strings.NewReader("")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Bound: a serve that took the file would serve on.
			stop := time.AfterFunc(time.Minute, func() { _ = cmd.Process.Kill() })
			defer stop.Stop()
			rc := 0
			if err := cmd.Wait(); err != nil {
				rc = cmd.ProcessState.ExitCode()
			}
			if rc != 2 {
				t.Errorf("exit status %d, want 2; stderr:\n%s", rc, stderr.String())
			}
			goldentest.Check(t, filepath.Join("testdata/golden/cli", "project-role-services-"+tc.name+".txt"), stderr.String())
		})
	}
}
