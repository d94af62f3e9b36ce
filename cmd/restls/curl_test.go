package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/input"
	"github.com/restls/restls/internal/goldentest"
	"github.com/restls/restls/runtime/curlin"
)

// TestCurlCommand is issue 33's finding 16 for the command line: restls
// curl turns a command line given as one argument, as words or on
// standard input into the api.rest.v1 call (notes as comments above it),
// --json gives restls.pasteCurl's answer without the edit, and a URL no
// service matches says which base url to configure. What each prints is
// in testdata/golden/curl/<name>.txt (-update rewrites them).
func TestCurlCommand(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	cfg := filepath.Join(root, "testdata/config")
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		rc    int
	}{
		{"one-argument", []string{"--config-root", cfg, `curl 'https://registry.example.gov/api/companies/42?fields=name' -H 'Authorization: Basic eA==' -H 'X-Trace: 1' --compressed`}, "", 0},
		{"words", []string{"--config-root", cfg, "curl", "-X", "PUT", "https://registry.example.gov/api/companies/42", "--json", `{"name": "it's"}`}, "", 0},
		{"words-after-dashes", []string{"--config-root", cfg, "--", "-H", "X-Trace: 1", "https://registry.example.gov/api/companies"}, "", 0},
		{"url-alone", []string{"--config-root", cfg, "https://registry.example.gov/api/companies/42"}, "", 0},
		{"stdin", []string{"--config-root", cfg, "--kind", "scriptTask"}, "curl -X POST \\\n  https://crm.example.com/api/v2/orders \\\n  -d 'item=book&n=2'\n", 0},
		{"json", []string{"--json", "--config-root", cfg, "-"}, "curl https://registry.example.gov/api/companies -H 'Cookie: a=b'", 0},
		{"no-service", []string{"--config-root", cfg, "curl https://registry.example.gov/v2/companies/42"}, "", 1},
		{"unreadable", []string{"--config-root", cfg, "curl 'https://registry.example.gov/api"}, "", 1},
		{"too-long-pipeline", []string{"--config-root", cfg, "-"}, "curl https://registry.example.gov/api" + strings.Repeat("|a", 400000), 1},
		{"curl-option-first", []string{"--config-root", cfg, "-H", "X: 1", "https://registry.example.gov/api"}, "", 2},
		{"empty-stdin", []string{"--config-root", cfg}, "", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := restlsCommand(t, append([]string{"curl"}, tc.args...)...)
			cmd.Stdin = strings.NewReader(tc.stdin)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			rc := 0
			if err != nil {
				rc = cmd.ProcessState.ExitCode()
			}
			if rc != tc.rc {
				t.Fatalf("exit status %d, want %d; stderr:\n%s", rc, tc.rc, stderr.String())
			}
			if strings.Contains(stdout.String()+stderr.String(), "eA==") {
				t.Error("the pasted credential is shown")
			}
			if tc.name == "json" {
				var got curlJSON
				if err := json.Unmarshal(stdout.Bytes(), &got); err != nil || got.ServiceID != "registry" || len(got.Notes) != 1 {
					t.Errorf("--json: %v %+v", err, got)
				}
			}
			goldentest.Check(t, filepath.Join("testdata", "golden", "curl", tc.name+".txt"), "stdout:\n"+stdout.String()+"stderr:\n"+stderr.String())
		})
	}
	// Standard input is read as far as curlin reads, no further.
	if input.Curl.Limit() != curlin.MaxInputBytes {
		t.Errorf("input.Curl reads %d bytes, curlin %d", input.Curl.Limit(), curlin.MaxInputBytes)
	}
}
