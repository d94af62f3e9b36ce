package mcp

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/restls/restls/internal/goldentest"
)

// toolCases are calls of every tool on testdata/project, whose answers
// agents read: golden files under testdata/golden (-update rewrites
// them).
var toolCases = []struct {
	name, tool string
	args       map[string]any
}{
	{"services", "services", map[string]any{}},
	{"services-query", "services", map[string]any{"query": "pay"}},
	{"contract-list", "contract", map[string]any{"serviceId": "orders"}},
	{"contract-get", "contract", map[string]any{"serviceId": "orders", "method": "GET", "path": "orders/42"}},
	{"contract-post", "contract", map[string]any{"serviceId": "orders", "method": "POST", "path": "orders"}},
	{"contract-no-description", "contract", map[string]any{"serviceId": "payments", "path": "charges"}},
	{"check-path", "check", map[string]any{"path": "scripts/order.js"}},
	{"check-text", "check", map[string]any{"text": "api.rest.v1.post(\"orders\", {pathParams: [\"orders\"]}, {}, {quantity: \"2\"});\n"}},
	{"complete-serviceid", "complete", map[string]any{"text": "api.rest.v1.get(\"\n", "line": 1, "column": 18}},
	{"complete-path", "complete", map[string]any{"text": "api.rest.v1.get(\"orders\", {pathParams: [\"\n", "line": 1, "column": 42}},
	{"references", "references", map[string]any{"serviceId": "orders"}},
	{"curl", "curl", map[string]any{"curl": "curl -X POST https://orders.example.com/api/orders -H 'Content-Type: application/json' -H 'Authorization: Bearer abc123xyz' -d '{\"item\":\"book\"}'"}},
	{"fixtures", "fixtures", map[string]any{"path": "scripts/order.js", "text": "var r = api.rest.v1.get(\"orders\", {pathParams: [\"orders\", context.input.id]}, {});\nreturn r.body.status;\n"}},
}

func TestToolGolden(t *testing.T) {
	cs := connect(t, testOptions(t, testProject(t)))
	for _, tc := range toolCases {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, cs, tc.tool, tc.args, nil)
			var got any = res.StructuredContent
			if res.IsError {
				got = map[string]string{"error": errorText(res)}
			}
			data, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			goldentest.Check(t, filepath.Join("testdata", "golden", tc.name+".json"), string(data)+"\n")
		})
	}
}
