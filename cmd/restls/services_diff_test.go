package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/internal/goldentest"
)

// diffProject writes two platform directories, a and b, and a restls.yaml
// whose environments name them. b: crm moved host, geo plain http, hr
// gone, billing new, orders unusable, pay with oAuth instead of basic, a
// longer read timeout; the scriptTask side only lost "tasks".
func diffProject(t *testing.T) string {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"a/application.yml": `scriptservice:
  api:
    - serviceId: crm
      url: https://crm.example.com/v2
    - serviceId: orders
      url: crm/orders
    - serviceId: geo
      url: https://geo.example.com
    - serviceId: hr
      url: https://hr.example.com
    - serviceId: pay
      url: https://pay.example.com
      authorization:
        type: basic
        encodedCredentials: dXNlcjpzM2NyZXQ=
`,
		"a/script-handler-config/script-handler-api.xml": `<scriptservice><api serviceId="tasks" url="https://tasks.example.com"/></scriptservice>`,
		"b/application.yml": `scriptservice:
  api:
    - serviceId: crm
      url: https://crm2.example.com/v2
    - serviceId: orders
      url: nope/orders
    - serviceId: geo
      url: http://geo.example.com
    - serviceId: billing
      url: https://billing.example.com
    - serviceId: pay
      url: https://pay.example.com/
      authorization:
        type: oAuth
        id: o
  oAuth:
    - id: o
      url: https://auth.example.com/token
      grantType: client_credentials
      clientAuthenticationMethod: client_secret_post
      clientId: c
      clientSecret: very-secret-value
`,
		"b/config.xml": `<config><acme><restclient><read-timeout default="10000" maximum="60000"/></restclient></acme></config>`,
		"restls.yaml":  "configRoot: a\nenvironments:\n  test: {}\n  prod:\n    configRoot: b\ndefaultEnvironment: test\n",
	})
	return dir
}

func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestServicesDiff: two config roots; the text is golden, the paths made
// stable.
func TestServicesDiff(t *testing.T) {
	t.Parallel()
	dir := diffProject(t)
	out, errs, rc := run(t, nil, "services", "--diff", filepath.Join(dir, "a"), filepath.Join(dir, "b"))
	if rc != 1 || errs != "" {
		t.Fatalf("rc %d, stderr %q", rc, errs)
	}
	if strings.Contains(out, "very-secret-value") || strings.Contains(out, "dXNlcjpzM2NyZXQ=") {
		t.Fatalf("a credential in the output:\n%s", out)
	}
	goldentest.Check(t, "testdata/golden/services_diff.txt", strings.ReplaceAll(out, dir, "DIR"))
}

// TestServicesDiffEnvironments: A and B as environments of restls.yaml,
// flags after the operands, JSON.
func TestServicesDiffEnvironments(t *testing.T) {
	t.Parallel()
	dir := diffProject(t)
	out, errs, rc := run(t, nil, "services", "--diff", "test", "prod", "--project", filepath.Join(dir, "restls.yaml"), "--json", "--kind", "scriptTask")
	if rc != 1 || errs != "" {
		t.Fatalf("rc %d, stderr %q", rc, errs)
	}
	var got servicesDiffJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !got.Differ || len(got.Kinds) != 1 || got.Kinds[0].Kind != "scriptTask" {
		t.Fatalf("%+v", got)
	}
	var whats []string
	for _, d := range got.Kinds[0].Differences {
		whats = append(whats, d.ServiceID+" "+d.What+": "+d.A+" -> "+d.B)
	}
	want := []string{"billing missing: not configured -> https://billing.example.com",
		"crm url: https://crm.example.com/v2 -> https://crm2.example.com/v2",
		"geo http: https -> http",
		"hr missing: https://hr.example.com -> not configured",
		`orders unusable: https://crm.example.com/v2/orders -> unusable: service "orders" refers to "nope", which is not defined (the service is unusable)`,
		"pay auth: basic -> oAuth client_credentials",
		"tasks missing: https://tasks.example.com -> not configured",
		" timeouts: readTimeout maximum 30000 ms -> readTimeout maximum 60000 ms"}
	if strings.Join(whats, "\n") != strings.Join(want, "\n") {
		t.Errorf("differences\n%s\nwant\n%s", strings.Join(whats, "\n"), strings.Join(want, "\n"))
	}
}

// TestServicesDiffSame: identical configurations exit 0; a wrong
// operand count or an unknown environment exits 2.
func TestServicesDiffSame(t *testing.T) {
	t.Parallel()
	dir := diffProject(t)
	a := filepath.Join(dir, "a")
	out, errs, rc := run(t, nil, "services", "--diff", a, a)
	if rc != 0 || errs != "" || !strings.Contains(out, "the configurations do not differ") {
		t.Errorf("rc %d, stderr %q, out:\n%s", rc, errs, out)
	}
	if _, errs, rc := run(t, nil, "services", "--diff", a); rc != 2 || !strings.Contains(errs, "want two configurations") {
		t.Errorf("one operand: rc %d, stderr %q", rc, errs)
	}
	if _, errs, rc := run(t, nil, "services", "--diff", a, "staging", "--project", filepath.Join(dir, "restls.yaml")); rc != 2 || !strings.Contains(errs, `no environment "staging"`) {
		t.Errorf("unknown environment: rc %d, stderr %q", rc, errs)
	}
}
