package config

import (
	"fmt"
	"strings"
	"testing"
)

// TestYAMLAliasBombIsADiagnostic: an application.yml whose aliases
// expand past input's budget is a syntax diagnostic at the alias, and
// the services of the documents before it still load.
func TestYAMLAliasBombIsADiagnostic(t *testing.T) {
	var b strings.Builder
	b.WriteString("scriptservice:\n  api:\n    - serviceId: a\n      url: https://a.example.com\n---\n")
	b.WriteString("l0: &l0 [x,x,x,x,x,x,x,x,x]\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [%s*l%d]\n", i, i, strings.Repeat(fmt.Sprintf("*l%d,", i-1), 8), i-1)
	}
	p := parseYAML("application.yml", []byte(b.String()))
	if len(p.diags) != 1 || p.diags[0].Code != CodeSyntax || p.diags[0].Line != 10 || p.diags[0].RuneCol != 10 ||
		!strings.Contains(p.diags[0].Message, "its aliases expand the document") {
		t.Fatalf("diagnostics %+v, want one syntax error at 10:10 about the aliases", p.diags)
	}
	if len(p.apis) != 1 {
		t.Errorf("apis %+v, want the first document's service", p.apis)
	}
}
