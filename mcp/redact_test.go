package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/restls/restls/engine"
	"github.com/restls/restls/faults"
	"github.com/restls/restls/runtime/dryrun"
)

// plantedSecrets are the credentials of testdata/project's configuration
// (and, planted in its description, its answers and headers).
var plantedSecrets = []string{
	"b3JkZXJzLXVzZXI6b3JkZXJzLVMzY3JldC1wdw==", // orders' encodedCredentials
	"orders-user:orders-S3cret-pw",
	"orders-S3cret-pw",
	"pay-Cl1ent-S3cret-mcp", // payments-oauth's clientSecret
}

// secretForms are the forms a secret may take in output.
func secretForms(s string) []string {
	j, _ := json.Marshal(s)
	forms := []string{s, string(j[1 : len(j)-1]), url.QueryEscape(s), url.PathEscape(s)}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding} {
		forms = append(forms, enc.EncodeToString([]byte(s)))
	}
	return forms
}

// scan fails t when text holds a form of a planted secret.
func scan(t *testing.T, where, text string) {
	t.Helper()
	for _, s := range plantedSecrets {
		for _, f := range secretForms(s) {
			if strings.Contains(text, f) {
				t.Errorf("%s shows a credential (%q, a form of %q)", where, f, s)
			}
		}
	}
}

// TestNoCredentialInAnyAnswer calls every tool, reads every resource and
// gets every prompt, and scans the raw answers for the credentials of
// the configuration, planted in the description too.
func TestNoCredentialInAnyAnswer(t *testing.T) {
	root := testProject(t)
	o := testOptions(t, root)
	o.Run = engine.New(engine.Options{Isolation: engine.InProcess}).Run
	o.Tests = o.Run
	cs := connect(t, o)
	ctx := context.Background()
	for _, tc := range toolCases {
		res := call(t, cs, tc.tool, tc.args, nil)
		data, _ := json.Marshal(res)
		scan(t, "tool "+tc.name, string(data))
	}
	// A run whose answers carry the credentials, in a header and the
	// body, which the script logs, returns and throws.
	fixtures := `fixtures:
- serviceId: orders
  method: GET
  path: orders/*
  headers: {Authorization: "Basic b3JkZXJzLXVzZXI6b3JkZXJzLVMzY3JldC1wdw==", X-Key: pay-Cl1ent-S3cret-mcp}
  body: {token: orders-S3cret-pw}
`
	script := `var r = api.rest.v1.get("orders", {pathParams: ["orders", "1"], queryParams: {key: "pay-Cl1ent-S3cret-mcp"}}, {Authorization: "Bearer pay-Cl1ent-S3cret-mcp"});
console.log(JSON.stringify(r.headers), r.body.token);
if (context.input.fail) throw new Error("token " + r.body.token);
return {headers: r.headers, token: r.body.token};`
	for _, fail := range []bool{false, true} {
		res := call(t, cs, "run", map[string]any{"text": script, "fixtures": fixtures, "input": map[string]any{"fail": fail}}, nil)
		data, _ := json.Marshal(res)
		if res.IsError || !strings.Contains(string(data), "***") {
			t.Errorf("run: %s", data)
		}
		scan(t, "tool run", string(data))
	}
	// The same run as a test file's case, whose expectation it misses
	// (the failure quotes what it got), and as the start of the fault
	// explorer, whose findings hold what the script returned and threw.
	test := "script: leak.js\nfixtures:\n" + strings.TrimPrefix(strings.ReplaceAll(fixtures, "\n", "\n  "), "fixtures:\n") + "\nresult: nothing\n"
	test = strings.Replace(test, "fixtures:\n  - serviceId", "fixtures:\n  - serviceId", 1)
	for name, data := range map[string]string{"scripts/leak.js": script, "scripts/leak.test.yaml": test} {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"test", map[string]any{"path": "scripts/leak.test.yaml"}},
		{"faults", map[string]any{"path": "scripts/leak.js", "fixtures": fixtures, "outcomes": []string{"500", "read-timeout"}}},
		{"faults", map[string]any{"path": "scripts/leak.js", "fixtures": fixtures}}, // every outcome, documented statuses' bodies included
	} {
		res := call(t, cs, c.tool, c.args, nil)
		data, _ := json.Marshal(res)
		if res.IsError || !strings.Contains(string(data), "***") {
			t.Errorf("%s: %s", c.tool, data)
		}
		scan(t, "tool "+c.tool, string(data))
	}
	// An error that quotes its input: a serviceId that is a secret.
	res := call(t, cs, "contract", map[string]any{"serviceId": "pay-Cl1ent-S3cret-mcp"}, nil)
	if !res.IsError {
		t.Errorf("contract of an unknown serviceId did not fail")
	}
	data, _ := json.Marshal(res)
	scan(t, "contract's error", string(data))
	resources, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resources.Resources) < 7 {
		t.Errorf("%d resources, want at least 7", len(resources.Resources))
	}
	for _, r := range resources.Resources {
		rr, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: r.URI})
		if err != nil {
			t.Errorf("%s: %v", r.URI, err)
			continue
		}
		data, _ := json.Marshal(rr)
		scan(t, "resource "+r.URI, string(data))
	}
	for _, p := range []struct {
		name string
		args map[string]string
	}{{"write-script", map[string]string{"task": "read order pay-Cl1ent-S3cret-mcp", "serviceId": "orders"}}, {"add-test", map[string]string{"path": "scripts/status.js"}}} {
		pr, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: p.name, Arguments: p.args})
		if err != nil {
			t.Errorf("prompt %s: %v", p.name, err)
			continue
		}
		data, _ := json.Marshal(pr)
		scan(t, "prompt "+p.name, string(data))
	}
}

