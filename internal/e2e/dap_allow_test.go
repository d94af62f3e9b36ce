package e2e_test

import (
	"strings"
	"testing"

	godap "github.com/google/go-dap"
)

// TestDAPAllowServicesExactIDs: each --allow-services of restls dap is
// one exact serviceId, as the designer's gate and a dry run compare it:
// a comma is part of the id (the contract allows any string), never a
// separator. Given "orders,eu", a debug run may call the service
// "orders,eu" and not "orders" (split on the comma, it was the other
// way round).
func TestDAPAllowServicesExactIDs(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, root, "application.yml", "scriptservice:\n  api:\n"+
		"    - serviceId: orders\n      url: https://orders.example.com/api\n"+
		"    - serviceId: \"orders,eu\"\n      url: https://eu.example.com/api\n")
	c := startDAP(t, root, "--config-root", root, "--allow-services", "orders,eu")
	c.request("initialize", map[string]any{"adapterID": "restls"})
	c.until("response initialize")
	script := "var out = [];\n" +
		"[\"orders\", \"orders,eu\"].forEach(function (id) {\n" +
		"  try { out.push(id + \" \" + api.rest.v1.get(id, {pathParams: [\"x\"]}, {}).body.ok); }\n" +
		"  catch (e) { out.push(id + \" \" + e.code); }\n" +
		"});\n" +
		"return out.join(\"; \");\n"
	fixtures := "fixtures:\n" +
		"  - {serviceId: orders, method: GET, path: x, body: {ok: answered}}\n" +
		"  - {serviceId: \"orders,eu\", method: GET, path: x, body: {ok: answered}}\n"
	c.request("launch", map[string]any{"program": "allow.js", "text": script, "fixturesText": fixtures})
	c.until("event initialized")
	c.request("configurationDone", nil)
	var result string
	for result == "" {
		m := c.next()
		if o, ok := m.(*godap.OutputEvent); ok && strings.HasPrefix(o.Body.Output, "result: ") {
			result = strings.TrimSpace(o.Body.Output)
		}
		if _, ok := m.(*godap.TerminatedEvent); ok {
			t.Fatalf("the run ended with no result\ntranscript:\n%s", strings.Join(c.lines, "\n"))
		}
	}
	if want := `result: "orders service-not-allowed; orders,eu answered"`; result != want {
		t.Errorf("restls dap --allow-services orders,eu: %s, want %s", result, want)
	}
	c.request("disconnect", nil)
	c.until("response disconnect")
}
