package main

import (
	"strings"
	"testing"
)

// TestRunShowsBodiesAsSent: through the real binary (the script runs in a
// child), the preview and --json show a body's & < > as the fixture sent
// them; before, both showed "a=1\u0026b=2" for a link "a=1&b=2".
func TestRunShowsBodiesAsSent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	xml := writeFile(t, dir, "services.xml", `<scriptservice><api serviceId="crm" url="http://127.0.0.1:1"/></scriptservice>`)
	mock := writeFile(t, dir, "m.yaml", `- {serviceId: crm, body: {next: "/c?a=1&b=2", html: "<b>x</b>"}}`+"\n")
	script := writeFile(t, dir, "s.js", `return api.rest.v1.get("crm", {}, {}).body;`)
	for _, args := range [][]string{{"run"}, {"run", "--json"}} {
		out, err := restlsCommand(t, append(args, "--mock", mock, "--service-xml", xml, script)...).Output()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		text := string(out)
		if strings.Count(text, `"/c?a=1&b=2"`) != 2 || strings.Count(text, `"<b>x</b>"`) != 2 || strings.Contains(text, `\u00`) {
			t.Errorf("%v: want the body and the result as sent, twice each:\n%s", args, text)
		}
	}
}
