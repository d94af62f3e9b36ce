package lsptest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

// ServiceXML is a script-service-api.xml with n services, every odd one a
// reference to the one before it: the registry of the language server
// benchmarks (docs/lsp.md quotes figures for n = 10,000).
func ServiceXML(n int) string {
	var b strings.Builder
	b.WriteString("<scriptservice>\n")
	for i := range n {
		if i%2 == 1 {
			fmt.Fprintf(&b, "  <api serviceId=\"service-%05d\" url=\"service-%05d/sub%d\" description=\"Generated service %d, by reference\"/>\n", i, i-1, i, i)
		} else {
			fmt.Fprintf(&b, "  <api serviceId=\"service-%05d\" url=\"https://service-%05d.example.com/api\" description=\"Generated service %d\"/>\n", i, i, i)
		}
	}
	b.WriteString("</scriptservice>\n")
	return b.String()
}

// BigScript returns a script of about lines lines ending in a call whose
// serviceId is being typed, and the UTF-16 position of the cursor there.
func BigScript(lines int) (string, protocol.Position) {
	var b strings.Builder
	b.WriteString("var results = [];\n")
	n := 1
	for i := 0; n < lines-3; i++ {
		fmt.Fprintf(&b, "// step %d: fetch the item and keep the answer — ünïcödé\n", i)
		fmt.Fprintf(&b, "try { var r%d = api.rest.v1.get(\"service-%05d\", {pathParams: [\"items\", \"%d\"], queryParams: {page: \"1\"}}, {Accept: \"application/json\"});\n", i, i%10000, i)
		fmt.Fprintf(&b, "  if (/^2\\d\\d$/.test(String(r%d.status.code))) { results.push(`item ${r%d.body.id}`); }\n", i, i)
		b.WriteString("} catch (e) { results.push({code: e.status.code, text: \"failed: \" + e.body}); }\n")
		n += 4
	}
	line := "var answer = api.rest.v1.post(\"service-0"
	pos := protocol.Position{Line: uint32(n), Character: uint32(len(line))}
	b.WriteString(line + "\", {}, {}, {});\nreturn answer;\n")
	return b.String(), pos
}

// ReportPercentiles reports p50 and p99 of ds in microseconds, as the
// metrics prefix+"p50-µs" and prefix+"p99-µs". It sorts ds.
func ReportPercentiles(b *testing.B, prefix string, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	at := func(q float64) float64 {
		return float64(ds[min(len(ds)-1, int(q*float64(len(ds))))].Nanoseconds()) / 1e3
	}
	b.ReportMetric(at(0.50), prefix+"p50-µs")
	b.ReportMetric(at(0.99), prefix+"p99-µs")
}
