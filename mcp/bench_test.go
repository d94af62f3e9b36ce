package mcp

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchProject is testdata/project with 10,000 services (every tenth
// with basic credentials, which every answer is scanned for) and a
// 2,000-line script calling them.
func benchProject(b *testing.B) (root, script string) {
	b.Helper()
	root = testProject(b)
	var y strings.Builder
	y.WriteString("scriptservice:\n  api:\n")
	y.WriteString("    - serviceId: orders\n      url: https://orders.example.com/api\n")
	for i := range 10_000 {
		fmt.Fprintf(&y, "    - serviceId: svc-%05d\n      url: https://svc%d.example.com/api/v1\n      description: Service number %d\n", i, i%97, i)
		if i%10 == 0 {
			cred := base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "user%d:s3cret-%05d-pw", i, i))
			fmt.Fprintf(&y, "      authorization:\n        type: basic\n        encodedCredentials: %s\n", cred)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "config", "application.yml"), []byte(y.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	var s strings.Builder
	for i := range 500 {
		fmt.Fprintf(&s, "var r%d = api.rest.v1.get(\"svc-%05d\", {pathParams: [\"items\", String(%d)]}, {});\n", i, i*20, i)
		fmt.Fprintf(&s, "if (r%d.status.code !== 200) {\n  throw new Error(\"svc-%05d answered \" + r%d.status.code);\n}\n", i, i*20, i)
	}
	script = s.String()
	if n := strings.Count(script, "\n"); n != 2000 {
		b.Fatalf("the script has %d lines, want 2000", n)
	}
	return root, script
}

// BenchmarkTools: each call of the services, contract and check tools
// with 10,000 services and a 2,000-line script, through the SDK's client
// and server (JSON-RPC, schema validation, redaction); p99-ms is the
// 99th percentile of the calls' times (issue 37: under 100 ms).
func BenchmarkTools(b *testing.B) {
	root, script := benchProject(b)
	cs := connect(b, testOptions(b, root))
	for _, bc := range []struct {
		name, tool string
		args       map[string]any
	}{
		{"services", "services", map[string]any{}},
		{"services-query", "services", map[string]any{"query": "svc-0999"}},
		{"contract", "contract", map[string]any{"serviceId": "orders", "method": "GET", "path": "orders/42"}},
		{"check", "check", map[string]any{"text": script}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			// The first call loads the configuration and the descriptions.
			if res := call(b, cs, bc.tool, bc.args, nil); res.IsError {
				b.Fatalf("%s: %s", bc.tool, errorText(res))
			}
			times := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: bc.tool, Arguments: bc.args})
				if err != nil || res.IsError {
					b.Fatalf("%s: %v %v", bc.tool, err, res)
				}
				times = append(times, time.Since(start))
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
