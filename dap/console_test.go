package dap

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	godap "github.com/google/go-dap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/engine"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/workspace"
)

// TestCallConsoleLine: a call answered is one console line whose one
// variable is the line itself and expands to the call's parts. VS Code
// shows an output event's variables in place of its text, as it does
// console.log's arguments: the call's parts listed bare there made one
// call a column of unnamed values.
func TestCallConsoleLine(t *testing.T) {
	c := servePipes(t, Options{Run: func(_ context.Context, _ workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
		call := &restclient.Call{ServiceID: "crm", Method: "GET", URL: "https://crm.test/api/customers/7", Status: &restclient.Status{Code: 200, Message: "OK"}, DurationMs: 3}
		req.Observer.CallMade(0, call)
		req.Observer.CallAnswered(0, call)
		return &dryrun.Result{Result: json.RawMessage(`1`), Calls: []*restclient.Call{call}}, nil
	}})
	c.request("initialize", map[string]any{"adapterID": "restls"})
	c.response("initialize")
	c.request("launch", map[string]any{"program": "a.js", "text": "return 1;\n"})
	if r := c.response("launch").GetResponse(); !r.Success {
		t.Fatalf("launch refused: %s", r.Message)
	}
	c.request("configurationDone", nil)
	const line = "← 200 GET crm https://crm.test/api/customers/7 (3 ms)"
	out := c.until("the call's console line", func(m godap.Message) bool {
		o, ok := m.(*godap.OutputEvent)
		return ok && strings.HasPrefix(o.Body.Output, "←")
	}).(*godap.OutputEvent)
	if out.Body.Output != line+"\n" || out.Body.VariablesReference == 0 {
		t.Fatalf("console line %q (variables %d), want %q that expands", out.Body.Output, out.Body.VariablesReference, line)
	}
	c.request("variables", map[string]any{"variablesReference": out.Body.VariablesReference})
	vars := c.response("variables").(*godap.VariablesResponse).Body.Variables
	if len(vars) != 1 || vars[0].Value != line || vars[0].VariablesReference == 0 {
		t.Fatalf("the line's variables %+v, want the line alone, expandable", vars)
	}
	c.request("variables", map[string]any{"variablesReference": vars[0].VariablesReference})
	var names []string
	for _, v := range c.response("variables").(*godap.VariablesResponse).Body.Variables {
		names = append(names, v.Name)
	}
	if got := strings.Join(names, " "); !strings.HasPrefix(got, "method serviceId url status") {
		t.Errorf("the call's parts %q, want method, serviceId, url, status first", got)
	}
}

// TestContractNotesMasked: a contract note that quotes a configured
// credential (a description's enum holding a service's password, say)
// is masked in the debug console as every other run output is.
func TestContractNotesMasked(t *testing.T) {
	const password = "s3cret-pa55word"
	reg := config.NewRegistry(config.ScriptService, []config.Service{{
		ID: "crm", URL: "https://crm.test/api",
		Auth: config.Auth{Type: config.AuthBasic, EncodedCredentials: config.NewSecret(base64.StdEncoding.EncodeToString([]byte("robot:" + password)))},
	}}, config.Timeouts{}, nil)
	snap := workspace.NewSnapshot(config.NewSnapshot(config.Sources{}, reg), config.KindMap{}, nil, nil, nil, nil)
	c := servePipes(t, Options{
		Snapshot: func(context.Context, string) (workspace.Snapshot, error) { return snap, nil },
		Run: func(_ context.Context, _ workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
			call := &restclient.Call{ServiceID: "crm", Method: "GET", URL: "https://crm.test/api/customers/7", Status: &restclient.Status{Code: 200, Message: "OK"},
				Contract: []restclient.ContractNote{{Operation: "GET /customers/{id}", Path: "/role", Rule: "enum", Message: `"guest" is not one of ["admin", "` + password + `"]`}}}
			req.Observer.CallMade(0, call)
			req.Observer.CallAnswered(0, call)
			return &dryrun.Result{Result: json.RawMessage(`1`), Kind: config.ScriptService, Calls: []*restclient.Call{call}}, nil
		}})
	c.request("initialize", map[string]any{"adapterID": "restls"})
	c.response("initialize")
	c.request("launch", map[string]any{"program": "a.js", "text": "return 1;\n"})
	if r := c.response("launch").GetResponse(); !r.Success {
		t.Fatalf("launch refused: %s", r.Message)
	}
	c.request("configurationDone", nil)
	out := c.until("the contract note", func(m godap.Message) bool {
		o, ok := m.(*godap.OutputEvent)
		return ok && strings.Contains(o.Body.Output, ": contract (enum): ")
	}).(*godap.OutputEvent)
	if strings.Contains(out.Body.Output, password) || !strings.Contains(out.Body.Output, `["admin", "***"]`) {
		t.Errorf("contract note %q, want the password masked as ***", out.Body.Output)
	}
}

// TestDisplayShowsConfigurationPaths: with a Display (restls dap
// --request-stdin's), a configuration file a call's error names is shown
// as the Display shows it in the console and in the call's error part.
func TestDisplayShowsConfigurationPaths(t *testing.T) {
	const root = "/srv/proj/config"
	msg := `serviceId "broken" is configured but unusable: ` + root + `/application.yml:4:7: error: ...`
	display := workspace.NewPathDisplay(func(p string) string { return strings.TrimPrefix(strings.TrimPrefix(p, root), "/") }, config.Sources{ConfigRoot: root})
	c := servePipes(t, Options{Display: display, Run: func(_ context.Context, _ workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
		call := &restclient.Call{ServiceID: "broken", Method: "GET", ErrorCode: "service-unusable", ErrorMessage: msg}
		req.Observer.CallMade(0, call)
		req.Observer.CallAnswered(0, call)
		return &dryrun.Result{Error: &dryrun.ScriptError{Name: "RestClientError", Message: msg}, Calls: []*restclient.Call{call}}, nil
	}})
	c.request("initialize", map[string]any{"adapterID": "restls"})
	c.response("initialize")
	c.request("launch", map[string]any{"program": "a.js", "text": "return 1;\n"})
	if r := c.response("launch").GetResponse(); !r.Success {
		t.Fatalf("launch refused: %s", r.Message)
	}
	c.request("configurationDone", nil)
	line := c.until("the call's console line", func(m godap.Message) bool {
		o, ok := m.(*godap.OutputEvent)
		return ok && strings.HasPrefix(o.Body.Output, "←")
	}).(*godap.OutputEvent)
	out := c.until("the run's error", func(m godap.Message) bool {
		o, ok := m.(*godap.OutputEvent)
		return ok && strings.HasPrefix(o.Body.Output, "RestClientError: ")
	}).(*godap.OutputEvent)
	if strings.Contains(out.Body.Output, root) || !strings.Contains(out.Body.Output, "unusable: application.yml:4:7") {
		t.Errorf("the run's error %q, want the file as the Display shows it", out.Body.Output)
	}
	c.request("variables", map[string]any{"variablesReference": line.Body.VariablesReference})
	vars := c.response("variables").(*godap.VariablesResponse).Body.Variables
	c.request("variables", map[string]any{"variablesReference": vars[0].VariablesReference})
	for _, v := range c.response("variables").(*godap.VariablesResponse).Body.Variables {
		if v.Name == "error" && (strings.Contains(v.Value, root) || !strings.Contains(v.Value, "application.yml:4:7")) {
			t.Errorf("the call's error part %s, want the file as the Display shows it", v.Value)
		}
	}
}
