package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/restls/restls/internal/goldentest"
)

// run runs restls in-process and returns stdout, stderr and the status.
func run(t testing.TB, env map[string]string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &cliEnv{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return env[k] }}
	rc := runMain(e, args)
	return out.String(), errb.String(), rc
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func TestServicesJSON(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	out, errs, rc := run(t, nil, "services", "--json", "--config-root", filepath.Join(root, "testdata/config"))
	if rc != 0 || errs != "" {
		t.Fatalf("rc %d, stderr %q", rc, errs)
	}
	var got struct {
		Kind     string `json:"kind"`
		Services map[string]struct {
			URL         string `json:"url"`
			Description string `json:"description"`
		} `json:"services"`
		Timeouts    map[string]map[string]int `json:"timeouts"`
		Diagnostics []map[string]any          `json:"diagnostics"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("not the documented JSON object: %v\n%s", err, out)
	}
	if dec.More() {
		t.Fatal("stdout must hold exactly one JSON object")
	}
	if got.Kind != "scriptService" || len(got.Services) != 12 {
		t.Errorf("kind %s, %d services", got.Kind, len(got.Services))
	}
	if s := got.Services["crm-customers"]; s.URL != "https://crm.example.com/api/v2/customers" || s.Description != "CRM customers collection" {
		t.Errorf("crm-customers = %+v", s)
	}
	if got.Timeouts["connectionTimeout"]["default"] != 2000 || got.Timeouts["readTimeout"]["maximum"] != 30000 {
		t.Errorf("timeouts = %v", got.Timeouts)
	}
	// The example is clean but for the two informations on its crm/...
	// entries, which take crm's address and not its credentials.
	if got.Diagnostics == nil || len(got.Diagnostics) != 2 {
		t.Errorf("diagnostics must be the two service-reference-no-auth informations, got %v", got.Diagnostics)
	}
	for _, d := range got.Diagnostics {
		if d["code"] != "service-reference-no-auth" || d["severity"] != "info" {
			t.Errorf("diagnostic %v, want only service-reference-no-auth informations", d)
		}
	}
	// Raw form: every service has "description", even when empty.
	if !regexp.MustCompile(`"description": ""`).MatchString(mustRun(t, "services", "--json", "--config-root", filepath.Join(root, "testdata/config-broken"))) {
		t.Error(`a service without description must show "description": ""`)
	}
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, _, _ := run(t, nil, args...)
	return out
}

func TestServicesExitStatus(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	broken := filepath.Join(root, "testdata/config-broken")
	tests := []struct {
		args []string
		rc   int
	}{
		{[]string{"services", "--config-root", broken}, 0},
		{[]string{"services", "--strict", "--config-root", broken}, 1},
		{[]string{"services", "--strict", "--config-root", filepath.Join(root, "testdata/config")}, 0},
		{[]string{"services", "--kind", "nope"}, 2},
		{[]string{"services", "--bogus"}, 2},
		{[]string{"services", "extra"}, 2},
		{[]string{"services", "-h"}, 0},
		{[]string{"nosuchcommand"}, 2},
		{[]string{}, 2},
		{[]string{"help"}, 0},
		{[]string{"help", "services"}, 0},
		{[]string{"version"}, 0},
	}
	for _, tt := range tests {
		if _, stderr, rc := run(t, nil, tt.args...); rc != tt.rc {
			t.Errorf("restls %v: status %d, want %d (stderr %q)", tt.args, rc, tt.rc, stderr)
		}
	}
}

// TestServicesText compares the table and diagnostics `restls services`
// prints for each kind of each example configuration with
// testdata/golden/services/<config>-<kind>.txt (-update rewrites them, see
// internal/goldentest). The repository root is shown as $ROOT.
func TestServicesText(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	for _, cfg := range []string{"config", "config-broken"} {
		for _, kind := range []string{"scriptService", "scriptTask", "validationScript"} {
			t.Run(cfg+"-"+kind, func(t *testing.T) {
				out, errs, rc := run(t, nil, "services", "--kind", kind, "--config-root", filepath.Join(root, "testdata", cfg))
				if rc != 0 || errs != "" {
					t.Fatalf("rc %d, stderr %q", rc, errs)
				}
				goldentest.Check(t, filepath.Join("testdata", "golden", "services", cfg+"-"+kind+".txt"), strings.ReplaceAll(out, root, "$ROOT"))
			})
		}
	}
}

func TestServicesEnvironment(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	out, _, rc := run(t, map[string]string{"RESTLS_CONFIG_ROOT": filepath.Join(root, "testdata/config")}, "services", "--json")
	if rc != 0 || !strings.Contains(out, `"crm-orders"`) {
		t.Errorf("RESTLS_CONFIG_ROOT not used (rc %d):\n%s", rc, out)
	}
	// A flag beats the environment.
	out, _, _ = run(t, map[string]string{"RESTLS_SERVICE_XML": "/nonexistent.xml"}, "services", "--json",
		"--service-xml", filepath.Join(root, "testdata/config/script-code-config/script-service-api.xml"))
	if strings.Contains(out, "nonexistent") || !strings.Contains(out, `"documents"`) {
		t.Errorf("--service-xml must override RESTLS_SERVICE_XML:\n%s", out)
	}
}

// secretsIn collects every credential written in a configuration tree, and
// their decoded forms, so a test can prove none of them is ever printed.
func secretsIn(t *testing.T, dir string) []string {
	t.Helper()
	re := regexp.MustCompile(`(?i)(?:encodedCredentials|clientSecret|password)\s*(?:[:=]\s*|="|>(?:<!\[CDATA\[)?)([^"<\s\]]+)`)
	var out []string
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range re.FindAllStringSubmatch(string(data), -1) {
			v := m[1]
			out = append(out, v)
			if b, err := base64.StdEncoding.DecodeString(v); err == nil {
				out = append(out, string(b))
				if _, pw, ok := strings.Cut(string(b), ":"); ok && len(pw) >= 4 {
					out = append(out, pw)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSecretsScanFindsTheExampleCredentials(t *testing.T) {
	t.Parallel()
	got := strings.Join(secretsIn(t, filepath.Join(repoRoot(t), "testdata/config")), "\n")
	for _, want := range []string{
		"pay-Cl1ent-S3cret",        // YAML clientSecret
		"crm-s3cret-pass",          // decoded YAML encodedCredentials
		"svc-F0rms-Passw0rd",       // XML password attribute
		"d0cs-Cl1ent-S3cret",       // XML clientSecret attribute
		"bm90aWZ5Om4wdDFmeS1wYXNz", // CDATA encodedCredentials
		"g4teway-pass",             // decoded nested basic auth of an oAuth
	} {
		if !strings.Contains(got, want) {
			t.Errorf("scan misses %q", want)
		}
	}
}

func TestNoCredentialInAnyOutput(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	dirs, _ := filepath.Glob(filepath.Join(root, "testdata/config*"))
	if len(dirs) < 2 {
		t.Fatalf("expected the example configurations, found %v", dirs)
	}
	for _, dir := range dirs {
		secrets := secretsIn(t, dir)
		if len(secrets) < 3 {
			t.Fatalf("%s: found only %d credentials; the scan must see the example's secrets", dir, len(secrets))
		}
		var all strings.Builder
		for _, kind := range []string{"scriptService", "scriptTask", "validationScript"} {
			for _, extra := range [][]string{nil, {"--json"}} {
				args := append([]string{"services", "--kind", kind, "--config-root", dir}, extra...)
				out, errs, _ := run(t, nil, args...)
				all.WriteString(out + errs)
			}
		}
		for _, s := range secrets {
			if strings.Contains(all.String(), s) {
				t.Errorf("%s: credential %q... appears in the output", dir, s[:min(3, len(s))])
			}
		}
	}
}
