package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/restls/restls/textpos"
)

// mcpProject copies mcp/testdata/project (two services with planted
// credentials, one with a description) to a temporary directory.
func mcpProject(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(repoRoot(t), "mcp", "testdata", "project"))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// mcpStdio starts restls mcp in root and returns the official Go SDK's
// client session on its stdin and stdout.
func mcpStdio(t *testing.T, root string, args ...string) *sdk.ClientSession {
	t.Helper()
	cmd := restlsCommand(t, append([]string{"mcp"}, args...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "restls-test", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("restls mcp: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		_ = cs.Close()
		if t.Failed() {
			t.Logf("restls mcp's stderr:\n%s", stderr.String())
		}
	})
	return cs
}

// callTool calls a tool and decodes its structured answer into out; a
// tool's error fails the test.
func callTool(t *testing.T, cs *sdk.ClientSession, name string, args, out any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: %s", name, toolText(res))
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, data)
	}
}

func toolText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

type mcpPos struct{ Line, Column int }
type mcpEdit struct {
	Range   struct{ Start, End mcpPos }
	NewText string
}
type mcpCheck struct {
	Errors      int
	Diagnostics []struct {
		Code, Message string
		Fixes         []struct {
			Title     string
			Preferred bool
			Edits     []mcpEdit
		}
	}
}

// applyEdits applies edits (lines and columns from 1, columns in
// characters) to text, the last first, as an agent does.
func applyEdits(t *testing.T, text string, edits []mcpEdit) string {
	t.Helper()
	m := textpos.New(text)
	type span struct {
		start, end int
		text       string
	}
	var spans []span
	for _, e := range edits {
		spans = append(spans, span{int(m.OffsetOfRunes(textpos.RunePos{Line: e.Range.Start.Line, Col: e.Range.Start.Column})),
			int(m.OffsetOfRunes(textpos.RunePos{Line: e.Range.End.Line, Col: e.Range.End.Column})), e.NewText})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start > spans[j].start })
	for _, s := range spans {
		text = text[:s.start] + s.text + text[s.end:]
	}
	return text
}

