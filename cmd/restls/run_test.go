package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunExamplePreview(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	out, errs, rc := run(t, nil, "run", "--config-root", filepath.Join(root, "testdata/config"),
		"--mock", filepath.Join(root, "testdata/mocks/customer-summary.yaml"), filepath.Join(root, "testdata/scripts/customer-summary.js"))
	if rc != 0 || errs != "" {
		t.Fatalf("rc %d, stderr %q\n%s", rc, errs, out)
	}
	for _, want := range []string{
		"[1] GET crm-customers https://crm.example.com/api/v2/customers/42\n",
		"[2] GET crm-orders https://crm.example.com/api/v2/orders?customerId=42&status=open\n",
		"< 503 Service Unavailable",
		"console.warn (line 20): address lookup failed: 503 Service Unavailable",
		"> Authorization: Bearer ***",
		"result:\n",
		`"balance": "310.25 EUR"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("preview lacks %q:\n%s", want, out)
		}
	}
}

func TestRunJSONIsOneObject(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	dir := t.TempDir()
	input := writeFile(t, dir, "in.json", `{"customerId": 7}`)
	out, errs, rc := run(t, nil, "run", "--json", "--input", input, "--config-root", filepath.Join(root, "testdata/config"),
		"--mock", filepath.Join(root, "testdata/mocks/customer-summary.yaml"), filepath.Join(root, "testdata/scripts/customer-summary.js"))
	if rc != 0 || errs != "" {
		t.Fatalf("rc %d, stderr %q", rc, errs)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	var got map[string]json.RawMessage
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if dec.More() {
		t.Fatal("more than one JSON value on stdout")
	}
	for _, k := range []string{"result", "error", "calls", "logs", "kind", "mode"} {
		if _, ok := got[k]; !ok {
			t.Errorf("key %q missing", k)
		}
	}
	// The mode, as every other door of a dry run says it (issue 34).
	if len(got) != 6 || string(got["error"]) != "null" || string(got["kind"]) != `"scriptService"` || string(got["mode"]) != `"mock"` {
		t.Errorf("object %s", out)
	}
	var calls []struct {
		ServiceID       string            `json:"serviceId"`
		Method          string            `json:"method"`
		URL             string            `json:"url"`
		RequestHeaders  map[string]string `json:"requestHeaders"`
		Status          *struct{ Code int }
		ResponseHeaders map[string]string `json:"responseHeaders"`
		ResponseBody    json.RawMessage   `json:"responseBody"`
		DurationMs      *float64          `json:"durationMs"`
	}
	if err := json.Unmarshal(got["calls"], &calls); err != nil || len(calls) != 4 {
		t.Fatalf("calls %s: %v", got["calls"], err)
	}
	if c := calls[0]; c.ServiceID != "crm-customers" || c.Method != "GET" || c.URL != "https://crm.example.com/api/v2/customers/7" ||
		c.RequestHeaders["Accept"] != "application/json" || c.Status.Code != 200 || c.ResponseHeaders["content-type"] != "application/json" || c.DurationMs == nil {
		t.Errorf("call 0 %+v", c)
	}
	if calls[3].RequestHeaders["Authorization"] != "Bearer ***" {
		t.Errorf("payments headers %v", calls[3].RequestHeaders)
	}
}

func TestRunErrorsAndExitCodes(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	cfg := filepath.Join(root, "testdata/config")
	dir := t.TempDir()
	throws := writeFile(t, dir, "throws.js", "var a = 1;\napi.rest.v1.get(\"crm-custmers\", {}, {});\n")
	ok := writeFile(t, dir, "ok.js", "return context.input;")
	badJSON := writeFile(t, dir, "bad.json", "{")
	badMock := writeFile(t, dir, "bad.yaml", "fixtures: [{method: GET}]")

	out, _, rc := run(t, nil, "run", "--json", "--config-root", cfg, throws)
	var res struct {
		Error struct {
			Name, Message, Code string
			Line, Column        int
		}
	}
	if rc != 1 || json.Unmarshal([]byte(out), &res) != nil || res.Error.Name != "RestClientError" || res.Error.Code != "unknown-service" || res.Error.Line != 2 {
		t.Fatalf("rc %d, %s", rc, out)
	}
	out, _, rc = run(t, nil, "run", "--config-root", cfg, throws)
	if rc != 1 || !strings.Contains(out, "uncaught error at "+throws+":2:18: RestClientError [unknown-service]") || !strings.Contains(out, `did you mean "crm-customers"`) {
		t.Fatalf("rc %d:\n%s", rc, out)
	}
	// Flags may follow the script.
	out, _, rc = run(t, nil, "run", ok, "--json", "--config-root", cfg)
	if rc != 0 || !strings.Contains(out, `"result": {}`) {
		t.Fatalf("flags after SCRIPT: rc %d\n%s", rc, out)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--config-root", cfg}, "expected exactly one SCRIPT"},
		{[]string{"run", "--config-root", cfg, ok, ok}, "expected exactly one SCRIPT"},
		{[]string{"run", "--config-root", cfg, filepath.Join(dir, "missing.js")}, "cannot read the script"},
		{[]string{"run", "--kind", "nope", "--config-root", cfg, ok}, "unknown script kind"},
		{[]string{"run", "--input", badJSON, "--config-root", cfg, ok}, "is not valid JSON"},
		{[]string{"run", "--mock", badMock, "--config-root", cfg, ok}, "serviceId is required"},
		{[]string{"run", "--timeout", "0s", "--config-root", cfg, ok}, "--timeout must be positive"},
		{[]string{"run", "--config-root", filepath.Join(dir, "nothing-here"), ok}, "nothing-here does not exist"},
		{[]string{"run", "--config-root", dir, ok}, "no service configuration found"},
		{[]string{"run", "--bogus", ok}, "unknown flag --bogus"},
	} {
		_, errs, rc := run(t, nil, tt.args...)
		if rc != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: rc %d, stderr %q, want 2 and %q", tt.args, rc, errs, tt.want)
		}
	}
	out, _, rc = run(t, nil, "run", "-h")
	if rc != 0 || !strings.Contains(out, "Usage: restls run") {
		t.Errorf("help: rc %d %q", rc, out)
	}
}

func TestRunKindPicksTheRegistry(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	dir := t.TempDir()
	script := writeFile(t, dir, "task.js", `return api.rest.v1.post("archive-cases", {pathParams: ["c-1"]}, {}, {done: true}).status.code;`)
	mock := writeFile(t, dir, "m.json", `[{"serviceId": "archive-cases", "method": "POST", "path": "*", "status": 201, "body": {}}]`)
	args := []string{"run", "--json", "--config-root", filepath.Join(root, "testdata/config"), "--mock", mock, script}
	out, _, rc := run(t, nil, append([]string{args[0], "--kind", "scriptTask"}, args[1:]...)...)
	if rc != 0 || !strings.Contains(out, `"result": 201`) {
		t.Fatalf("scriptTask: rc %d\n%s", rc, out)
	}
	// archive-cases reuses archive's address but not its basic auth.
	if !strings.Contains(out, `"url": "https://archive.example.com/api/cases/c-1"`) {
		t.Errorf("url: %s", out)
	}
	out, _, rc = run(t, nil, args...)
	if rc != 1 || !strings.Contains(out, `"code": "unknown-service"`) {
		t.Fatalf("scriptService must not see archive-cases: rc %d\n%s", rc, out)
	}
	if bytes.Contains([]byte(out), []byte("YXJjaGl2ZXI6YXJjaDF2ZS1wYXNz")) {
		t.Error("credential in output")
	}
}

// TestRunOutputsHoldNoConfiguredSecret runs calls to every authenticated
// service of the example configuration, in both output modes with debug
// logs on, and scans stdout and stderr for every credential the
// configuration holds, raw and decoded.
func TestRunOutputsHoldNoConfiguredSecret(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	dir := t.TempDir()
	script := writeFile(t, dir, "all.js", `
var out = [];
["crm", "registry", "notify", "payments", "documents", "hr", "geo"].forEach(function (id) {
  var r = api.rest.v1.post(id, {pathParams: ["x"]}, {"Authorization": "Basic aGFyZDpjMGRlZC1zZWNyZXQ="}, {});
  console.log(id, r);
  out.push(r);
});
throw new Error(JSON.stringify(out));`)
	var fixtures []string
	for _, id := range []string{"crm", "registry", "notify", "payments", "documents", "hr", "geo"} {
		fixtures = append(fixtures, `{"serviceId": "`+id+`", "body": {"ok": true}}`)
	}
	mock := writeFile(t, dir, "m.json", "["+strings.Join(fixtures, ",")+"]")
	secrets := []string{
		"Y3JtLXJvYm90OmNybS1zM2NyZXQtcGFzcw==", "crm-s3cret-pass",
		"cmVnaXN0cnktdXNlcjpyM2c1dHJ5LXA0c3M=", "r3g5try-p4ss",
		"bm90aWZ5Om4wdDFmeS1wYXNz", "n0t1fy-pass",
		"pay-Cl1ent-S3cret", "d0cs-Cl1ent-S3cret", "svc-F0rms-Passw0rd", "hr-Cl1ent-S3cret",
		"Z2F0ZXdheTpnNHRld2F5LXBhc3M=", "g4teway-pass",
		"aGFyZDpjMGRlZC1zZWNyZXQ=", "c0ded-secret",
	}
	for _, mode := range [][]string{{"--json"}, {""}, {"--full", "--color", "always"}, {"--curl"}} {
		args := append([]string{"run", "-v", "--config-root", filepath.Join(root, "testdata/config"), "--mock", mock}, mode...)
		if mode[0] == "" {
			args = args[:len(args)-1]
		}
		out, errs, rc := run(t, nil, append(args, script)...)
		masked := strings.Contains(out, "Bearer ***") && strings.Contains(out, "Basic ***")
		if mode[0] == "--curl" || mode[0] == "--json" {
			// Each call's command names its credential by variable.
			masked = strings.Contains(out, `Bearer $RESTLS_TOKEN_PAYMENTS`) && strings.Contains(out, `Basic $RESTLS_BASIC_CRM`)
		}
		if rc != 1 || !masked {
			t.Fatalf("%v: rc %d\n%s", mode, rc, out)
		}
		for _, s := range secrets {
			if strings.Contains(out, s) || strings.Contains(errs, s) {
				t.Errorf("%v: %q leaks", mode, s)
			}
		}
	}
}

// TestRunColorCurlAndVerboseFlags: --color always colours even under
// NO_COLOR (it only changes the default), auto does not colour a pipe,
// --json and --curl exclude each other, -v adds the timing line.
func TestRunColorCurlAndVerboseFlags(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	base := []string{"run", "--config-root", filepath.Join(root, "testdata/config"), "--mock", filepath.Join(root, "testdata/mocks/customer-summary.yaml")}
	script := filepath.Join(root, "testdata/scripts/customer-summary.js")
	for _, tc := range []struct {
		flags []string
		env   map[string]string
		color bool
	}{
		{nil, nil, false},
		{[]string{"--color", "auto"}, nil, false},
		{[]string{"--color", "never"}, nil, false},
		{[]string{"--color", "always"}, nil, true},
		{[]string{"--color", "always"}, map[string]string{"NO_COLOR": "1"}, true},
	} {
		out, errs, rc := run(t, tc.env, append(append(append([]string{}, base...), tc.flags...), script)...)
		if rc != 0 || errs != "" {
			t.Fatalf("%v: rc %d, stderr %q", tc.flags, rc, errs)
		}
		if got := strings.Contains(out, "\x1b["); got != tc.color {
			t.Errorf("%v %v: colour %v, want %v", tc.flags, tc.env, got, tc.color)
		}
	}
	for _, bad := range [][]string{{"--color", "sometimes"}, {"--json", "--curl"}} {
		_, errs, rc := run(t, nil, append(append(append([]string{}, base...), bad...), script)...)
		if rc != 2 || !strings.Contains(errs, "restls run: --") {
			t.Errorf("%v: rc %d, stderr %q", bad, rc, errs)
		}
	}
	out, _, rc := run(t, nil, append(append(append([]string{}, base...), "-v"), script)...)
	if rc != 0 || strings.Count(out, "~ timing: total ") != 4 {
		t.Errorf("-v: rc %d\n%s", rc, out)
	}
}

// TestRunMockNameFlagErrors: --mock-name needs --mock, and a fixtures
// file that cannot be loaded is named by --mock-name, never by its path.
func TestRunMockNameFlagErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	svcXML := writeFile(t, dir, "services.xml", `<scriptservice><api serviceId="x" url="http://127.0.0.1:1"/></scriptservice>`)
	script := writeFile(t, dir, "s.js", `return 1;`)
	broken := writeFile(t, dir, "designer.mock.yaml", "- serviceId: x\n  status: nope\n")
	var out strings.Builder
	for _, args := range [][]string{
		{"run", "--mock-name", "pasted mocks", "--service-xml", svcXML, script},
		{"run", "--mock", broken, "--mock-name", "pasted mocks", "--service-xml", svcXML, script},
		{"run", "--mock", filepath.Join(dir, "gone.yaml"), "--mock-name", "pasted mocks", "--service-xml", svcXML, script},
	} {
		_, errs, rc := run(t, nil, args...)
		if rc != 2 {
			t.Errorf("%v: rc %d", args, rc)
		}
		out.WriteString(strings.ReplaceAll(errs, dir, "$DIR"))
	}
	want := "restls run: --mock-name needs --mock FILE\n" +
		"restls run: --mock: pasted mocks:2:11: fixture 1: cannot construct !!str `nope` into int\n" +
		"restls run: --mock: read mock fixtures: open pasted mocks: no such file or directory\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// TestRunKindFromTheScript: without --kind, restls run decides the kind as
// check, test and the editor do (config.KindMap.Decide), so the task of
// testdata/ci, whose first line says scriptTask, reaches the handlers'
// serviceIds; --kind still overrides it. Through the binary, where the
// supervisor and its child both decide.
func TestRunKindFromTheScript(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	dir := t.TempDir()
	in := writeFile(t, dir, "in.json", `{"caseId": "c-9", "user": "ann"}`)
	mock := writeFile(t, dir, "m.json", `[{"serviceId": "archive-cases", "method": "PUT", "path": "*", "status": 200, "body": {}}]`)
	script := filepath.Join(root, "testdata/ci/scripts/tasks/archive-case.js")
	args := []string{"run", "--json", "--config-root", filepath.Join(root, "testdata/config"), "--input", in, "--mock", mock}
	out, errs, rc := runBinary(t, append(args, script)...)
	if rc != 0 || !strings.Contains(out, `"result": "archived c-9"`) || !strings.Contains(out, `"kind": "scriptTask"`) {
		t.Fatalf("the directive's scriptTask: rc %d, stderr %q\n%s", rc, errs, out)
	}
	out, _, rc = runBinary(t, append(args, "--kind", "scriptService", script)...)
	if rc != 1 || !strings.Contains(out, `"code": "unknown-service"`) || !strings.Contains(out, `"kind": "scriptService"`) {
		t.Fatalf("--kind scriptService must override the directive: rc %d\n%s", rc, out)
	}
	// The preview's header names the kind decided.
	text, _, _ := runBinary(t, append(args[:1], append(args[2:], script)...)...)
	if !strings.Contains(text, "(scriptTask, answers from ") {
		t.Errorf("header does not name scriptTask:\n%s", text)
	}
}
