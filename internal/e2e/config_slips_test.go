package e2e_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckStrictPassesOnLoopbackServices (issue 24): services on
// http://127.0.0.1 and http://localhost each got "HTTPS recommended", so
// check --strict failed on every local development configuration.
func TestCheckStrictPassesOnLoopbackServices(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "application.yml", `scriptservice:
  api:
    - serviceId: local
      url: http://127.0.0.1:8080/api
    - serviceId: dev
      url: http://localhost:3000
    - serviceId: six
      url: http://[::1]:8081/
`)
	writeFile(t, dir, "s.js", "return api.rest.v1.get(\"local\", {}, {}).status.code;\n")
	cmd := restlsCommand(t, "check", "--strict", "--config-root", dir, dir)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "service-insecure-url") {
		t.Errorf("check --strict: %v\n%s", err, out)
	}
	// Another host still gets the warning, and --strict fails on it.
	writeFile(t, dir, "application.yml", "scriptservice:\n  api:\n    - serviceId: local\n      url: http://10.0.0.1/\n")
	out, err = restlsCommand(t, "check", "--strict", "--config-root", dir, dir).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "service-insecure-url") {
		t.Errorf("check --strict with http://10.0.0.1: %v\n%s", err, out)
	}
}

// TestServicesCountsInWords (issue 24): restls services with no
// configuration said "1 diagnostics".
func TestServicesCountsInWords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := restlsCommand(t, "services")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if s := out.String(); !strings.Contains(s, "0 services for scriptService") || !strings.Contains(s, "\n1 diagnostic:\n") || strings.Contains(s, "1 diagnostics") {
		t.Errorf("output:\n%s", s)
	}
	writeFile(t, dir, "application.yml", "scriptservice:\n  api:\n    - serviceId: one\n      url: https://one.example.com\n    - serviceId: two\n      url: two\n")
	b, err := restlsCommand(t, "services", "--config-root", dir).CombinedOutput()
	if s := string(b); err != nil || !strings.Contains(s, "1 service for scriptService") || !strings.Contains(s, "\n1 diagnostic:\n") {
		t.Errorf("%v\n%s", err, s)
	}
}

// TestUnknownServiceMessageIsSentences (issue 24): without a near id the
// unknown-service message ran on into "Run restls services" without a
// full stop.
func TestUnknownServiceMessageIsSentences(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(repoRoot(t), "testdata/config")
	script := writeFile(t, t.TempDir(), "s.js", "return api.rest.v1.get(\"zzzzzzzzzzzzzzzz\", {}, {}).status.code;\n")
	out, _ := restlsCommand(t, "run", "--config-root", cfg, script).CombinedOutput()
	want := `serviceId "zzzzzzzzzzzzzzzz" is not configured for scriptService scripts. Run restls services --kind scriptService for the configured ids and the configuration diagnostics.`
	if !strings.Contains(string(out), want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}
