package mcp

import (
	"context"
	"strings"
	"testing"
)

func TestToolsListed(t *testing.T) {
	cs := connect(t, testOptions(t, testProject(t)))
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
	}
	want := "services contract check complete references curl fixtures"
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