// agentFlow is what an agent does with restls: lists the tools, writes a
// script from the services and contract tools, gets its diagnostics,
// fixes them with the edits returned, makes its fixtures, runs it with
// them, runs its test and explores its failure paths.
func agentFlow(t *testing.T, cs *sdk.ClientSession, root string) {
	t.Helper()
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, tool := range tools.Tools {
		have[tool.Name] = true
	}
	for _, name := range []string{"services", "contract", "check", "complete", "references", "curl", "fixtures", "run", "test", "faults"} {
		if !have[name] {
			t.Errorf("tool %s is not listed", name)
		}
	}
	var services struct {
		Services []struct {
			ServiceID  string
			Operations []string
		}
	}
	callTool(t, cs, "services", map[string]any{}, &services)
	if len(services.Services) == 0 || services.Services[0].ServiceID != "orders" {
		t.Fatalf("services: %+v", services)
	}
	var contract struct {
		Operations []struct {
			Method, Path string
			Payload      struct{ Required []string }
		}
	}
	callTool(t, cs, "contract", map[string]any{"serviceId": "orders", "method": "POST", "path": "orders"}, &contract)
	if len(contract.Operations) != 1 || contract.Operations[0].Payload.Required[0] != "item" {
		t.Fatalf("contract: %+v", contract)
	}
	// The script as a first draft has it: the serviceId misspelt, the
	// payload without its required item.
	text := "var res = api.rest.v1.post(\"order\", {pathParams: [\"orders\"]}, {}, {quantity: 2});\nreturn res.body.id;\n"
	for round := 0; ; round++ {
		var c mcpCheck
		callTool(t, cs, "check", map[string]any{"path": "scripts/new-order.js", "text": text}, &c)
		if len(c.Diagnostics) == 0 {
			break
		}
		if round == 3 {
			t.Fatalf("still diagnostics after %d rounds of fixes: %+v\n%s", round, c, text)
		}
		// One preferred fix per round: edits of two fixes may overlap.
		fixed := false
		for _, d := range c.Diagnostics {
			for _, f := range d.Fixes {
				if f.Preferred && !fixed {
					text = applyEdits(t, text, f.Edits)
					fixed = true
				}
			}
		}
		if !fixed {
			t.Fatalf("diagnostics without a preferred fix: %+v", c)
		}
	}
	if !strings.Contains(text, `"orders"`) || !strings.Contains(text, "item:") {
		t.Errorf("the fixed script: %s", text)
	}
	var fx struct {
		File, Text string
		Added      []struct{ Operation string }
	}
	callTool(t, cs, "fixtures", map[string]any{"path": "scripts/new-order.js", "text": text}, &fx)
	if fx.File != "scripts/new-order.mock.yaml" || len(fx.Added) != 1 || fx.Added[0].Operation != "POST /orders" {
		t.Fatalf("fixtures: %+v", fx)
	}
	// The agent writes the script and its fixtures, and runs it: the
	// fixtures beside it answer.
	for name, data := range map[string]string{"scripts/new-order.js": text, fx.File: fx.Text} {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var run struct {
		Mode, Fixtures string
		Threw          bool
		Result         any
		Calls          []struct{ ServiceID, Method string }
	}
	callTool(t, cs, "run", map[string]any{"path": "scripts/new-order.js"}, &run)
	if run.Threw || run.Mode != "mock" || run.Fixtures != fx.File || len(run.Calls) != 1 || run.Calls[0].Method != "POST" {
		t.Errorf("run: %+v", run)
	}
	// Its test: the fixtures the agent wrote, the result the run gave;
	// and a second case whose expectation the run does not meet.
	result, err := json.Marshal(run.Result)
	if err != nil {
		t.Fatal(err)
	}
	test := "script: new-order.js\nfixtures: new-order.mock.yaml\ncases:\n  - name: creates\n    result: " + string(result) + "\n  - name: wrong\n    result: 0\n"
	if err := os.WriteFile(filepath.Join(root, "scripts", "new-order.test.yaml"), []byte(test), 0o600); err != nil {
		t.Fatal(err)
	}
	var tr struct {
		Passed, Failed int
		Tests          []struct {
			Name     string
			Passed   bool
			Failures []string
			Mode     string
		}
	}
	callTool(t, cs, "test", map[string]any{"path": "scripts/new-order.test.yaml"}, &tr)
	if tr.Passed != 1 || tr.Failed != 1 || len(tr.Tests) != 2 || !tr.Tests[0].Passed || tr.Tests[0].Mode != "mock" || len(tr.Tests[1].Failures) == 0 {
		t.Errorf("test: %+v", tr)
	}
	// How it copes with its call failing: the error leaves it.
	var fr struct {
		Runs     int
		OK       bool
		Findings []struct {
			Line             int
			ServiceID        string
			Outcome, Verdict string
		}
	}
	callTool(t, cs, "faults", map[string]any{"path": "scripts/new-order.js", "outcomes": []string{"500", "connect-timeout"}}, &fr)
	var findings []string
	for _, f := range fr.Findings {
		findings = append(findings, fmt.Sprintf("%d %s %s %s", f.Line, f.ServiceID, f.Outcome, f.Verdict))
	}
	slices.Sort(findings)
	if want := "1 orders 500 escaped; 1 orders connect-timeout escaped"; fr.Runs != 2 || !fr.OK || strings.Join(findings, "; ") != want {
		t.Errorf("faults: %+v; want findings %s", fr, want)
	}
}

// TestMCPStdio drives restls mcp, the built binary, with the official Go
// SDK's client over its stdin and stdout, as an agent does.
func TestMCPStdio(t *testing.T) {
	t.Parallel()
	root := mcpProject(t)
	cs := mcpStdio(t, root)
	if got := cs.InitializeResult().ServerInfo.Name; got != "restls" {
		t.Errorf("server name %q", got)
	}
	agentFlow(t, cs, root)
	// An agent may not call the services unless the user let it.
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "run", Arguments: map[string]any{"path": "scripts/status.js", "live": true}})
	if err != nil || !res.IsError || !strings.Contains(toolText(res), "--allow-live") {
		t.Errorf("a live run without --allow-live: %v %+v", err, res)
	}
}

