package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/internal/goldentest"
)

// TestFaultsCommand: restls faults, through the binary, reruns a script
// with each call failing each way from the fixtures beside it: the table
// (golden) shows each verdict at its call site, crashed fails the exit
// status, a correct script passes, --json carries the same findings, and
// a script that fails with its fixtures is refused with exit 1.
func TestFaultsCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// The address refuses: a run that reached it would say so.
	write("services.xml", `<scriptservice><api serviceId="crm" url="http://127.0.0.1:1/api"/></scriptservice>`)
	write("orders.js", `var customer;
try {
  customer = api.rest.v1.get("crm", {pathParams: ["customers", "42"]}, {}).body;
} catch (e) {
  if (e.status.code === 404) return null;
  throw e;
}
return customer.name;
`)
	write("orders.mock.yaml", "- {serviceId: crm, body: {name: Ada}}\n")
	write("safe.js", `try {
  return api.rest.v1.get("crm", {pathParams: ["customers", "42"]}, {}).body.name;
} catch (e) {
  if (e.status && e.status.code === 404) return null;
  return "unknown";
}
`)
	write("fails.js", `return api.rest.v1.get("crm", {}, {}).body;`)
	run := func(args ...string) (string, string, int) {
		t.Helper()
		cmd := restlsCommand(t, append([]string{"faults", "--service-xml", "services.xml"}, args...)...)
		cmd.Dir = dir
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		runWithin(t, cmd, 2*time.Minute, func() string { return out.String() + errb.String() })
		return out.String(), errb.String(), cmd.ProcessState.ExitCode()
	}

	out, stderr, rc := run("orders.js")
	if rc != 1 || stderr != "" {
		t.Errorf("orders.js: exit %d, stderr %q; want 1 (crashed), nothing on stderr", rc, stderr)
	}
	goldentest.Check(t, filepath.Join("testdata", "golden", "faults", "orders.txt"), out)

	out, _, rc = run("--mock", "orders.mock.yaml", "--json", "--outcomes", "404,read-timeout", "safe.js")
	var rep struct {
		Sites []struct {
			Line int `json:"line"`
		} `json:"sites"`
		Findings []struct {
			Outcome, Verdict string
		} `json:"findings"`
		Runs int `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if rc != 0 || rep.Runs != 2 || len(rep.Sites) != 1 || rep.Sites[0].Line != 2 || len(rep.Findings) != 2 ||
		rep.Findings[0].Verdict != "handled" || rep.Findings[1].Verdict != "handled" {
		t.Errorf("safe.js: exit %d, %s", rc, out)
	}

	// Every status code 300-599 is an outcome; a name that is none is refused.
	_, stderr, rc = run("--mock", "orders.mock.yaml", "--outcomes", "5033", "safe.js")
	if rc != 2 || !strings.Contains(stderr, `outcome "5033"`) {
		t.Errorf("unknown outcome: exit %d, %q", rc, stderr)
	}
	_, stderr, rc = run("fails.js")
	if rc != 1 || !strings.Contains(stderr, "fails.js: the script fails with its fixtures (RestClientError: no fixture") {
		t.Errorf("fails.js: exit %d, %q", rc, stderr)
	}

	// --openapi: the statuses the operation documents, with their bodies.
	write("crm.json", `{"openapi":"3.1.0","info":{"title":"crm","version":"1"},"paths":{"/customers/{id}":{"get":{"responses":{
		"200":{"description":"ok"},
		"409":{"description":"locked","content":{"application/json":{"schema":{"type":"object"},"example":{"locked":true}}}}}}}}}`)
	out, _, rc = run("--mock", "orders.mock.yaml", "--json", "--openapi", "crm=crm.json", "safe.js")
	var documented struct {
		Sites []struct {
			Operation string `json:"operation"`
		} `json:"sites"`
		Findings []struct {
			Outcome    string          `json:"outcome"`
			Documented bool            `json:"documented"`
			Fixture    json.RawMessage `json:"fixture"`
		} `json:"findings"`
	}
	err := json.Unmarshal([]byte(out), &documented)
	var fixture bytes.Buffer
	if err == nil && len(documented.Findings) > 0 {
		err = json.Compact(&fixture, documented.Findings[0].Fixture)
	}
	if err != nil || rc != 0 || len(documented.Findings) != 8 ||
		documented.Sites[0].Operation != "GET /customers/{id}" || documented.Findings[0].Outcome != "409" || !documented.Findings[0].Documented ||
		fixture.String() != `{"serviceId":"crm","method":"GET","path":"customers/42","times":1,"status":409,"body":{"locked":true}}` {
		t.Errorf("--openapi: exit %d, %v\n%s", rc, err, out)
	}

	// SARIF: a finding at the call site naming the outcome, errors for
	// the failing verdicts; GitHub: the same as annotations; JUnit: a
	// testcase per (site, outcome).
	out, _, rc = run("--format", "sarif", "--junit", "faults.xml", "orders.js")
	var sarif struct {
		Runs []struct {
			Results []struct {
				RuleID, Level string
				Message       struct{ Text string }
				Locations     []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &sarif); err != nil || rc != 1 || len(sarif.Runs) != 1 || len(sarif.Runs[0].Results) != 6 {
		t.Fatalf("sarif: exit %d, %v\n%s", rc, err, out)
	}
	r := sarif.Runs[0].Results[3]
	if r.RuleID != "fault-crashed" || r.Level != "error" || r.Locations[0].PhysicalLocation.Region.StartLine != 3 ||
		r.Locations[0].PhysicalLocation.ArtifactLocation.URI != "orders.js" || !strings.Contains(r.Message.Text, "answered connect-timeout: crashed") {
		t.Errorf("sarif result %+v", r)
	}
	if r := sarif.Runs[0].Results[0]; r.RuleID != "fault-escaped" || r.Level != "warning" {
		t.Errorf("escaped is reported, not failed: %+v", r)
	}
	junit, err := os.ReadFile(filepath.Join(dir, "faults.xml"))
	if err != nil || strings.Count(string(junit), "<testcase ") != 7 || strings.Count(string(junit), "<failure ") != 4 ||
		!strings.Contains(string(junit), `name="faults: GET crm customers/42 answers read-timeout"`) {
		t.Errorf("junit: %v\n%s", err, junit)
	}
	out, _, rc = run("--format", "github", "--fail", "escaped", "orders.js")
	if rc != 1 || strings.Count(out, "::error file=orders.js,line=3,") != 2 || strings.Count(out, "::warning ") != 4 ||
		!strings.Contains(out, "title=fault-escaped::GET crm path") {
		t.Errorf("github --fail escaped: exit %d\n%s", rc, out)
	}
	// The project file's faults.fail: escaped fails safe.js? It escapes nothing;
	// orders.js with fail [escaped] only: its crashes are reported, not failed.
	write("restls.yaml", "serviceXml: services.xml\nfaults:\n  fail: [escaped]\n")
	out, _, rc = run("--outcomes", "404,read-timeout", "orders.js")
	if rc != 0 || !strings.Contains(out, "1 handled, 1 crashed\n") {
		t.Errorf("faults.fail [escaped]: exit %d\n%s", rc, out)
	}
}

// TestTestFaults: restls test --faults, through the binary, explores each
// test's error paths: the crash of an unchecked e.status.code fails the
// test at the call's line, the table follows it (golden), --fail from
// the project file is used, and --update adds a case per escaped or
// crashed outcome that the next run passes.
func TestTestFaults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("services.xml", `<scriptservice><api serviceId="crm" url="http://127.0.0.1:1/api"/></scriptservice>`)
	write("orders.js", "var customer;\ntry {\n  customer = api.rest.v1.get(\"crm\", {pathParams: [\"customers\", \"42\"]}, {}).body;\n} catch (e) {\n  if (e.status.code === 404) return null;\n  throw e;\n}\nreturn customer.name;\n")
	write("orders.test.yaml", "script: orders.js\nfixtures:\n  - {serviceId: crm, body: {name: Ada}}\ncases:\n  - name: answers\n    result: Ada\n")
	run := func(args ...string) (string, int) {
		t.Helper()
		cmd := restlsCommand(t, append([]string{"test", "--service-xml", "services.xml"}, args...)...)
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		runWithin(t, cmd, 2*time.Minute, func() string { return out.String() })
		return out.String(), cmd.ProcessState.ExitCode()
	}
	out, rc := run("orders.test.yaml")
	if rc != 0 || strings.Contains(out, "FAULTS") {
		t.Fatalf("without --faults: exit %d\n%s", rc, out)
	}
	out, rc = run("--faults", "--junit", "junit.xml", "orders.test.yaml")
	if rc != 1 {
		t.Errorf("--faults: exit %d, want 1 (crashed)", rc)
	}
	goldentest.Check(t, filepath.Join("testdata", "golden", "faults", "test.txt"), out)
	junit, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err != nil || !strings.Contains(string(junit), `faults: orders.js:3 GET crm path &#34;customers/42&#34; answered read-timeout: crashed: TypeError at line 5`) {
		t.Errorf("junit: %v\n%s", err, junit)
	}
	write("restls.yaml", "serviceXml: services.xml\nfaults: {fail: [unanswered]}\n")
	if out, rc = run("--faults", "orders.test.yaml"); rc != 0 {
		t.Errorf("faults.fail [unanswered]: exit %d\n%s", rc, out)
	}
	if out, rc = run("--faults", "--fail", "crashed", "--update", "orders.test.yaml"); rc != 1 || !strings.Contains(out, "6 updated") {
		t.Errorf("--update: exit %d\n%s", rc, out)
	}
	if out, rc = run("--run", "faults:", "orders.test.yaml"); rc != 0 || !strings.Contains(out, "6 passed, 0 failed") {
		t.Errorf("the added cases: exit %d\n%s", rc, out)
	}
}