// FuzzRedact: whatever a credential is and wherever an answer holds it
// (text, structured content, a key; a tool's typed answer such as the
// faults tool's, with a script's result as raw JSON and its error), in
// whatever form (raw, JSON-, URL- or base64-escaped), the answer that
// leaves holds none of its forms, or is withheld.
func FuzzRedact(f *testing.F) {
	f.Add("orders-S3cret-pw", "the order ", " was paid", uint8(0))
	f.Add("pay-Cl1ent-S3cret-mcp", `{"a":"`, `"}`, uint8(1))
	f.Add(`p"a\ss<>&word`, "", "", uint8(2))
	f.Add("s3cr3t with spaces/and?query=1&x", "url: https://h/?k=", "", uint8(3))
	f.Add("dXNlcjpwYXNz", "Basic ", "", uint8(4))
	f.Add("\u00e9\u00e8 unicode s\u00e9cret \U0001F600", "", "", uint8(5))
	f.Add(strings.Repeat("long-secret-", 200), strings.Repeat("x", 5000), "", uint8(6))
	f.Add("orders-S3cret-pw", "token ", "", uint8(0x80))
	f.Add(`p"a\ss<>&word`, `{"a":"`, `"}`, uint8(0x81))
	f.Add("dXNlcjpwYXNz", "Basic ", "", uint8(0x84))
	f.Fuzz(func(t *testing.T, secret, before, after string, form uint8) {
		if len(secret) < 8 || len(secret) > 4096 || len(before)+len(after) > 1<<16 {
			return
		}
		forms := secretForms(secret)
		shown := forms[int(form)%len(forms)]
		text := before + shown + after
		res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, StructuredContent: map[string]any{"v": text, text: 1}}
		skeleton, _ := json.Marshal(&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{}}, StructuredContent: map[string]any{"v": "", "": 1}})
		if form&0x80 != 0 {
			// A typed answer: what the faults and test tools return.
			typed := func(text string) FaultsOut {
				raw, _ := json.Marshal(text)
				f := FaultFinding{Finding: faults.Finding{Outcome: "500", Verdict: faults.Handled, Result: raw, Note: text, Error: &dryrun.ScriptError{Name: "Error", Message: text, Body: &text}}, ServiceID: "s", Path: text}
				return FaultsOut{Sites: []faults.Site{{ServiceID: "s", PathParams: []string{text}}}, Findings: []FaultFinding{f}, Verdicts: map[string]int{text: 1}}
			}
			res = &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, StructuredContent: typed(text)}
			skeleton, _ = json.Marshal(&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{}}, StructuredContent: typed("")})
		}
		for _, f := range forms {
			if strings.Contains(string(skeleton), f) {
				return // a "secret" that is the answer's own JSON keys
			}
		}
		red := creds{secrets: []string{secret}}.redactor()
		out, err := red.result(res)
		if err != nil {
			return // withheld: nothing left
		}
		data, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range forms {
			if strings.Contains(string(data), f) {
				t.Fatalf("the answer shows %q, a form of the credential %q:\n%s", f, secret, data)
			}
		}
	})
}