// TestMCPImpact: the impact tool is restls check --since over the
// project: a serviceId removed since the last commit breaks its calls.
func TestMCPImpact(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: restls check --since needs it")
	}
	root := mcpProject(t)
	if err := os.WriteFile(filepath.Join(root, "scripts", "pay.js"), []byte(`return api.rest.v1.get("payments", {pathParams: ["charges"]}, {}).body;`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "first")
	conf := filepath.Join(root, "config", "application.yml")
	data, err := os.ReadFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	// orders renamed; payments from OAuth to basic credentials, and the
	// OAuth client's secret changed: the findings name neither the
	// credentials at HEAD nor the new ones.
	data = bytes.Replace(data, []byte("serviceId: orders"), []byte("serviceId: orders-v2"), 1)
	data = bytes.Replace(data, []byte("type: oAuth\n        id: payments-oauth"), []byte("type: basic\n        encodedCredentials: bmV3LXVzZXI6bmV3LVMzY3JldC1wdw=="), 1)
	data = bytes.Replace(data, []byte("clientSecret: pay-Cl1ent-S3cret-mcp"), []byte("clientSecret: new-Pay-S3cret-xyz"), 1)
	if err := os.WriteFile(conf, data, 0o600); err != nil {
		t.Fatal(err)
	}
	cs := mcpStdio(t, root)
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "impact", Arguments: map[string]any{"since": "HEAD"}})
	if err != nil || res.IsError {
		t.Fatalf("impact: %v %+v", err, res)
	}
	raw, _ := json.Marshal(res)
	for _, secret := range []string{"b3JkZXJzLXVzZXI6b3JkZXJzLVMzY3JldC1wdw==", "orders-S3cret-pw", "pay-Cl1ent-S3cret-mcp", "bmV3LXVzZXI6bmV3LVMzY3JldC1wdw==", "new-S3cret-pw", "new-Pay-S3cret-xyz"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("impact shows the credential %s", secret)
		}
	}
	var out struct {
		Findings []struct{ File, Code, Message string }
	}
	if err := json.Unmarshal(mustMarshal(t, res.StructuredContent), &out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range out.Findings {
		got = append(got, f.File+" "+f.Code)
	}
	if strings.Join(got, "; ") != "scripts/pay.js since-auth-changed; scripts/status.js since-service-removed" {
		t.Errorf("impact: %+v", out)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestMCPStdioHostile: what is not JSON-RPC, and a line past the limit,
// end the session at once with the reason on stderr; nothing hangs.
func TestMCPStdioHostile(t *testing.T) {
	t.Parallel()
	root := mcpProject(t)
	for _, tc := range []struct {
		name  string
		input string
	}{
		{"not json", "not json\n"},
		{"not json-rpc", `{"jsonrpc":"1.0","method":7}` + "\n"},
		{"line past the limit", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"check","arguments":{"text":"` + strings.Repeat("x", 9<<20) + "\"}}}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := restlsCommand(t, "mcp")
			cmd.Dir = root
			cmd.Stdin = strings.NewReader(tc.input)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			runWithin(t, cmd, time.Minute, func() string { return stderr.String() })
			if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(stderr.String(), "JSON-RPC message per line") {
				t.Errorf("exit %d, stderr %.500s", cmd.ProcessState.ExitCode(), stderr.String())
			}
			if strings.Contains(stdout.String(), "xxxx") {
				t.Errorf("the input was echoed")
			}
		})
	}
}
