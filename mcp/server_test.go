package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

func TestToolsListed(t *testing.T) {
	o := testOptions(t, testProject(t))
	o.Run = engine.New(engine.Options{Isolation: engine.InProcess}).Run
	o.Tests = o.Run
	cs := connect(t, o)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("tool %s: description, input or output schema missing", tool.Name)
		}
		// A schema written as the boolean true is refused by the
		// TypeScript SDK's clients: every one must be an object.
		var in, out any
		remarshal(t, tool.InputSchema, &in)
		remarshal(t, tool.OutputSchema, &out)
		for _, where := range append(booleanSchemas(in, "input"), booleanSchemas(out, "output")...) {
			t.Errorf("tool %s: the schema at %s is a boolean", tool.Name, where)
		}
	}
	want := "services contract check complete references curl fixtures run test faults"
	if got := strings.Join(names, " "); !sameWords(got, want) {
		t.Errorf("tools %q, want %q", got, want)
	}
	if !strings.Contains(cs.InitializeResult().Instructions, "services") {
		t.Errorf("instructions: %q", cs.InitializeResult().Instructions)
	}
}

func sameWords(a, b string) bool {
	x, y := strings.Fields(a), strings.Fields(b)
	if len(x) != len(y) {
		return false
	}
	seen := map[string]int{}
	for _, w := range x {
		seen[w]++
	}
	for _, w := range y {
		seen[w]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

func TestServicesAndContract(t *testing.T) {
	cs := connect(t, testOptions(t, testProject(t)))
	var svc ServicesOut
	call(t, cs, "services", map[string]any{}, &svc)
	if svc.Total != 2 || len(svc.Services) != 2 || svc.Services[0].ServiceID != "orders" || svc.Services[0].Auth != "basic" {
		t.Fatalf("services: %+v", svc)
	}
	if got := strings.Join(svc.Services[0].Operations, ", "); got != "POST /orders, GET /orders/{id}" {
		t.Errorf("operations of orders: %s", got)
	}
	var c ContractOut
	call(t, cs, "contract", map[string]any{"serviceId": "orders", "method": "get", "path": "orders/42"}, &c)
	if len(c.Operations) != 1 || c.Operations[0].Path != "/orders/{id}" || c.Operations[0].Response == nil || c.Operations[0].Example == nil {
		t.Fatalf("contract: %+v", c)
	}
	var resp struct{ Properties map[string]Schema }
	remarshal(t, c.Operations[0].Response, &resp)
	if st, ok := resp.Properties["status"]; !ok || len(st.Enum) != 3 {
		t.Errorf("response status: %+v", c.Operations[0].Response)
	}
}

func TestCheckFixesApply(t *testing.T) {
	cs := connect(t, testOptions(t, testProject(t)))
	var out CheckOut
	call(t, cs, "check", map[string]any{"path": "scripts/order.js"}, &out)
	if out.Errors == 0 {
		t.Fatalf("no error in scripts/order.js: %+v", out)
	}
	d := out.Diagnostics[0]
	if d.Code != "unknown-service" || len(d.Fixes) == 0 {
		t.Fatalf("diagnostic: %+v", d)
	}
	t.Logf("%+v", d)
}

// The check tool reports worst-case-time as the editor and restls check
// do, from the project file's timeLimits.
func TestCheckWorstCaseTime(t *testing.T) {
	root := testProject(t)
	f, err := os.OpenFile(filepath.Join(root, workspace.FileName), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("timeLimits:\n  scriptService: 5000\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, testOptions(t, root))
	var out CheckOut
	call(t, cs, "check", map[string]any{"path": "scripts/status.js"}, &out)
	for _, d := range out.Diagnostics {
		if d.Code == "worst-case-time" {
			if !strings.Contains(d.Message, "above the 5 s limit of restls.yaml timeLimits.scriptService") {
				t.Errorf("message: %s", d.Message)
			}
			return
		}
	}
	t.Fatalf("no worst-case-time: %+v", out.Diagnostics)
}

func TestRun(t *testing.T) {
	root := testProject(t)
	o := testOptions(t, root)
	o.Run = engine.New(engine.Options{Isolation: engine.InProcess}).Run
	cs := connect(t, o)
	fixtures := "fixtures:\n- serviceId: orders\n  method: GET\n  path: orders/*\n  body: {id: \"42\", status: paid}\n"
	var out RunOut
	call(t, cs, "run", map[string]any{"path": "scripts/status.js", "input": map[string]any{"id": "42"}, "fixtures": fixtures}, &out)
	if out.Threw || out.Mode != "mock" || string(mustJSON(t, out.Result)) != `"paid"` {
		t.Fatalf("run: %+v", out)
	}
	var calls []struct{ ServiceID string }
	remarshal(t, out.Calls, &calls)
	if len(calls) != 1 || calls[0].ServiceID != "orders" {
		t.Errorf("calls: %s", mustJSON(t, out.Calls))
	}
	// An answer the description does not allow: a contract note.
	call(t, cs, "run", map[string]any{"path": "scripts/status.js", "input": map[string]any{"id": "42"},
		"fixtures": strings.Replace(fixtures, "paid", "lost", 1)}, &out)
	var noted []struct {
		Contract []struct{ Rule, Path string }
	}
	remarshal(t, out.Calls, &noted)
	if len(noted) != 1 || len(noted[0].Contract) != 1 || noted[0].Contract[0].Rule != "enum" || noted[0].Contract[0].Path != "/status" {
		t.Errorf("no contract note on an answer outside the enum: %s", mustJSON(t, out.Calls))
	}
	// No fixtures, not live: nothing reaches a service.
	call(t, cs, "run", map[string]any{"text": "return api.rest.v1.get(\"orders\", {pathParams: [\"orders\", \"1\"]}, {}).body;"}, &out)
	if !out.Threw || !strings.Contains(string(mustJSON(t, out.Error)), "no-fixture") {
		t.Errorf("a run without fixtures: %+v", out)
	}
	res := call(t, cs, "run", map[string]any{"path": "scripts/status.js", "live": true}, nil)
	if !res.IsError || !strings.Contains(errorText(res), "--allow-live") {
		t.Errorf("a live run where they are off: %v %q", res.IsError, errorText(res))
	}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestEnvironments: a tool asks for the project file's environment by
// name (the session's one rule picks it), an unknown one is the rule's
// error, and no environment's credentials show in any answer.
func TestEnvironments(t *testing.T) {
	root := testProject(t)
	prod := filepath.Join(root, "config-prod")
	if err := os.MkdirAll(prod, 0o755); err != nil {
		t.Fatal(err)
	}
	yml := "scriptservice:\n  api:\n    - serviceId: orders\n      url: https://orders.prod.example.com/api\n      authorization:\n        type: basic\n        encodedCredentials: cHJvZDpwcm9kLVMzY3JldC1vbmx5\n"
	if err := os.WriteFile(filepath.Join(prod, "application.yml"), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	project := "configRoot: config\nopenapi:\n  orders: orders.openapi.yaml\nenvironments:\n  dev: {}\n  prod:\n    configRoot: config-prod\ndefaultEnvironment: dev\n"
	if err := os.WriteFile(filepath.Join(root, workspace.FileName), []byte(project), 0o600); err != nil {
		t.Fatal(err)
	}
	o := testOptions(t, root)
	p, err := workspace.LoadProject(filepath.Join(root, workspace.FileName))
	if err != nil {
		t.Fatal(err)
	}
	envs, err := workspace.NewEnvironments(p, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	src, _ := p.Sources("")
	o.Session = workspace.NewSession(workspace.SessionOptions{Sources: src, Environments: envs, APIs: o.Session.APIs(), Recorded: true})
	cs := connect(t, o)
	var out ServicesOut
	call(t, cs, "services", map[string]any{}, &out)
	if out.Environment != "dev" || out.Total != 2 {
		t.Errorf("default environment: %+v", out)
	}
	call(t, cs, "services", map[string]any{"environment": "prod"}, &out)
	if out.Environment != "prod" || out.Total != 1 || out.Services[0].URL != "https://orders.prod.example.com/api" {
		t.Errorf("prod: %+v", out)
	}
	res := call(t, cs, "services", map[string]any{"environment": "staging"}, nil)
	if !res.IsError || !strings.Contains(errorText(res), "staging") {
		t.Errorf("an unknown environment: %v %q", res.IsError, errorText(res))
	}
	// prod's password, asked for in dev: hidden all the same.
	res = call(t, cs, "contract", map[string]any{"serviceId": "prod-S3cret-only"}, nil)
	if data := mustJSON(t, res); strings.Contains(string(data), "prod-S3cret-only") || !strings.Contains(string(data), "***") {
		t.Errorf("another environment's credential shows: %s", data)
	}
}

func TestTestFile(t *testing.T) {
	root := testProject(t)
	o := testOptions(t, root)
	o.Tests = engine.New(engine.Options{Isolation: engine.InProcess}).Run
	cs := connect(t, o)
	var out TestOut
	call(t, cs, "test", map[string]any{"path": "scripts/status.test.yaml"}, &out)
	if out.Passed != 1 || out.Failed != 0 {
		t.Fatalf("test: %+v", out)
	}
	if err := os.WriteFile(filepath.Join(root, "scripts", "status.test.yaml"), []byte("script: status.js\ninput: {id: \"42\"}\nfixtures:\n  - {serviceId: orders, method: GET, path: orders/42, body: {status: open}}\nresult: paid\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	call(t, cs, "test", map[string]any{"path": "scripts/status.test.yaml"}, &out)
	if out.Failed != 1 || !strings.Contains(string(mustJSON(t, out.Tests)), "open") {
		t.Errorf("a failing test: %s", mustJSON(t, out))
	}
	for _, p := range []string{"scripts/status.js", "../outside.test.yaml"} {
		if res := call(t, cs, "test", map[string]any{"path": p}, nil); !res.IsError {
			t.Errorf("test of %s did not fail", p)
		}
	}
}

// TestTestFileRefused: a case the runner refuses (on /mcp the gate: a
// role that may not run) ends the call with the refusal, which names
// the role; the cases after it are not tried. A case whose fixtures do
// not load is that case's failure.
func TestTestFileRefused(t *testing.T) {
	root := testProject(t)
	two := "script: status.js\ninput: {id: \"42\"}\ncases:\n  - {name: a, fixtures: [{serviceId: orders, path: orders/42, body: {status: paid}}], result: paid}\n  - {name: b, result: paid}\n"
	if err := os.WriteFile(filepath.Join(root, "scripts", "two.test.yaml"), []byte(two), 0o600); err != nil {
		t.Fatal(err)
	}
	o := testOptions(t, root)
	runs := 0
	o.Tests = func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
		runs++
		if req.Fixtures.Parsed == nil {
			t.Errorf("a case's run without its parsed fixtures: %+v", req.Fixtures)
		}
		return nil, errors.New("dry runs need the role mocker (with fixtures) or runner; vera has the role viewer")
	}
	res := call(t, connect(t, o), "test", map[string]any{"path": "scripts/two.test.yaml"}, nil)
	if !res.IsError || !strings.Contains(errorText(res), "did not run: dry runs need the role mocker") || runs != 1 {
		t.Errorf("refused: %v %q after %d runs", res.IsError, errorText(res), runs)
	}
	o.Tests = func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
		return nil, &engine.FixturesError{Err: errors.New("two.test.yaml:4: fixtures: bad")}
	}
	var out TestOut
	call(t, connect(t, o), "test", map[string]any{"path": "scripts/two.test.yaml"}, &out)
	if out.Failed != 2 || !strings.Contains(string(mustJSON(t, out.Tests)), "fixtures: bad") {
		t.Errorf("cases whose fixtures do not load: %s", mustJSON(t, out))
	}
}

// booleanSchemas are the paths of the subschemas of schema written as a
// boolean (properties' values, items).
func booleanSchemas(schema any, path string) []string {
	m, ok := schema.(map[string]any)
	if !ok {
		return []string{path}
	}
	var out []string
	if props, ok := m["properties"].(map[string]any); ok {
		for name, p := range props {
			out = append(out, booleanSchemas(p, path+"."+name)...)
		}
	}
	if items, ok := m["items"]; ok {
		out = append(out, booleanSchemas(items, path+"[]")...)
	}
	return out
}

// TestServicesPaged: without a limit a page of 100 services, truncated
// says more matched; a limit up to 500 is taken.
func TestServicesPaged(t *testing.T) {
	root := testProject(t)
	var y strings.Builder
	y.WriteString("scriptservice:\n  api:\n")
	for i := range 700 {
		fmt.Fprintf(&y, "    - serviceId: svc-%03d\n      url: https://svc.example.com/%d\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(root, "config", "application.yml"), []byte(y.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, testOptions(t, root))
	for _, tc := range []struct {
		args map[string]any
		want int
	}{{map[string]any{}, 100}, {map[string]any{"limit": 300}, 300}, {map[string]any{"limit": 5000}, 500}} {
		var out ServicesOut
		call(t, cs, "services", tc.args, &out)
		if len(out.Services) != tc.want || !out.Truncated || out.Total != 700 {
			t.Errorf("%v: %d services, truncated %v, total %d; want %d", tc.args, len(out.Services), out.Truncated, out.Total, tc.want)
		}
	}
}
